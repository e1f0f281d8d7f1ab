#!/usr/bin/env bash
# Compare toolscope's Grep/Glob with raw ripgrep. Usage: bench/search.sh [-root DIR] [-n N]
set -euo pipefail
cd "$(dirname "$0")/.."
uname -a
echo "nproc: $(nproc)"
rg --version | sed -n 1p
go version
echo
go run ./bench/search "$@"
