#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and a libtorch with CUDA (for example the
# one inside a pip-installed PyTorch): build kerasgo's libtorch engine
# against it, run the conformance suite and the layer, loss, metric and
# optimizer tests on libtorch:cuda, the cross-engine test (Gorgonia, libtorch
# CPU and CUDA), and the step benchmarks on the GPU beside PyTorch eager.
# Results go to $OUT (default gpu-results/).
#
# Without Go or network there, run scripts/gpu-carry.sh here first and carry
# .carry/ along. Usage: scripts/gpu-check.sh [steps-mlp steps-cnn]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-results}
mkdir -p "$out"
log() { echo "== $*" | tee -a "$out/summary.txt"; }
if ! command -v go >/dev/null; then
  [ -f .carry/go.tar.xz ] || { echo "no Go here and no .carry/go.tar.xz: run scripts/gpu-carry.sh first" >&2; exit 2; }
  [ -x /tmp/go/bin/go ] || tar -xJf .carry/go.tar.xz -C /tmp
  export PATH=/tmp/go/bin:$PATH
fi
export GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=vendor
if [ ! -d vendor ] && [ -d .carry/vendor ]; then cp -r .carry/vendor vendor; fi
log "$(go version); $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi')"
go run ./cmd/kerasgo libtorch -gotch vendor/github.com/sugarme/gotch 2>&1 | tee "$out/libtorch-setup.txt" || exit 1
flags="-tags=libtorch -overlay=$PWD/build/gotch/overlay.json"
go run $flags ./cmd/kerasgo doctor 2>&1 | tee "$out/doctor.txt"
export OMP_WAIT_POLICY=PASSIVE
log "conformance and layer/loss/metric/optimizer tests on libtorch:cuda"
KERASGO_TEST_BACKENDS=libtorch:cuda go test $flags -count=1 ./backends/libtorch/ ./keras/... 2>&1 | tee "$out/tests-cuda.txt" | tail -12
log "cross-engine: gorgonia, libtorch:cpu, libtorch:cuda"
KERASGO_TEST_BACKENDS=gorgonia,libtorch:cpu,libtorch:cuda go test $flags -count=1 -run CrossEngine -v ./keras/ 2>&1 | tee "$out/cross-engine.txt" | tail -4
log "step benchmarks on the GPU (batch 128)"
go build $flags -o /tmp/stepbench ./bench/stepbench
for model in mlp cnn; do
  steps=${1:-200}; [ "$model" = cnn ] && steps=${2:-200}
  /tmp/stepbench -model "$model" -backend libtorch:cuda -steps "$steps" -label kerasgo-libtorch-cuda | tee -a "$out/bench.txt"
  python3 bench/torch_step.py --model "$model" --steps "$steps" --device cuda | tee -a "$out/bench.txt"
done
log "done: see $out/"
