#!/usr/bin/env bash
# bench-before-after.sh REV [MODEL...]: did a change make a training step
# slower? Builds bench/stepbench at REV (a git revision) and from the
# working tree, then times the two side by side with bench/pairs.py: each
# build in its own long-lived process, chunks alternating, so both see the
# same minutes of a shared machine. Prints, per model, the median of the
# rounds' ratios (working tree / REV) with a 90% bootstrap interval.
#
#   scripts/bench-before-after.sh ad520ca mlp cnn lstm
#
# Environment: BACKEND (default gorgonia; libtorch needs make libtorch and
# a REV whose libtorch build takes the same build/gotch files), ROUNDS
# (default 12), STEPS (timed steps per chunk, default 20), BATCH (default 128).
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: scripts/bench-before-after.sh REV [MODEL...]}
shift
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(mlp cnn lstm transformer resnet)
backend=${BACKEND:-gorgonia}
rounds=${ROUNDS:-12}
steps=${STEPS:-20}
batch=${BATCH:-128}
python=${PYTHON:-python3}

tags=()
if [ "$backend" = libtorch ]; then
	[ -f build/gotch/go.mod ] || { echo "bench-before-after: BACKEND=libtorch needs make libtorch first" >&2; exit 1; }
	tags=(-tags=libtorch -modfile="$PWD/build/gotch/go.mod" -overlay="$PWD/build/gotch/overlay.json")
fi

old=build/before-after/$rev
rm -rf "$old"
mkdir -p build/before-after
git worktree add --detach -f "$old/src" "$rev" >/dev/null
trap 'git worktree remove --force "$old/src" >/dev/null 2>&1 || true' EXIT
(cd "$old/src" && go build "${tags[@]}" -o "../stepbench" ./bench/stepbench)
go build "${tags[@]}" -o build/before-after/stepbench-worktree ./bench/stepbench

echo "# $backend, batch $batch, $steps steps per chunk, $rounds rounds: working tree ($(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes')) / $rev"
for m in "${models[@]}"; do
	echo "## $m"
	"$python" bench/pairs.py --rounds "$rounds" \
		--a now -- build/before-after/stepbench-worktree -serve -model "$m" -backend "$backend" -batch "$batch" -steps "$steps" \
		--b "$rev" -- "$old/stepbench" -serve -model "$m" -backend "$backend" -batch "$batch" -steps "$steps" | tail -2
done
