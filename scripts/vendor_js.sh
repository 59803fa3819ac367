#!/usr/bin/env bash
# Vendor the graph-drawing library into the package, so that `rolling-graph view` writes an HTML
# file that needs no network: `npm pack` a pinned version, keep the minified build and its licence.
# Run it when bumping the pin, then commit rolling_graph/view/vendor/.
set -euo pipefail
CYTOSCAPE_VERSION="${CYTOSCAPE_VERSION:-3.34.4}"
cd "$(dirname "$0")/.."
dest="rolling_graph/view/vendor"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "cytoscape@${CYTOSCAPE_VERSION}" >/dev/null && tar -xzf cytoscape-*.tgz)
mkdir -p "$dest"
cp "$work/package/dist/cytoscape.min.js" "$dest/cytoscape.min.js"
cp "$work/package/LICENSE" "$dest/cytoscape.LICENSE"
printf 'cytoscape %s (npm pack cytoscape@%s; dist/cytoscape.min.js, LICENSE)\n' \
    "$CYTOSCAPE_VERSION" "$CYTOSCAPE_VERSION" >"$dest/VERSIONS"
echo "vendored cytoscape $CYTOSCAPE_VERSION into $dest"
