#!/usr/bin/env bash
# need-space.sh GB DIR WHAT: stop with a clear message, before a long install
# or run, when the file system holding DIR has less than GB gigabytes free.
# PyPI's CUDA torch wheel (make torch-env) unpacks to about 7 GB and pip
# stages it in TMPDIR as well; a disk that fills half way through leaves a
# broken environment and, in CI, a failure after most of its 90 minutes.
set -euo pipefail
need=$1 dir=$2 what=$3
mkdir -p "$dir"
free=$(df -Pk "$dir" | awk 'NR==2 {print int($4 / 1048576)}')
if [ "$free" -lt "$need" ]; then
  echo "need-space: $what needs about $need GB free on the disk holding $dir; it has $free GB." >&2
  echo "need-space: free some space (old clones, build/ environments, go clean -cache) and run it again." >&2
  exit 1
fi
