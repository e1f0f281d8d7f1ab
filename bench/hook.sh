#!/usr/bin/env bash
# What an agent pays for toolscope as its hook: the wall time of one
# `toolscope hook claude-code` per event (a fresh process reading the
# event on stdin), for the events a Bash call, a Read and a Write make,
# next to `git status` and `git --version` in the same repository, in the
# same run, interleaved round by round. Prints the median of the rounds and
# the ratio to `git status`. Usage: bench/hook.sh [RUNS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-100}
rounds=${2:-5}
tmp=$(mktemp -d)
bin=$tmp/toolscope
go build -o "$bin" ./cmd/toolscope
CGO_ENABLED=0 go build -tags lean -o "$bin-lean" ./cmd/toolscope
here=$(pwd)
event() { # TOOL INPUT
  printf '{"session_id":"bench","transcript_path":"/tmp/t.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"%s","tool_input":%s,"tool_use_id":"toolu_1"}' "$here" "$1" "$2"
}
event Bash '{"command":"git log --oneline -5","description":"recent commits"}' >"$tmp/bash.json"
event Bash '{"command":"rm -rf build && echo x > ~/.bashrc"}' >"$tmp/danger.json"
event Read "{\"file_path\":\"$here/README.md\"}" >"$tmp/read.json"
event Write "{\"file_path\":\"$here/new.txt\",\"content\":\"$(head -c 4000 README.md | tr -d '\"\\\n')\"}" >"$tmp/write.json"
echo "machine: $(uname -srm), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $(go version); $(git --version)"
echo "repository: this checkout ($(git ls-files | wc -l) files); $runs runs a round, $rounds rounds"
labels=(
  "git --version"
  "git status"
  "hook claude-code: Bash, read-only (allow)"
  "hook claude-code: Bash, dangerous (ask)"
  "hook claude-code: Read"
  "hook claude-code: Write, 4 KB"
  "hook claude-code (-tags lean, CGO_ENABLED=0): Bash, read-only"
  "hook cursor: beforeShellExecution"
)
printf '{"hook_event_name":"beforeShellExecution","command":"git status","cwd":"%s","workspace_roots":["%s"]}' "$here" "$here" >"$tmp/cursor.json"
cmds=(
  "git --version"
  "git status"
  "$bin hook claude-code < $tmp/bash.json"
  "$bin hook claude-code < $tmp/danger.json"
  "$bin hook claude-code < $tmp/read.json"
  "$bin hook claude-code < $tmp/write.json"
  "$bin-lean hook claude-code < $tmp/bash.json"
  "$bin hook cursor < $tmp/cursor.json"
)
declare -A times
for ((r = 0; r < rounds; r++)); do
  for i in "${!cmds[@]}"; do
    start=$(date +%s%N)
    for ((k = 0; k < runs; k++)); do eval "${cmds[$i]}" >/dev/null 2>&1; done
    end=$(date +%s%N)
    times[$i]+="$(( (end - start) / runs / 1000 )) "
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
base=$(echo "${times[1]}" | median)
echo "| command | median wall time | ratio to git status |"
echo "|---|---|---|"
for i in "${!cmds[@]}"; do
  m=$(echo "${times[$i]}" | median)
  printf '| %-62s | %6.2f ms | %5.2f |\n' "${labels[$i]}" "$(echo "$m / 1000" | bc -l)" "$(echo "$m / $base" | bc -l)"
done
rm -rf "$tmp"
