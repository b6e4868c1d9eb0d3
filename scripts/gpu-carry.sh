#!/usr/bin/env bash
# Prepares .carry/ (ignored by git) for scripts/gpu-check.sh on a machine
# that has a GPU, CUDA and PyTorch but no Go and no network:
#   .carry/go.tar.xz   this Go toolchain without tests, docs and testdata
#   .carry/vendor/     every module the build needs (go mod vendor)
# With the device tool, pass carry [".carry"]; the whole working tree that
# travels must stay under 64 MiB, so data sets go in a later call.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .carry
goroot=$(go env GOROOT)
echo "packing $(go version) from $goroot" >&2
tar -C "$(dirname "$goroot")" -cJf .carry/go.tar.xz \
  --exclude="$(basename "$goroot")/test" --exclude="$(basename "$goroot")/doc" \
  --exclude="$(basename "$goroot")/api" --exclude="$(basename "$goroot")/misc" \
  --exclude='testdata' --exclude='*_test.go' \
  "$(basename "$goroot")"
rm -rf .carry/vendor
go mod vendor -o .carry/vendor
du -sh .carry/go.tar.xz .carry/vendor .carry
