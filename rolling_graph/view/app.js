// rolling-graph view: draws the inline graph with Cytoscape.js; search, a node panel with the
// audit reasons, and a turn slider that replays how the graph grew. No network is used.
(function () {
  "use strict";
  var t0 = performance.now();
  var data = JSON.parse(document.getElementById("graph-data").textContent);
  var big = data.nodes.length > 1000;
  var byId = {};
  data.nodes.forEach(function (n) { byId[n.id] = n; });
  var focus = {};
  data.focus.forEach(function (id) { focus[id] = true; });

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }

  var elements = [];
  data.nodes.forEach(function (n) {
    var classes = [n.domain];
    if (focus[n.id]) classes.push("focus");
    if (n.superseded_by.length) classes.push("superseded");
    if (n.anchor) classes.push("anchor");
    elements.push({
      group: "nodes",
      data: { id: n.id, label: n.label, weight: n.weight, born: n.born,
              size: 14 + 34 * n.weight, colour: data.colours[n.domain] },
      position: { x: n.x, y: n.y },
      classes: classes.join(" ")
    });
  });
  data.edges.forEach(function (e) {
    elements.push({
      group: "edges",
      data: { id: e.id, source: e.source, target: e.target, rel: e.relationship,
              strength: e.strength, born: e.born },
      classes: e.relationship === "supersedes" ? "supersedes" : ""
    });
  });

  var style = [
    { selector: "node", style: {
      "background-color": "data(colour)", "width": "data(size)", "height": "data(size)",
      "label": big ? "" : "data(label)", "font-size": 11, "color": "#222",
      "text-valign": "bottom", "text-margin-y": 3, "min-zoomed-font-size": 7,
      "text-max-width": 140, "text-wrap": "ellipsis" } },
    { selector: "node.focus", style: {
      "border-width": 4, "border-color": "#f2b705", "label": "data(label)",
      "font-weight": "bold", "z-index": 10 } },
    { selector: "node.superseded", style: { "opacity": 0.35 } },
    { selector: "node.anchor", style: { "shape": "round-rectangle" } },
    { selector: "edge", style: {
      "width": "mapData(strength, 0, 1, 0.6, 3)", "line-color": "#b9b9b9",
      "target-arrow-color": "#b9b9b9", "target-arrow-shape": big ? "none" : "triangle",
      "curve-style": big ? "haystack" : "bezier", "arrow-scale": 0.7, "opacity": 0.8 } },
    { selector: "edge.supersedes", style: {
      "line-style": "dashed", "line-color": data.colours.supersedes, "width": 3,
      "target-arrow-color": data.colours.supersedes, "target-arrow-shape": "triangle-tee",
      "curve-style": "bezier", "label": "supersedes", "font-size": 9,
      "color": data.colours.supersedes, "opacity": 1 } },
    { selector: ".dim", style: { "opacity": 0.12 } },
    { selector: "node.match", style: {
      "border-width": 4, "border-color": "#d62728", "label": "data(label)", "z-index": 20 } },
    { selector: "node:selected", style: {
      "border-width": 5, "border-color": "#111", "label": "data(label)", "z-index": 30 } },
    { selector: ".future", style: { "display": "none" } }
  ];

  var timings = { parsed: performance.now() - t0 };
  var cy = cytoscape({
    container: document.getElementById("cy"),
    elements: elements,
    style: style,
    layout: { name: "preset" },
    wheelSensitivity: 0.3,
    hideEdgesOnViewport: big,
    textureOnViewport: big,
    pixelRatio: big ? 1 : "auto",
    boxSelectionEnabled: false
  });
  if (data.nodes.length > 1 && data.nodes.length <= 300) {
    cy.layout({ name: "cose", animate: false, randomize: false, nodeRepulsion: 9000,
                idealEdgeLength: function (e) { return e.hasClass("supersedes") ? 160 : 70; },
                numIter: 600, fit: true, padding: 30 }).run();
  }
  timings.created = performance.now() - t0;
  // A handful of nodes would otherwise be fitted at a giant zoom.
  if (cy.zoom() > 1.5) { cy.zoom(1.5); cy.center(); }

  // Header: title, counts, legend.
  document.getElementById("title").textContent = data.title;
  var legend = document.getElementById("legend");
  ["project", "technical", "relationship", "personal"].forEach(function (d) {
    var s = el("span");
    var i = el("i");
    i.style.background = data.colours[d];
    s.appendChild(i);
    s.appendChild(document.createTextNode(d));
    legend.appendChild(s);
  });
  var sup = el("span");
  var line = el("i", null, "line");
  line.style.borderColor = data.colours.supersedes;
  sup.appendChild(line);
  sup.appendChild(document.createTextNode("supersedes (old decision faded) · gold ring: focus"));
  legend.appendChild(sup);

  function updateCounts() {
    var shown = cy.nodes().not(".future");
    document.getElementById("counts").textContent =
      shown.length + " nodes, " + cy.edges().not(".future").length + " edges";
  }

  // Search: substring of label, id, aliases or summary; matches ringed, the rest faded.
  var searchBox = document.getElementById("search");
  var results = document.getElementById("results");
  function search(q) {
    q = (q || "").trim().toLowerCase();
    results.textContent = "";
    var hits = [];
    cy.batch(function () {
      cy.elements(".dim, .match").removeClass("dim match");
      if (!q) return;
      data.nodes.forEach(function (n) {
        var hay = [n.id, n.label, n.summary].concat(n.aliases).join("\n").toLowerCase();
        if (hay.indexOf(q) >= 0) hits.push(n);
      });
      var matched = cy.collection(hits.map(function (n) { return cy.getElementById(n.id); }));
      matched.addClass("match");
      // Fading everything else restyles every element: worth it for small graphs only; on big
      // ones the matches are ringed and labelled instead.
      if (!big) cy.elements().difference(matched).addClass("dim");
    });
    hits.sort(function (a, b) { return b.weight - a.weight; });
    hits.slice(0, 50).forEach(function (n) {
      var li = el("li", n.label + " (" + n.domain + ", " + n.weight.toFixed(2) + ")");
      li.dataset.id = n.id;
      li.addEventListener("click", function () { select(n.id, true); });
      results.appendChild(li);
    });
    document.getElementById("match-count").textContent =
      q ? hits.length + (hits.length === 1 ? " match" : " matches") : "";
    return hits.map(function (n) { return n.id; });
  }
  var timer = null;
  searchBox.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { search(searchBox.value); }, big ? 200 : 60);
  });

  // The node panel.
  var panel = document.getElementById("panel");
  function row(dl, key, value) {
    dl.appendChild(el("dt", key));
    var dd = el("dd");
    if (value instanceof Node) dd.appendChild(value); else dd.textContent = String(value);
    dl.appendChild(dd);
  }
  function nodeLink(id) {
    var n = byId[id];
    var a = el("a", n ? n.label : id, n && n.superseded_by.length ? "old" : "");
    a.addEventListener("click", function () { select(id, true); });
    return a;
  }
  function showPanel(id) {
    var n = byId[id];
    panel.textContent = "";
    if (!n) return;
    var h = el("h2");
    var dot = el("span", null, "dot");
    dot.style.background = data.colours[n.domain];
    h.appendChild(dot);
    h.appendChild(document.createTextNode(" " + n.label));
    panel.appendChild(h);
    if (n.summary) panel.appendChild(el("p", n.summary, "summary"));
    var dl = el("dl");
    row(dl, "id", n.id);
    row(dl, "domain", n.domain + (n.kind ? " · " + n.kind : ""));
    row(dl, "weight", n.weight.toFixed(2) + (n.anchor ? " (anchor)" : ""));
    row(dl, "activated", "turn " + n.last_activated + (focus[id] ? " · in focus" : ""));
    row(dl, "first seen", "turn " + n.born);
    if (n.aliases.length) row(dl, "aliases", n.aliases.join(", "));
    Object.keys(n.attrs).forEach(function (k) { row(dl, k, n.attrs[k]); });
    if (n.superseded_by.length) {
      var s = el("span");
      n.superseded_by.forEach(function (sid, i) {
        if (i) s.appendChild(document.createTextNode(", "));
        s.appendChild(nodeLink(sid));
      });
      row(dl, "superseded by", s);
    }
    panel.appendChild(dl);
    var links = data.edges.filter(function (e) { return e.source === id || e.target === id; });
    panel.appendChild(el("h3", "Links (" + links.length + ")"));
    var ul = el("ul", null, "links");
    links.sort(function (a, b) { return b.strength - a.strength; }).slice(0, 60).forEach(function (e) {
      var li = el("li");
      var out = e.source === id;
      li.appendChild(document.createTextNode(out ? e.relationship + " → " : "← " + e.relationship + " "));
      li.appendChild(nodeLink(out ? e.target : e.source));
      li.appendChild(document.createTextNode(" (" + e.strength.toFixed(2) + ")"));
      ul.appendChild(li);
    });
    panel.appendChild(ul);
    panel.appendChild(el("h3", "Why it is here (audit log)"));
    var hist = el("ul", null, "history");
    if (!n.history.length) hist.appendChild(el("li", "no audit record (seeded or rebuilt)"));
    n.history.forEach(function (c) {
      var what = c.field ? c.op + " " + c.field : c.op + " node";
      var text = "turn " + c.turn + ": " + what + (c.source ? " (" + c.source + ")" : "") +
        (c.reason ? " — " + c.reason : "");
      hist.appendChild(el("li", text));
    });
    panel.appendChild(hist);
  }
  function select(id, centre) {
    var node = cy.getElementById(id);
    if (!node.length) return false;
    cy.nodes(":selected").unselect();
    node.select();
    if (centre) cy.animate({ center: { eles: node }, duration: 0 });
    showPanel(id);
    return true;
  }
  cy.on("tap", "node", function (evt) { select(evt.target.id(), false); });

  // The turn slider: elements first seen after the chosen turn are hidden.
  var slider = document.getElementById("turn");
  var turnOut = document.getElementById("turn-value");
  slider.max = String(data.turn);
  slider.value = String(data.turn);
  var shownTurn = data.turn;
  function setTurn(t) {
    t = Number(t);
    // Only what was born between the old and the new turn changes: dragging the slider one
    // step restyles a handful of elements, not all 15,000 of a 5,000-node graph.
    var lo = Math.min(t, shownTurn), hi = Math.max(t, shownTurn);
    var delta = cy.elements().filter(function (ele) {
      var b = ele.data("born");
      return b > lo && b <= hi;
    });
    cy.batch(function () {
      if (t < shownTurn) delta.addClass("future"); else delta.removeClass("future");
    });
    shownTurn = t;
    slider.value = String(t);
    turnOut.textContent = t + " / " + data.turn;
    updateCounts();
    return cy.nodes().not(".future").length;
  }
  slider.addEventListener("input", function () { setTurn(slider.value); });
  slider.value = String(data.turn);
  turnOut.textContent = data.turn + " / " + data.turn;
  updateCounts();

  cy.ready(function () {
    requestAnimationFrame(function () {
      var ms = performance.now() - t0;
      timings.drawn = ms;
      window.rgView = { cy: cy, search: search, select: select, setTurn: setTurn,
                        renderMs: ms, timings: timings, data: data };
      document.body.dataset.ready = "1";
      document.body.dataset.renderMs = ms.toFixed(1);
    });
  });
})();
