#!/usr/bin/env bash
# Glob and Grep over a large tree: `toolscope call Glob` and `toolscope call
# Grep` (its Go engine) as fresh processes, next to fd, find and rg doing the
# same work on the same tree, interleaved round by round so that other load
# on the machine weighs on all alike. Prints the median wall time of each
# and its ratio to the peer.
#
# Usage: bench/glob.sh [ROUNDS] [OLD_TOOLSCOPE_BINARY]
#
# The tree (made once, in a temporary directory, removed at the end) has
# 10^5 files: 10 x 10 x 10 directories of 100 files (one a dotfile), of 4
# to 10 short lines; one line in 50 matches the Grep row's regular
# expression. It is not a git repository, so no ignore file applies.
#
# What each row runs:
#   Glob   toolscope call Glob '{"pattern":"**/*"}': every regular file,
#          hidden ones included, .gitignore honoured, the secret policy's
#          exclusions applied; it stats every match to return the 100 most
#          recently modified.
#   fd     fdfind --hidden --type f . DIR: the same set of files (hidden
#          included, ignore files honoured; fd skips .git, as Glob does),
#          printed, not statted.
#   find   find DIR -type f, for scale.
#   Grep   toolscope call Grep with a regular expression without a literal
#          longer than one byte, content mode with line numbers, PATH
#          without rg so that the Go engine runs.
#   rg     rg --hidden -n --max-columns 500 -e REGEX DIR, what the Grep
#          tool's ripgrep engine runs (output to /dev/null).
# With OLD_TOOLSCOPE_BINARY, the rows Glob (old) and Grep (old) time it too.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-7}
old=${2:-}
fd=$(command -v fdfind || command -v fd)
regex='[a-z]+_[0-9]{3}x'

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/toolscope
go build -o "$bin" ./cmd/toolscope
tree=$work/tree
mkdir -p "$work/home" "$work/nopath"
export HOME=$work/home # no user settings

echo "machine: $(uname -srm), $(nproc) CPUs; $(go version)"
echo "peers: $($fd --version), $(rg --version | head -1), find $(find --version | head -1 | awk '{print $NF}')"

# The tree: directories first, then every file from one awk process.
for a in 0 1 2 3 4 5 6 7 8 9; do
  for b in 0 1 2 3 4 5 6 7 8 9; do
    mkdir -p "$tree/pkg$a/mod$b"/part{0,1,2,3,4,5,6,7,8,9}
  done
done
awk -v root="$tree" 'BEGIN {
  split(".go .py .md .txt .json", ext, " ")
  split("alpha beta gamma_12 delta epsilon zeta foo_bar baz qux", word, " ")
  n = 0
  for (a = 0; a < 10; a++) for (b = 0; b < 10; b++) for (c = 0; c < 10; c++) {
    dir = root "/pkg" a "/mod" b "/part" c
    for (f = 0; f < 100; f++) {
      name = sprintf("file%03d%s", f, ext[n % 5 + 1])
      if (f == 99) name = ".hidden" ext[n % 5 + 1]
      path = dir "/" name
      for (l = 0; l < 4 + n % 7; l++) {
        line = ""
        for (k = 0; k < 6; k++) line = line word[(n + l + k) % 9 + 1] " "
        if ((n + l) % 50 == 0) line = line "seen_042x "
        print line n " " l > path
      }
      close(path)
      n++
    }
  }
}'
echo "tree: $(find "$tree" -type f | wc -l) files"

# Each row's command; the first word of the label names the row.
labels=() cmds=()
row() { labels+=("$1"); shift; cmds+=("$*"); }
glob_in='{"pattern":"**/*"}'
grep_in="{\"pattern\":\"$regex\",\"output_mode\":\"content\",\"-n\":true}"
row "Glob" "\"$bin\" call --cwd \"$tree\" --mode bypass Glob '$glob_in'"
[ -n "$old" ] && row "Glob (old)" "\"$old\" call --cwd \"$tree\" --mode bypass Glob '$glob_in'"
row "fd" "\"$fd\" --hidden --type f . \"$tree\""
row "find" "find \"$tree\" -type f"
row "Grep" "PATH=\"$work/nopath\" \"$bin\" call --cwd \"$tree\" --mode bypass Grep '$grep_in'"
[ -n "$old" ] && row "Grep (old)" "PATH=\"$work/nopath\" \"$old\" call --cwd \"$tree\" --mode bypass Grep '$grep_in'"
row "rg" "rg --hidden -n --max-columns 500 -e '$regex' \"$tree\""

# Every command once to warm the page cache and check it works.
for c in "${cmds[@]}"; do eval "$c" >/dev/null; done

declare -A times # round,row -> microseconds
for ((r = 0; r < rounds; r++)); do
  for i in "${!cmds[@]}"; do
    start=$(date +%s%N)
    eval "${cmds[$i]}" >/dev/null
    end=$(date +%s%N)
    times[$r,$i]=$(((end - start) / 1000))
  done
done

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
index() { for i in "${!labels[@]}"; do if [ "${labels[$i]}" = "$1" ]; then echo "$i"; fi; done; }
peer() { # the row a label is compared with
  case $1 in
  Glob*) index fd ;;
  Grep*) index rg ;;
  esac
}
echo
echo "| command ($rounds interleaved rounds) | median wall time | median ratio to the peer's time in the same round |"
echo "|---|---|---|"
for i in "${!labels[@]}"; do
  ms=$(for ((r = 0; r < rounds; r++)); do echo "${times[$r,$i]}"; done | median | awk '{printf "%.1f", $1 / 1000}')
  ratio=""
  if p=$(peer "${labels[$i]}") && [ -n "$p" ]; then
    ratio=$(for ((r = 0; r < rounds; r++)); do echo "${times[$r,$i]} ${times[$r,$p]}" | awk '{print $1 / $2}'; done | median | awk '{printf "%.2f", $1}')
    ratio="${ratio}x ${labels[$p]}"
  fi
  printf '| %-10s | %8s ms | %s |\n' "${labels[$i]}" "$ms" "$ratio"
done
