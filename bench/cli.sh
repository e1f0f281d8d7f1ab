#!/usr/bin/env bash
# Cold start of the CLI: how long one `toolscope check` takes as a fresh
# process (what a hook or a script pays per call), next to the command it
# judges (`git status` in the same repository) and `git --version`, in
# the same run, interleaved round by round. Prints the median of the rounds
# and the ratio to `git status`. Usage: bench/cli.sh [RUNS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-100}
rounds=${2:-5}
bin=$(mktemp -d)/toolscope
go build -o "$bin" ./cmd/toolscope
lean=$(dirname "$bin")/toolscope-lean
go build -tags lean -o "$lean" ./cmd/toolscope
echo "machine: $(uname -srm), $(nproc) CPUs; $(go version); $(git --version)"
echo "repository: this checkout ($(git ls-files | wc -l) files); $runs runs a round, $rounds rounds"

labels=(
  "git --version"
  "git status"
  "toolscope version"
  "toolscope check -- 'git status'"
  "toolscope check -- 'git status && ls -la'"
  "toolscope check --mode accept_edits -- 'mkdir -p build && touch build/x'"
  "toolscope check --tool Read --input '{\"file_path\":\"README.md\"}'"
  "toolscope (-tags lean) version"
  "toolscope (-tags lean) check -- 'git status'"
)
cmds=(
  "git --version"
  "git status"
  "$bin version"
  "$bin check -- 'git status'"
  "$bin check -- 'git status && ls -la'"
  "$bin check --mode accept_edits -- 'mkdir -p build && touch build/x'"
  "$bin check --tool Read --input '{\"file_path\":\"README.md\"}'"
  "$lean version"
  "$lean check -- 'git status'"
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
  printf '| %-72s | %6.2f ms | %5.2f |\n' "${labels[$i]}" "$(echo "$m / 1000" | bc -l)" "$(echo "$m / $base" | bc -l)"
done
rm -rf "$(dirname "$bin")"
