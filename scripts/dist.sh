#!/usr/bin/env bash
# make dist: static toolscope binaries for linux and darwin on amd64 and
# arm64 in dist/, stamped with the version (git describe), the commit and
# the build time (toolscope version prints them), with their SHA-256
# checksums in dist/checksums.txt and shell completions in
# dist/completions/. Usage: scripts/dist.sh [VERSION]
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:-$(git describe --tags --always --dirty 2>/dev/null || echo devel)}
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
pkg=github.com/toolscope/toolscope/internal/cli
ldflags="-s -w -X $pkg.buildVersion=$version -X $pkg.buildCommit=$commit -X $pkg.buildDate=$date"
rm -rf dist
mkdir -p dist/completions
for os in linux darwin; do
  for arch in amd64 arm64; do
    out=dist/toolscope_${version}_${os}_${arch}
    CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$ldflags" -o "$out" ./cmd/toolscope
    echo "$out"
  done
done
host=dist/toolscope_${version}_$(go env GOOS)_$(go env GOARCH)
for sh in bash zsh fish; do "$host" completion "$sh" >"dist/completions/toolscope.$sh"; done
(cd dist && sha256sum toolscope_* completions/* >checksums.txt)
echo "dist/checksums.txt"
"$host" version
