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

  // What a file folds (its identifiers) and what each domain's "more" node folds.
  var kids = {};
  var moreCount = {};
  data.nodes.forEach(function (n) {
    if (n.parent) (kids[n.parent] = kids[n.parent] || []).push(n.id);
    if (n.in_domain) moreCount[n.domain] = (moreCount[n.domain] || 0) + 1;
  });
  function shortText(n) {
    // A file is labelled by its name; the panel and search have the whole path.
    if (n.kind !== "file") return n.label;
    var parts = n.label.replace(/\/+$/, "").split("/");
    return parts[parts.length - 1] || n.label;
  }
  function foldText(id, base, open) {
    var k = kids[id] ? kids[id].length : 0;
    return k ? base + (open ? "  \u2212" : "  +" + k) : base;
  }

  var elements = [];
  data.nodes.forEach(function (n) {
    var classes = [n.domain, n.story ? "story" : "minor"];
    if (focus[n.id]) classes.push("focus");
    if (n.superseded_by.length) classes.push("superseded");
    if (n.anchor) classes.push("anchor");
    if (kids[n.id]) classes.push("host");
    if (n.parent || n.in_domain) classes.push("folded");
    var host = n.parent ? byId[n.parent] : null;
    elements.push({
      group: "nodes",
      data: { id: n.id, label: n.label, text: foldText(n.id, shortText(n), false),
              base: shortText(n), weight: n.weight, born: n.born, domain: n.domain,
              host: n.parent, inDomain: n.in_domain,
              dx: host ? n.x - host.x : 0, dy: host ? n.y - host.y : 0,
              size: n.story ? 20 + 26 * n.weight : 10 + 24 * n.weight,
              colour: data.colours[n.domain] },
      position: { x: n.x, y: n.y },
      classes: classes.join(" ")
    });
  });
  data.more.forEach(function (m) {
    var text = moreText(m.domain, false);
    elements.push({
      group: "nodes",
      data: { id: "more:" + m.domain, label: text, text: text, base: text, weight: 0, born: 0,
              domain: m.domain, size: 40, colour: data.colours[m.domain] },
      position: { x: m.x, y: m.y },
      classes: "more"
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

  var FONT = "Helvetica, Arial, sans-serif";
  var style = [
    { selector: "node", style: {
      "background-color": "data(colour)", "width": "data(size)", "height": "data(size)",
      "label": "", "font-size": 11, "font-family": FONT, "color": "#222",
      "text-valign": "bottom", "text-margin-y": 2, "min-zoomed-font-size": 8,
      "text-max-width": 180, "text-wrap": "ellipsis",
      "text-background-color": "#fff", "text-background-opacity": 0.7,
      "text-background-padding": 1 } },
    { selector: "node.lbl", style: { "label": "data(text)", "z-index": 5 } },
    { selector: "node.story", style: { "border-width": 2, "border-color": "#fff" } },
    { selector: "node.host", style: { "shape": "round-rectangle" } },
    { selector: "node.more", style: {
      "shape": "round-rectangle", "background-color": "#fff", "border-width": 3,
      "border-style": "dashed", "border-color": "data(colour)" } },
    { selector: "node.focus", style: {
      "border-width": 4, "border-color": "#f2b705", "z-index": 10 } },
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
      "border-width": 4, "border-color": "#d62728", "z-index": 20 } },
    { selector: "node:selected", style: {
      "border-width": 5, "border-color": "#111", "z-index": 30 } },
    { selector: "node.folded", style: { "display": "none" } },
    { selector: "node.folded.match", style: { "display": "element" } },
    { selector: ".future", style: { "display": "none" } }
  ];

  var timings = { parsed: performance.now() - t0 };
  var cy = cytoscape({
    container: document.getElementById("cy"),
    elements: elements,
    style: style,
    layout: { name: "preset", fit: false },
    wheelSensitivity: 0.3,
    hideEdgesOnViewport: big,
    textureOnViewport: big,
    pixelRatio: big ? 1 : "auto",
    boxSelectionEnabled: false,
    multiClickDebounceTime: 500  // a double-click as slow as desktops allow by default
  });
  var shown = cy.nodes().not(".folded");
  if (shown.length > 12 && data.nodes.length <= 300) {
    var inner = cy.edges().filter(function (e) {
      return !e.source().hasClass("folded") && !e.target().hasClass("folded");
    });
    shown.union(inner).layout({
      name: "cose", animate: false, randomize: false, nodeRepulsion: 12000,
      idealEdgeLength: function (e) { return e.hasClass("supersedes") ? 160 : 90; },
      numIter: 600, fit: false }).run();
  }
  timings.created = performance.now() - t0;

  // Labels: the same size on screen at every zoom (STORY_PX for the story, MINOR_PX for the
  // rest), and only where they fit: after each zoom or pan, nodes are taken in order of
  // importance and a node is labelled only if its label overlaps no label already placed.
  var STORY_PX = 12, MINOR_PX = 11, MAX_W = 160, SHORT_W = 90;
  var LABEL_STYLE = "font-size text-max-width text-valign text-halign text-margin-x text-margin-y";
  var measure = document.createElement("canvas").getContext("2d");
  var widths = {};
  function textWidth(text, px) {
    var w = widths[text];
    if (w === undefined) {
      measure.font = "10px " + FONT;
      w = widths[text] = measure.measureText(text).width;
    }
    return w * px / 10;
  }
  function rank(n) {
    if (n.selected()) return 0;
    if (n.hasClass("match")) return 1;
    // The way into folded nodes ("more") is labelled with the focus, before the rest.
    if (n.hasClass("more") || n.hasClass("focus")) return 2;
    if (n.hasClass("story")) return n.hasClass("superseded") ? 4 : 3;
    return n.hasClass("host") ? 6 : 7;
  }
  // Where Cytoscape draws a label of w × h px beside a node of radius r at (x, y): dx, dy are
  // -1, 0 or 1 (left / centre / right, above / middle / below); GAP is the text margin.
  var GAP = 2, PAD = 2;
  var SPOTS = [[0, 1], [0, -1], [1, 0], [-1, 0], [1, 1], [-1, 1], [1, -1], [-1, -1]];
  function spotBox(x, y, r, w, h, dx, dy) {
    var x1 = dx === 0 ? x - w / 2 : (dx > 0 ? x + r + GAP - 1 : x - r - GAP + 1 - w);
    var gy = dx === 0 ? GAP : 0;
    var y1 = dy === 0 ? y - h / 2 : (dy > 0 ? y + r + gy - 1 : y - r - gy + 1 - h);
    // Padded, so that two labels placed side by side never touch.
    return [x1 - PAD, y1 - PAD, x1 + w + PAD, y1 + h + PAD];
  }
  function labelGrid() {
    var grid = {}, CELL = 64;
    return function (b, owner, add) {
      for (var i = Math.floor(b[0] / CELL); i <= Math.floor(b[2] / CELL); i++) {
        for (var j = Math.floor(b[1] / CELL); j <= Math.floor(b[3] / CELL); j++) {
          var k = i + "," + j, list = grid[k] || (grid[k] = []);
          if (add) { list.push([b, owner]); continue; }
          for (var m = 0; m < list.length; m++) {
            var o = list[m][0];
            if (list[m][1] !== owner && b[0] < o[2] && o[0] < b[2] && b[1] < o[3] && o[1] < b[3]) {
              return true;
            }
          }
        }
      }
      return false;
    };
  }
  function labelCandidates(z, pan, W, H) {
    var cands = [];
    cy.nodes().forEach(function (n) {
      if (n.hasClass("future") || (n.hasClass("folded") && !n.hasClass("match"))) return;
      var p = n.position(), x = p.x * z + pan.x, y = p.y * z + pan.y;
      if (x < 0 || y < 0 || x > W || y > H) return;
      cands.push({ n: n, x: x, y: y, r: n.data("size") * z / 2, rank: rank(n),
                   w: n.data("weight") });
    });
    return cands.sort(function (a, b) { return a.rank - b.rank || b.w - a.w; });
  }
  var relabel = null;
  function relabelSoon() {  // once a drag, a zoom or a pan has come to rest
    clearTimeout(relabel);
    relabel = setTimeout(placeLabels, big ? 150 : 60);
  }
  var labelled = cy.collection();
  function placeLabels() {
    var z = cy.zoom(), pan = cy.pan(), W = cy.width(), H = cy.height();
    var cands = labelCandidates(z, pan, W, H), taken = labelGrid(), keep = [];
    // The discs of the story (and "more") nodes are obstacles: no label covers one.
    cands.forEach(function (c) {
      if (c.rank <= 5) taken([c.x - c.r, c.y - c.r, c.x + c.r, c.y + c.r], c.n.id(), true);
    });
    cands.forEach(function (c) {
      var px = c.n.hasClass("minor") ? MINOR_PX : STORY_PX, h = px * 1.2 + 1;
      var full = Math.min(textWidth(c.n.data("text"), px), MAX_W);
      // The whole label if it fits somewhere; a story label may else be cut short ("Fix th…").
      var widths = c.rank <= 4 && full > SHORT_W ? [full, SHORT_W] : [full];
      for (var k = 0; k < widths.length; k++) {
        for (var i = 0; i < SPOTS.length; i++) {
          var box = spotBox(c.x, c.y, c.r, widths[k] + 2, h, SPOTS[i][0], SPOTS[i][1]);
          if (box[0] < 0 || box[1] < 0 || box[2] > W || box[3] > H) continue;
          if (taken(box, c.n.id(), false)) continue;
          taken(box, c.n.id(), true);
          keep.push({ n: c.n, px: px, dx: SPOTS[i][0], dy: SPOTS[i][1], w: widths[k] });
          return;
        }
      }
    });
    var now = cy.collection(keep.map(function (k) { return k.n; }));
    var H_ALIGN = ["left", "center", "right"], V_ALIGN = ["top", "center", "bottom"];
    cy.batch(function () {
      labelled.difference(now).removeClass("lbl").removeStyle(LABEL_STYLE);
      keep.forEach(function (k) {
        k.n.addClass("lbl").style({
          "font-size": k.px / z, "text-max-width": (k.w < MAX_W ? k.w + 1 : MAX_W) / z,
          "text-halign": H_ALIGN[k.dx + 1], "text-valign": V_ALIGN[k.dy + 1],
          "text-margin-x": k.dx * GAP / z, "text-margin-y": k.dx ? 0 : k.dy * GAP / z });
      });
    });
    labelled = now;
    return keep.length;
  }

  // Folding: double-click a file (a rounded square, "+N") to unfold its identifiers, or a
  // domain's dashed "more" node to unfold the nodes folded into it; again to fold them.
  function members(id) {
    if (id.indexOf("more:") === 0) {
      var d = id.slice(5);
      return cy.nodes().filter(function (n) { return n.data("inDomain") && n.data("domain") === d; });
    }
    return cy.collection((kids[id] || []).map(function (k) { return cy.getElementById(k); }));
  }
  function moreText(domain, open) {
    return domain + ": " + (open ? "fold " + moreCount[domain] : moreCount[domain] + " more");
  }
  function fold(m) {
    // Folding a domain folds the identifiers of its files as well.
    m.forEach(function (n) {
      if (!kids[n.id()]) return;
      members(n.id()).addClass("folded");
      n.data("text", foldText(n.id(), n.data("base"), false));
    });
    m.addClass("folded");
  }
  // Unfolds (true) or folds (false) what a file or a "more" node holds; null if nothing. A
  // domain unfolded by hand is brought into view (its nodes lie beyond the first screen).
  function toggle(id, quiet) {
    var m = members(id);
    if (!m.length) return null;
    var open = m.some(function (n) { return n.hasClass("folded"); });
    var host = cy.getElementById(id);
    cy.batch(function () {
      if (open) {
        var p = host.position();
        m.forEach(function (n) {
          if (n.data("host")) n.position({ x: p.x + n.data("dx"), y: p.y + n.data("dy") });
        });
        m.removeClass("folded");
      } else {
        fold(m);
      }
      if (kids[id]) host.data("text", foldText(id, host.data("base"), open));
      if (host.hasClass("more")) host.data("text", moreText(host.data("domain"), open));
    });
    if (open && !quiet && host.hasClass("more")) cy.fit(m.union(host), 24);
    updateCounts();
    placeLabels();
    return open;
  }
  function reveal(id) {
    var n = cy.getElementById(id);
    if (!n.hasClass("folded")) return;
    var h = n.data("host") ? cy.getElementById(n.data("host")) : n;
    if (h.data("inDomain") && h.hasClass("folded")) toggle("more:" + h.data("domain"), true);
    if (n.data("host")) toggle(n.data("host"), true);
  }
  cy.on("dbltap", "node", function (evt) { toggle(evt.target.id()); });

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
  sup.appendChild(document.createTextNode("supersedes (old decision faded) · gold ring: focus" +
    " · square +N: a file's folded identifiers, dashed: more (double-click to unfold)"));
  legend.appendChild(sup);

  // The header is final now (the legend may wrap it to a second line): fit to the canvas left.
  cy.resize();
  cy.fit(shown, 24);
  // A handful of nodes would otherwise be fitted at a giant zoom.
  if (cy.zoom() > 1.5) { cy.zoom(1.5); cy.center(shown); }

  function updateCounts() {
    var all = cy.nodes().not(".future").not(".more");
    var folded = all.filter(".folded").length;
    document.getElementById("counts").textContent =
      all.length + " nodes, " + cy.edges().not(".future").length + " edges" +
      (folded ? " (" + folded + " folded: double-click a +N or more node to unfold)" : "");
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
      // A folded match is shown where it would be if its file were unfolded.
      matched.filter(".folded").forEach(function (n) {
        var h = n.data("host") && cy.getElementById(n.data("host")).position();
        if (h) n.position({ x: h.x + n.data("dx"), y: h.y + n.data("dy") });
      });
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
    placeLabels();
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
  function foldButton(id) {
    var m = members(id);
    if (!m.length) return null;
    var closed = m.some(function (x) { return x.hasClass("folded"); });
    var b = el("button", (closed ? "Unfold " : "Fold ") + m.length +
      (id.indexOf("more:") === 0 ? " nodes" : " identifiers"), "fold");
    b.addEventListener("click", function () { toggle(id); showPanel(id); });
    return b;
  }
  function showPanel(id) {
    var n = byId[id];
    panel.textContent = "";
    if (id.indexOf("more:") === 0) {
      panel.appendChild(el("h2", cy.getElementById(id).data("text")));
      panel.appendChild(el("p", "The lightest nodes of this domain, folded to keep the first " +
        "screen readable. Double-click the dashed node, or:", "summary"));
      panel.appendChild(foldButton(id));
      return;
    }
    if (!n) return;
    var h = el("h2");
    var dot = el("span", null, "dot");
    dot.style.background = data.colours[n.domain];
    h.appendChild(dot);
    h.appendChild(document.createTextNode(" " + n.label));
    panel.appendChild(h);
    if (n.summary) panel.appendChild(el("p", n.summary, "summary"));
    if (kids[id]) panel.appendChild(foldButton(id));
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
    reveal(id);
    cy.nodes(":selected").unselect();
    node.select();
    if (centre) cy.center(node);
    showPanel(id);
    placeLabels();
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
    relabelSoon();
    return cy.nodes().not(".future").not(".more").length;
  }
  slider.addEventListener("input", function () { setTurn(slider.value); });
  slider.value = String(data.turn);
  turnOut.textContent = data.turn + " / " + data.turn;
  // Nothing to replay (a warm graph: no turns, no audit log): no slider rather than "0 / 0".
  if (!data.turn) document.getElementById("turn-box").hidden = true;
  updateCounts();
  placeLabels();
  // From now on (the first fit is done), labels are placed again after each zoom or pan.
  cy.on("viewport", relabelSoon);

  cy.ready(function () {
    requestAnimationFrame(function () {
      var ms = performance.now() - t0;
      timings.drawn = ms;
      window.rgView = { cy: cy, search: search, select: select, setTurn: setTurn,
                        toggle: toggle, placeLabels: placeLabels,
                        renderMs: ms, timings: timings, data: data };
      document.body.dataset.ready = "1";
      document.body.dataset.renderMs = ms.toFixed(1);
    });
  });
})();
