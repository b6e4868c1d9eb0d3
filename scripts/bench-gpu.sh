#!/usr/bin/env bash
# bench-gpu.sh: the GPU checks of issue 20, for a machine with an NVIDIA
# GPU, PyTorch 2 (python3), JAX with CUDA and no Go: it runs binaries
# built elsewhere against the same libtorch (scripts/bench-gpu-build.sh
# builds them into gpu/ against PyPI's torch of the GPU machine's
# version) and writes its logs and result lines to OUT.
#
#   scripts/bench-gpu.sh GPU_DIR OUT_DIR [DEADLINE_SECONDS]
#
# In order, each under a time limit, skipping what would end after the
# deadline (default 540 s):
#   1. c10d: NCCL compiled in, the NCCL path with one process on the GPU,
#      Gloo collectives, a Go rank with a Python rank (this python3's torch);
#   2. the libtorch engine's conformance suite on libtorch:cuda;
#   3. the training-step table: for each network kerasgo on libtorch:cuda,
#      PyTorch 2 eager on CUDA, Keras 3 on JAX and on PyTorch (GPU), one
#      process each, warm-up then timed steps.
set -uo pipefail
gpu=$(cd "$1" && pwd)
out=$2
deadline=${3:-540}
mkdir -p "$out"
cd "$(dirname "$0")/.."
torch_lib=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
export LD_LIBRARY_PATH="$torch_lib:$gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Keras 3 and what it needs beyond the machine's packages, from wheels.
if ls "$gpu"/whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/kg-site "$gpu"/whl/*.whl &&
    export PYTHONPATH=/tmp/kg-site${PYTHONPATH:+:$PYTHONPATH}
fi
results="$out/results.txt"
{
  date -u +%Y-%m-%dT%H:%MZ
  nvidia-smi -L
  nvidia-smi --query-gpu=driver_version,memory.total --format=csv,noheader
  nproc
  python3 -c 'import torch, sys; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name())'
  python3 -c 'import jax; print("jax", jax.__version__, jax.devices())' 2>&1 | tail -1
  python3 -c 'import keras; print("keras", keras.__version__)' 2>&1 | tail -1
} | tee "$out/machine.txt"

# left reports whether a step of at most $1 seconds still ends before the
# deadline.
left() { [ $((SECONDS + $1)) -le "$deadline" ]; }

# 1. c10d.
if left 120; then
  (cd keras/distribution/c10d && KERASGO_EXPECT_NCCL=1 C10D_PYTHON=$(command -v python3) timeout 110 "$gpu/c10d.test" -test.v -test.run 'TestNCCLCompiled|TestNCCLOneProcess|TestCollectives|TestPythonJoins') >"$out/c10d.log" 2>&1
  echo "c10d tests: exit $? ($(grep -c '^--- PASS' "$out/c10d.log") passed, $(grep -c '^--- FAIL' "$out/c10d.log") failed, $(grep -c '^--- SKIP' "$out/c10d.log") skipped)"
  grep -E '^(--- |    c10d_test.go)' "$out/c10d.log" | head -20
fi

# 2. The engine's conformance suite on the GPU.
if left 70; then
  (cd backends/libtorch && timeout 60 "$gpu/libtorch.test" -test.run 'TestConformanceCUDA|TestDevices' -test.v) >"$out/conformance-cuda.log" 2>&1
  echo "conformance on libtorch:cuda: exit $? ($(grep -c -- '--- PASS' "$out/conformance-cuda.log") passed, $(grep -c -- '--- FAIL' "$out/conformance-cuda.log") failed, $(grep -c -- '--- SKIP' "$out/conformance-cuda.log") skipped)"
  grep -- '--- FAIL' "$out/conformance-cuda.log" | head -20
fi

# 3. The table.
row() { # row LIMIT CMD...: one result line, or why not
  local limit=$1
  shift
  if ! left "$limit"; then
    echo "# skipped (deadline): $*" | tee -a "$out/skipped.txt"
    return
  fi
  local log
  log=$(timeout "$limit" "$@" 2>&1)
  local rc=$?
  if echo "$log" | grep -q '^impl='; then
    echo "$log" | grep '^impl=' | tail -1 | tee -a "$results"
  else
    echo "# failed (exit $rc): $*" | tee -a "$out/failed.txt"
    echo "$log" | tail -5 | tee -a "$out/failed.txt"
  fi
}
for model in ${BENCH_GPU_MODELS:-mlp cnn resnet transformer lstm fcn5 fcn8 alexnet resnet50 lstm32 lstm64}; do
  batch=128 warmup=5 steps=${BENCH_GPU_STEPS:-20}
  case "$model" in
    resnet) batch=64 ;;
    transformer | lstm) batch=32 ;;
    fcn5 | fcn8) batch=64 ;;
    alexnet | resnet50) batch=16 ;;
  esac
  row 60 "$gpu/stepbench" -model "$model" -backend libtorch:cuda -batch "$batch" -warmup "$warmup" -steps "$steps" -label kerasgo-libtorch-cuda
  row 60 python3 bench/torch_step.py --model "$model" --device cuda --batch "$batch" --warmup "$warmup" --steps "$steps"
  # BENCH_GPU_KERAS_MODELS, when set, names the networks that get Keras
  # rows (a rerun of the others' kerasgo and PyTorch rows is quicker).
  if [ -n "${BENCH_GPU_KERAS_MODELS+set}" ] && [[ " $BENCH_GPU_KERAS_MODELS " != *" $model "* ]]; then
    continue
  fi
  row 90 env KERAS_BACKEND=jax TF_CPP_MIN_LOG_LEVEL=2 XLA_PYTHON_CLIENT_PREALLOCATE=false python3 bench/keras_step.py --model "$model" --batch "$batch" --warmup "$warmup" --steps "$steps"
  row 60 env KERAS_BACKEND=torch python3 bench/keras_step.py --model "$model" --batch "$batch" --warmup "$warmup" --steps "$steps"
done

echo "# done at ${SECONDS}s"
cat "$results"
