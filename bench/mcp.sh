#!/usr/bin/env bash
# Echo calls per second over stdio to server-everything: toolscope's
# mcp.Client (through a Toolkit) against the official TypeScript SDK
# client, in the same run. Needs .ci/mcp-peers. Usage: bench/mcp.sh [CALLS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
calls=${1:-2000}
rounds=${2:-3}
peers=$(.ci/mcp-peers)
server=("$(command -v node)" "$peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js" stdio)
bin=$(mktemp -d)/mcpecho
go build -o "$bin" ./bench/mcpecho
echo "machine: $(uname -srm), $(nproc) CPUs; $(go version); node $(node --version)"
echo "| round | toolscope mcp.Client + Toolkit | TypeScript SDK Client |"
echo "|---|---|---|"
for ((r = 1; r <= rounds; r++)); do
  ours=$("$bin" -n "$calls" "${server[@]}")
  theirs=$(NODE_PATH="$peers/node_modules" node bench/mcp-echo.mjs "$calls" "${server[@]}")
  echo "| $r | $ours | $theirs |"
done
rm -rf "$(dirname "$bin")"
