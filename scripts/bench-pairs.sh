#!/usr/bin/env bash
# make bench-pairs: kerasgo on the libtorch inside PyPI's PyTorch 2 against
# PyTorch 2 eager on that same libtorch, for one model, each in its own
# long-lived process, timed in alternating chunks of steps (bench/pairs.py):
# the same batch and model as make bench.
#
#   scripts/bench-pairs.sh [-model lstm] [-rounds 30] [-steps N]
#
# make bench starts a new process per row; on a shared 2-core machine one
# minute's step time differs from the next's by up to 40%, in both
# implementations, so a ratio near 1 cannot be told from 1.05 that way.
# Here both processes stay up and only one runs at a time, in chunks of
# -steps steps (by default as many as make bench times), the order
# alternating each round; it prints every round,
# the median of the rounds' ratios with a 90% bootstrap interval, and the
# ratio of the medians.
#
# It needs PyTorch 2 from PyPI (make torch-env).
set -euo pipefail
cd "$(dirname "$0")/.."
model=lstm rounds=30 steps=""
while [ $# -gt 0 ]; do
  case "$1" in
    -model) model=$2; shift 2 ;;
    -rounds) rounds=$2; shift 2 ;;
    -steps) steps=$2; shift 2 ;;
    *) echo "bench-pairs: unknown flag $1" >&2; exit 2 ;;
  esac
done
case "$model" in
  mlp) batch=128 default_steps=30 ;;
  cnn) batch=128 default_steps=8 ;;
  resnet) batch=64 default_steps=15 ;;
  transformer) batch=32 default_steps=10 ;;
  lstm) batch=32 default_steps=50 ;;
  *) echo "bench-pairs: -model must be mlp, cnn, resnet, transformer or lstm (the 2016 networks take seconds a step: make bench)" >&2; exit 2 ;;
esac
steps=${steps:-$default_steps}
torch_env=build/torch-env/bin/python
if [ ! -x "$torch_env" ]; then
  echo "bench-pairs: needs PyTorch 2 from PyPI: make torch-env" >&2
  exit 1
fi
# kerasgo's libtorch engine leaves Go's sysmon thread as it is unless
# asked (issue 39); the benchmarks ask, as docs/benchmarks.md's numbers
# since 2026-11-27 do (KERASGO_SYSMON=batch: sysmon under SCHED_BATCH, a
# few % on the LSTM(64)). KERASGO_SYSMON=keep measures the default.
export KERASGO_SYSMON="${KERASGO_SYSMON:-batch}"
torch_dir=$(ls -d "$PWD"/build/torch-env/lib/python3*/site-packages/torch | head -1)
out=$(mktemp)
trap 'rm -f "$out" "$out.stepbench"' EXIT
LIBTORCH=$torch_dir go run ./cmd/kerasgo libtorch -out build/gotch-pypi >/dev/null
CGO_ENABLED=1 go build -tags=libtorch -modfile="$PWD/build/gotch-pypi/go.mod" \
  -overlay="$PWD/build/gotch-pypi/overlay.json" -o "$out.stepbench" ./bench/stepbench
threads=$(go run ./bench/threads 2>/dev/null || nproc)
# PyPI's libtorch keeps libgomp's default wait policy, as in make bench
# (see the OpenMP section of docs/benchmarks.md).
echo "# $(date -u +%Y-%m-%dT%H:%MZ)  $(nproc) cores, $threads threads; $model, batch $batch, chunks of $steps steps after 3 warm-up steps; KERASGO_SYSMON=$KERASGO_SYSMON"
env -u OMP_WAIT_POLICY python3 bench/pairs.py --rounds "$rounds" \
  --a kerasgo -- "$out.stepbench" -serve -model "$model" -backend libtorch -batch "$batch" -warmup 3 -steps "$steps" \
  --b pytorch -- "$torch_env" bench/torch_step.py --serve --model "$model" --threads "$threads" --batch "$batch" --warmup 3 --steps "$steps"
