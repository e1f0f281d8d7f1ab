#!/usr/bin/env bash
# The --state file at scale: how long one `toolscope call --state FILE`
# takes when the state holds N tasks (10,000 by default: ten times what
# TaskCreate lets a list reach, as a state many runs merged, or a program,
# may hold), for TaskGet (reads the state, saves it unchanged) and
# TaskUpdate (changes one task), next to `toolscope version` for scale.
# There is no peer for this row. With OLD set to another checkout of
# toolscope, its binary is timed too, the rounds interleaved (old, new,
# old, ...) so that the machine's other load falls on both alike, and the
# ratios old / new are printed.
# The seal key is made in a configuration directory of the script's own.
# Usage: bench/state.sh [RUNS] [TASKS]; OLD=DIR bench/state.sh
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
tasks=${2:-10000}
rounds=4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp/config
go build -o "$tmp/new" ./cmd/toolscope
go build -o "$tmp/stategen" ./bench/stategen
bins=(new)
if [[ -n ${OLD:-} ]]; then
  (cd "$OLD" && go build -o "$tmp/old" ./cmd/toolscope)
  bins=(old new)
fi
echo "machine: $(uname -srm), $(nproc) CPUs; $(go version)"
"$tmp/stategen" -n "$tasks" -o "$tmp/state.json"
echo "state: $tasks tasks, $(wc -c <"$tmp/state.json") bytes"

# Wall time, and CPU time (user + system, of the runs' processes): on a
# machine with other work running, the CPU time is the steadier measure.
declare -A total cpu
TIMEFORMAT='%U %S'
time_runs() { # key, command...
  local key=$1; shift
  local start end t
  start=$(date +%s%N)
  t=$( { time (for ((i = 0; i < runs; i++)); do "$@" >/dev/null; done) ; } 2>&1 )
  end=$(date +%s%N)
  total[$key]=$(( ${total[$key]:-0} + end - start ))
  cpu[$key]=$(echo "${cpu[$key]:-0} + ${t% *} + ${t#* }" | bc -l)
}
statuses=(in_progress pending)
for ((r = 0; r < rounds; r++)); do
  for b in "${bins[@]}"; do
    bin=$tmp/$b
    cp "$tmp/state.json" "$tmp/$b.json"
    time_runs "$b version" "$bin" version
    time_runs "$b TaskGet" "$bin" call --state "$tmp/$b.json" TaskGet '{"task_id":"5000"}'
    time_runs "$b TaskUpdate" "$bin" call --state "$tmp/$b.json" TaskUpdate \
      "{\"task_id\":\"$((r + 1))\",\"status\":\"${statuses[r % 2]}\"}"
  done
done
"$tmp/new" call --state "$tmp/new.json" TaskGet '{"task_id":"1"}' | grep -q "$tasks\|Task" || {
  echo "state.sh: the state no longer reads" >&2
  exit 1
}
echo "| command ($tasks tasks, $rounds rounds of $runs runs) | mean wall time | mean CPU time |"
echo "|---|---|---|"
for b in "${bins[@]}"; do
  for what in version TaskGet TaskUpdate; do
    key="$b $what"
    label="toolscope $what"
    [[ ${#bins[@]} -gt 1 ]] && label="$label ($b)"
    printf '| %-40s | %8.2f ms | %8.2f ms |\n' "$label" \
      "$(echo "${total[$key]} / ($rounds * $runs) / 1000000" | bc -l)" \
      "$(echo "${cpu[$key]} * 1000 / ($rounds * $runs)" | bc -l)"
  done
done
if [[ ${#bins[@]} -gt 1 ]]; then
  echo
  echo "| command | old / new, wall | old / new, CPU |"
  echo "|---|---|---|"
  for what in TaskGet TaskUpdate; do
    printf '| toolscope %-12s | %6.1f× | %6.1f× |\n' "$what" \
      "$(echo "${total[old $what]} / ${total[new $what]}" | bc -l)" \
      "$(echo "${cpu[old $what]} / ${cpu[new $what]}" | bc -l)"
  done
fi
