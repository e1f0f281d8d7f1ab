#!/usr/bin/env bash
# toolscope serve against the official MCP servers, per call, over stdio,
# all driven by the official TypeScript SDK client (bench/mcp-call.mjs):
#   glob: Glob "*" of a directory of 200 files  vs server-filesystem list_directory
#   read: Read of a 4 KB file                    vs server-filesystem read_text_file
#   noop: TaskList (nothing to list)             vs server-everything echo
# Each round runs every workload on every server, one after the other
# (interleaved, so that a change in the machine's load hits all alike);
# the table gives each round's numbers and then the medians, with the
# ratio toolscope/peer of calls/s (above 1: toolscope does more calls per
# second) and of p50 latency (below 1: toolscope answers sooner).
#
# Usage: bench/mcp-peers.sh [CALLS] [ROUNDS]. Needs .ci/mcp-peers. With
# TOOLSCOPE_OLD=BINARY, a toolscope built from another commit runs too,
# in the same rounds, as "old".
set -euo pipefail
cd "$(dirname "$0")/.."
calls=${1:-1000}
rounds=${2:-5}
peers=$(.ci/mcp-peers)
export NODE_PATH="$peers/node_modules"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/toolscope" ./cmd/toolscope

dir="$tmp/data"
mkdir -p "$dir/list"
for i in $(seq -w 1 200); do : >"$dir/list/file$i.txt"; done
# 4 KB of text in 64 lines of 63 characters and a newline.
for i in $(seq -w 1 64); do echo "line $i: the quick brown fox jumps over the lazy dog 0123456789"; done >"$dir/4k.txt"

fs=(node "$peers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js" "$dir")
everything=(node "$peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js" stdio)
servers=(new)
[ -n "${TOOLSCOPE_OLD:-}" ] && servers+=(old)
servers+=(peer)

# run WORKLOAD SERVER: one measurement, as a JSON line.
run() {
  local bin=$tmp/toolscope
  [ "$2" = old ] && bin=$TOOLSCOPE_OLD
  local ts=("$bin" serve --cwd "$dir" --mode bypass)
  case $1/$2 in
  glob/peer) node bench/mcp-call.mjs "$calls" list_directory "{\"path\":\"$dir/list\"}" '[FILE] file200.txt' "${fs[@]}" ;;
  glob/*) node bench/mcp-call.mjs "$calls" Glob "{\"pattern\":\"*\",\"path\":\"$dir/list\"}" 'of 200 files' "${ts[@]}" ;;
  read/peer) node bench/mcp-call.mjs "$calls" read_text_file "{\"path\":\"$dir/4k.txt\"}" 'line 64:' "${fs[@]}" ;;
  read/*) node bench/mcp-call.mjs "$calls" Read "{\"file_path\":\"$dir/4k.txt\"}" 'line 64:' "${ts[@]}" ;;
  noop/peer) node bench/mcp-call.mjs "$calls" echo '{"message":"hello"}' 'Echo: hello' "${everything[@]}" ;;
  noop/*) node bench/mcp-call.mjs "$calls" TaskList '{}' '' "${ts[@]}" ;;
  esac
}

echo "machine: $(uname -srm), $(nproc) CPUs; $(go version | cut -d' ' -f3); node $(node --version); $calls calls a measurement, $rounds rounds"
out=$tmp/results
for ((r = 1; r <= rounds; r++)); do
  for w in glob read noop; do
    for s in "${servers[@]}"; do
      echo "$r $w $s $(run "$w" "$s")" >>"$out"
    done
  done
done
echo
echo "| round | workload | server | p50 µs | p90 µs | calls/s | server CPU µs/call | protocol |"
echo "|---|---|---|---|---|---|---|---|"
node -e '
const lines = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n");
const rows = lines.map((l) => { const [r, w, s, ...j] = l.split(" "); return { r, w, s, ...JSON.parse(j.join(" ")) }; });
for (const x of rows) console.log(`| ${x.r} | ${x.w} | ${x.s} | ${x.p50_us} | ${x.p90_us} | ${x.calls_per_s} | ${x.server_cpu_us ?? "-"} | ${x.protocol} |`);
const med = (a) => { a = [...a].sort((x, y) => x - y); const m = a.length >> 1; return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2; };
const stat = (w, s, k) => med(rows.filter((x) => x.w === w && x.s === s && x[k] !== null).map((x) => x[k]));
const servers = [...new Set(rows.map((x) => x.s))];
console.log("\nmedians over the rounds (ratios: toolscope/peer; \"old\" is TOOLSCOPE_OLD):\n");
console.log("| workload | server | p50 µs | calls/s | server CPU µs/call | calls/s ratio | p50 ratio |");
console.log("|---|---|---|---|---|---|---|");
for (const w of ["glob", "read", "noop"]) for (const s of servers) {
  const p50 = stat(w, s, "p50_us"), cps = stat(w, s, "calls_per_s"), cpu = stat(w, s, "server_cpu_us");
  const ratio = s === "peer" ? ["", ""] : [(cps / stat(w, "peer", "calls_per_s")).toFixed(2), (p50 / stat(w, "peer", "p50_us")).toFixed(2)];
  console.log(`| ${w} | ${s} | ${p50} | ${cps} | ${Number.isNaN(cpu) ? "-" : cpu} | ${ratio[0]} | ${ratio[1]} |`);
}
' "$out"
