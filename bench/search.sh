#!/usr/bin/env bash
# Compare the Grep, Glob and Read tools with raw rg and sed -n on the same input.
# Usage: bench/search.sh [-root DIR] [-n N]
set -euo pipefail
cd "$(dirname "$0")/.."
uname -a
echo "nproc: $(nproc)"
rg --version | sed -n 1p
go version
echo
go run ./bench/search "$@"
