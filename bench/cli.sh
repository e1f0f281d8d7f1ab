#!/usr/bin/env bash
# Cold start of the CLI: how long one `toolscope check` takes as a fresh
# process (what a hook or a script pays per call), next to `true` and `ls`
# for scale. Usage: bench/cli.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
bin=$(mktemp -d)/toolscope
go build -o "$bin" ./cmd/toolscope
echo "machine: $(uname -srm), $(nproc) CPUs; $(go version)"

time_runs() { # label, command...
  local label=$1; shift
  local start end
  start=$(date +%s%N)
  for ((i = 0; i < runs; i++)); do "$@" >/dev/null; done
  end=$(date +%s%N)
  printf '| %-58s | %8.2f ms |\n' "$label" "$(echo "($end - $start) / $runs / 1000000" | bc -l)"
}
echo "| command ($runs runs each) | mean wall time |"
echo "|---|---|"
time_runs "/bin/true" /bin/true
time_runs "ls -la" ls -la
time_runs "toolscope version" "$bin" version
time_runs "toolscope check -- 'git status && ls -la'" "$bin" check -- 'git status && ls -la'
time_runs "toolscope check --mode accept_edits -- 'mkdir -p build && touch build/x'" "$bin" check --mode accept_edits -- 'mkdir -p build && touch build/x'
time_runs "toolscope check --tool Read --input '{\"file_path\":\"/etc/hosts\"}'" "$bin" check --tool Read --input '{"file_path":"/etc/hosts"}'
rm -rf "$(dirname "$bin")"
