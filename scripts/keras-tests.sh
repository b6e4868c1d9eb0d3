#!/usr/bin/env bash
# Prints the packages of make test-keras: those whose tests use
# internal/kerasref, the checks against Python Keras that make test skips.
# make test-keras runs these packages' tests whole (their other tests,
# which make test already ran, take a few minutes of the run).
set -euo pipefail
cd "$(dirname "$0")/.."
grep -rl --include='*_test.go' 'kerasgo/internal/kerasref"' . | grep -v '^./internal/kerasref/' |
  xargs -n1 dirname | sort -u | sed 's|$|/|' | paste -sd' '
