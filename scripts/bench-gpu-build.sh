#!/usr/bin/env bash
# bench-gpu-build.sh: builds, on this machine (Go, no GPU), what
# scripts/bench-gpu.sh runs on a GPU machine that has PyTorch but no Go:
# kerasgo's stepbench and the libtorch engine's and c10d's test binaries,
# linked against the libtorch inside PyPI's torch of the GPU machine's
# version (its C++ ABI must match: the binaries load that machine's
# libtorch at run time), libjemalloc, which those builds link, and the
# wheels of Keras 3 that machine lacks.
#
#   scripts/bench-gpu-build.sh [GPU_DIR]      # default gpu/
#
# TORCH_GPU_VERSION (default 2.11.0, the CUDA 13.0 build PyPI serves) is the
# torch to build against, installed with the NVIDIA headers c10d's NCCL
# process group needs into TORCH_GPU_ENV (default build/torch-gpu-env);
# its build files go to GOTCH_GPU (default build/gotch-gpu).
set -euo pipefail
cd "$(dirname "$0")/.."
gpu=${1:-gpu}
version=${TORCH_GPU_VERSION:-2.11.0}
env_dir=${TORCH_GPU_ENV:-build/torch-gpu-env}
gotch_dir=${GOTCH_GPU:-build/gotch-gpu}
if ! "$env_dir/bin/python" -c "import torch; assert torch.__version__.startswith('$version')" 2>/dev/null; then
  python3 -m venv "$env_dir"
  # The CUDA compiler's and CCCL's headers come with cuda-toolkit's nvcc
  # and cccl extras, at the toolkit version torch pins.
  "$env_dir/bin/pip" install -q --disable-pip-version-check "torch==$version"
  toolkit=$("$env_dir/bin/pip" show cuda-toolkit 2>/dev/null | sed -n 's/^Version: //p')
  "$env_dir/bin/pip" install -q --disable-pip-version-check "cuda-toolkit[nvcc,cccl]==$toolkit"
fi
torch_dir=$(ls -d "$PWD/$env_dir"/lib/python3*/site-packages/torch | head -1)
go build -o build/kerasgo ./cmd/kerasgo
LIBTORCH=$torch_dir build/kerasgo libtorch -out "$gotch_dir"
flags=(-tags=libtorch -modfile="$PWD/$gotch_dir/go.mod" -overlay="$PWD/$gotch_dir/overlay.json" -ldflags=-s\ -w)
mkdir -p "$gpu/lib" "$gpu/whl"
echo "building (the first build compiles gotch's C++ wrappers: minutes)..."
CGO_ENABLED=1 go build "${flags[@]}" -o "$gpu/stepbench" ./bench/stepbench
CGO_ENABLED=1 go test "${flags[@]}" -c -o "$gpu/" ./backends/libtorch ./keras/distribution/c10d
jemalloc=$(sed -n 's/.*"Jemalloc": "\(.*\)".*/\1/p' "$gotch_dir/libtorch.json" | head -1)
if [ -n "$jemalloc" ]; then cp -L "$jemalloc" "$gpu/lib/"; fi
for p in keras==3.15.1 namex==0.1.0 optree==0.20.0; do
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
    -d "$gpu/whl" "$p"
done
du -sh "$gpu"
