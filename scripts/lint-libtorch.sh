#!/usr/bin/env bash
# make lint-libtorch: staticcheck for the files behind the libtorch build tag.
#
# The libtorch build points Go at gotch with an alternate go.mod (-modfile),
# which staticcheck's loader cannot take. So this lints a throwaway copy of
# the tree in vendor mode, where the overlay alone patches gotch (the way
# scripts/gpu-check.sh builds on a machine without network).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! go run ./cmd/kerasgo libtorch -check >/dev/null 2>&1; then
  echo "lint-libtorch: no libtorch on this machine (make libtorch says why); skipped" >&2
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
GOBIN="$tmp/bin" go install "${STATICCHECK:-honnef.co/go/tools/cmd/staticcheck@v0.7.0}"
git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$tmp"
cd "$tmp"
go mod vendor
go run ./cmd/kerasgo libtorch -gotch vendor/github.com/sugarme/gotch >/dev/null
GOFLAGS="-mod=vendor -overlay=$tmp/build/gotch/overlay.json" "$tmp/bin/staticcheck" -tags libtorch ./...
echo "lint-libtorch: staticcheck clean with -tags libtorch"
