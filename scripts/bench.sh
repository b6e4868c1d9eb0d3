#!/usr/bin/env bash
# make bench: time per training step and peak RSS for the demo MLP and CNN
# (batch 128), the small ResNet (batch 64), Keras's transformer text
# classifier (batch 32, 200 tokens) and an LSTM(64) classifier over 100
# steps (batch 32) on kerasgo's engines and, in the same run, on PyTorch
# (Debian's python3-torch, and PyTorch 2 from build/torch-env when make
# torch-env installed it, eager, under jemalloc and with torch.compile) and
# on Keras 3 itself (its JAX and TensorFlow backends, from build/keras-env
# when make keras-env installed it, and its PyTorch backend from
# build/torch-env), and GoMLX's pure-Go backend for the MLP (bench/gomlx),
# with as many threads as Go uses; prints the ratios to the fastest of
# these references (every row that is not kerasgo) for each model. Then the six networks of Shi et al.'s 2016
# benchmark (internal/models.Seed: FCN-5 and FCN-8 at batch 64, AlexNet and
# ResNet-50 at batch 16, LSTM-32 and LSTM-64 at batch 128, plain SGD), one
# warm-up step and a few timed ones each (-seed-steps, default 2).
#
#   scripts/bench.sh [-steps-mlp N] [-steps-cnn N] [-steps-resnet N] [-steps-transformer N] [-steps-lstm N]
#                    [-seed-steps N] [-models "mlp cnn resnet transformer lstm fcn5 fcn8 alexnet resnet50 lstm32 lstm64"]
#                    [-repeat N] [-full]
#   scripts/bench.sh -report ROWS   # only the ratios and the table, from the result lines of a run
#
# With -repeat N every row runs N times, interleaved (all rows once, then
# again), and the ratios use each row's median: timings on a shared machine
# move by tens of percent between runs. By default the 2016 networks get
# 2 timed steps and no torch.compile or jemalloc rows, so that a run fits
# in 20 minutes on 2 cores; -full adds those rows (torch.compile takes up
# to minutes per network to compile; about 26 minutes in all with
# -seed-steps 3).
set -euo pipefail
cd "$(dirname "$0")/.."
# libgomp (OpenMP in libtorch and PyTorch) spin-waits between parallel
# regions by default. Debian's libtorch 1.13 runs its matrix products on
# OpenBLAS's own threads, which the spinning starves on 2 cores: its rows
# (and every row without OpenMP) get OMP_WAIT_POLICY=PASSIVE. PyPI's 2.9.1
# runs them on OpenMP itself (MKL, oneDNN), and sleeping threads cost it
# a wake-up per op (its LSTM(64) step 9 ms spinning, 55 ms passive): its
# rows, PyTorch 2's and kerasgo's alike, keep libgomp's default unless
# PYPI_OMP_WAIT_POLICY is set. libgomp reads it at load time, so it must
# come from the environment.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
# kerasgo's libtorch engine leaves Go's sysmon thread as it is unless
# asked (issue 39); the benchmarks ask, as docs/benchmarks.md's numbers
# since 2026-11-27 do (KERASGO_SYSMON=batch: sysmon under SCHED_BATCH, a
# few % on the LSTM(64)). KERASGO_SYSMON=keep measures the default.
export KERASGO_SYSMON="${KERASGO_SYSMON:-batch}"
pypi_omp="${PYPI_OMP_WAIT_POLICY:-}"
# pypi runs a command under the PyPI libtorch's wait policy.
pypi() {
  if [ -n "$pypi_omp" ]; then env OMP_WAIT_POLICY="$pypi_omp" "$@"; else env -u OMP_WAIT_POLICY "$@"; fi
}
steps_mlp=30
steps_cnn=8
steps_transformer=10
steps_resnet=15
steps_lstm=50
seed_steps=2
full=""
models="mlp cnn resnet transformer lstm fcn5 fcn8 alexnet resnet50 lstm32 lstm64"
repeat=1
report=""
while [ $# -gt 0 ]; do
  case "$1" in
    -steps-mlp) steps_mlp=$2; shift 2 ;;
    -steps-cnn) steps_cnn=$2; shift 2 ;;
    -steps-transformer) steps_transformer=$2; shift 2 ;;
    -steps-resnet) steps_resnet=$2; shift 2 ;;
    -steps-lstm) steps_lstm=$2; shift 2 ;;
    -seed-steps) seed_steps=$2; shift 2 ;;
    -models) models=$2; shift 2 ;;
    -repeat) repeat=$2; shift 2 ;;
    -full) full=yes; shift ;;
    -report) report=$2; shift 2 ;;
    *) echo "bench: unknown flag $1" >&2; exit 2 ;;
  esac
done
threads=$(go run ./bench/threads 2>/dev/null || nproc)
if [ -n "$report" ]; then
  out=$report
else
py=/usr/bin/python3
# PyTorch 2 from PyPI (make torch-env), when installed: a second reference.
torch_env=build/torch-env/bin/python
[ -x "$torch_env" ] || echo "# PyTorch 2 rows skipped: make torch-env installs it" >&2
jemalloc=$(ls /usr/lib/*-linux-gnu/libjemalloc.so.2 2>/dev/null | head -1 || true)
# torch.compile on the CPU compiles C++: it needs a C++ compiler.
torch_compile=""
if [ -x "$torch_env" ] && [ "${BENCH_TORCH_COMPILE:-1}" != 0 ]; then
  if command -v g++ >/dev/null || command -v c++ >/dev/null; then torch_compile=yes; else echo "# torch.compile rows skipped: they need a C++ compiler (apt-get install g++)" >&2; fi
fi
# Keras 3 itself (make keras-env), on its JAX and TensorFlow backends.
keras_env=build/keras-env/bin/python
[ -x "$keras_env" ] || echo "# Keras 3 rows skipped: make keras-env installs it" >&2
blas=$(readlink -f /etc/alternatives/libblas.so.3-x86_64-linux-gnu 2>/dev/null || echo "unknown")
echo "# $(date -u +%Y-%m-%dT%H:%MZ)  $(nproc) cores, Go threads (GOMAXPROCS) $threads, libblas.so.3 -> $blas, OMP_WAIT_POLICY=$OMP_WAIT_POLICY (PyPI's libtorch: ${pypi_omp:-unset, the libgomp default}), KERASGO_SYSMON=$KERASGO_SYSMON"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go build -o "$out.stepbench" ./bench/stepbench
# The opt-in OpenBLAS build (cgo, -tags openblas, libopenblas-dev).
openblas=""
if CGO_ENABLED=1 go build -tags openblas -o "$out.stepbench-openblas" ./bench/stepbench 2>"$out.openblas-err"; then
  openblas="$out.stepbench-openblas"
else
  # Say why: a missing library, or a build that broke.
  echo "# OpenBLAS row skipped, its build failed: $(grep -v '^#' "$out.openblas-err" | head -1) (it needs libopenblas-dev and a C compiler)" >&2
fi
rm -f "$out.openblas-err"
# The libtorch engine and the raw gotch reference, when libtorch is here.
libtorch=""
if go run ./cmd/kerasgo libtorch >/dev/null 2>&1; then
  lt="-tags=libtorch -modfile=$PWD/build/gotch/go.mod"
  # The raw reference is gotch as released (overlay-unpatched.json: only
  # the build files); kerasgo's build carries its fixes to gotch.
  if go build $lt -overlay="$PWD/build/gotch/overlay.json" -o "$out.stepbench-libtorch" ./bench/stepbench &&
    go build $lt -overlay="$PWD/build/gotch/overlay-unpatched.json" -o "$out.gotchraw" ./bench/gotchraw; then
    libtorch=yes
  fi
else
  echo "# libtorch rows skipped: make libtorch says why" >&2
fi
# kerasgo on the libtorch inside PyPI's PyTorch 2 (make torch-env): the
# same kernels as the PyTorch 2 rows. Its build files go to
# build/gotch-pypi, beside Debian's in build/gotch.
libtorch_pypi=""
torch_dir=$(ls -d "$PWD"/build/torch-env/lib/python3*/site-packages/torch 2>/dev/null | head -1 || true)
if [ -n "$torch_dir" ] && LIBTORCH=$torch_dir go run ./cmd/kerasgo libtorch -out build/gotch-pypi >/dev/null 2>&1 &&
  CGO_ENABLED=1 go build -tags=libtorch -modfile="$PWD/build/gotch-pypi/go.mod" -overlay="$PWD/build/gotch-pypi/overlay.json" -o "$out.stepbench-libtorch-pypi" ./bench/stepbench; then
  libtorch_pypi=yes
elif [ -n "$torch_dir" ]; then
  echo "# kerasgo on PyPI's libtorch skipped: LIBTORCH=$torch_dir go run ./cmd/kerasgo libtorch -out build/gotch-pypi says why" >&2
fi
# GoMLX (github.com/gomlx/gomlx) on its pure-Go backend, with its own API:
# its own module (bench/gomlx), so it is not a kerasgo dependency.
gomlx=""
if (cd bench/gomlx && go build -o "$out.gomlx" .) 2>"$out.gomlx-err"; then
  gomlx=yes
else
  echo "# GoMLX rows skipped, its build failed: $(head -1 "$out.gomlx-err")" >&2
fi
rm -f "$out.gomlx-err"
run() { echo "$1" >&2; "${@:2}" | tee -a "$out"; }
for round in $(seq "$repeat"); do
[ "$repeat" -gt 1 ] && echo "# round $round of $repeat" >&2
for model in $models; do
  steps=$steps_mlp batch=128 warmup=3 seed=""
  case "$model" in
    cnn) steps=$steps_cnn ;;
    resnet) steps=$steps_resnet batch=64 ;;
    transformer) steps=$steps_transformer batch=32 ;;
    lstm) steps=$steps_lstm batch=32 ;;
    fcn5 | fcn8) steps=$seed_steps batch=64 warmup=1 seed=yes ;;
    alexnet | resnet50) steps=$seed_steps batch=16 warmup=1 seed=yes ;;
    lstm32 | lstm64) steps=$seed_steps batch=128 warmup=1 seed=yes ;;
  esac
  run "kerasgo gorgonia $model..." "$out.stepbench" -model "$model" -backend gorgonia -warmup "$warmup" -steps "$steps" -batch "$batch" -label kerasgo-gorgonia
  # OpenBLAS changes the matrix products of the small models only.
  if [ -n "$openblas" ] && [ "$warmup" = 3 ]; then
    run "kerasgo gorgonia+openblas $model..." "$openblas" -model "$model" -backend gorgonia -steps "$steps" -batch "$batch" -label kerasgo-gorgonia+openblas
  fi
  if [ -n "$libtorch" ]; then
    run "kerasgo libtorch $model..." "$out.stepbench-libtorch" -model "$model" -backend libtorch -warmup "$warmup" -steps "$steps" -batch "$batch" -label kerasgo-libtorch
  fi
  if [ -n "$libtorch_pypi" ]; then
    run "kerasgo libtorch (PyPI's) $model..." pypi "$out.stepbench-libtorch-pypi" -model "$model" -backend libtorch -warmup "$warmup" -steps "$steps" -batch "$batch" -label kerasgo-libtorch-pypi
  fi
  if [ -n "$libtorch" ]; then
    # gotch raw has the MLP and CNN only.
    if [ "$model" = mlp ] || [ "$model" = cnn ]; then
      run "gotch raw $model..." "$out.gotchraw" -model "$model" -steps "$steps"
    fi
  fi
  # GoMLX has the demo's MLP and CNN; its pure-Go backend cannot train the
  # CNN yet (it says which gradient it lacks), which the run prints. Its
  # MLP step takes seconds, so 5 timed steps.
  if [ -n "$gomlx" ] && { [ "$model" = mlp ] || [ "$model" = cnn ]; }; then
    run "gomlx (pure Go) $model..." "$out.gomlx" -model "$model" -steps 5 -batch "$batch" ||
      echo "# gomlx $model did not run (above: why)" >&2
  fi
  if "$py" -c 'import torch' 2>/dev/null; then
    run "pytorch $model..." "$py" bench/torch_step.py --model "$model" --threads "$threads" --warmup "$warmup" --steps "$steps" --batch "$batch"
  else
    echo "# PyTorch not found for $py: install python3-torch to compare" >&2
  fi
  if [ -x "$torch_env" ]; then
    run "pytorch 2 $model..." pypi "$torch_env" bench/torch_step.py --model "$model" --threads "$threads" --warmup "$warmup" --steps "$steps" --batch "$batch"
    # The same under jemalloc, which kerasgo's libtorch builds use where it
    # is installed: a row for comparison, not a reference.
    # The extra rows for the 2016 networks only with -full (time).
    extra=yes
    [ -n "$seed" ] && [ -z "$full" ] && extra=""
    if [ -n "$jemalloc" ] && [ -n "$extra" ]; then
      run "pytorch 2 on jemalloc $model..." pypi env LD_PRELOAD="$jemalloc" "$torch_env" bench/torch_step.py --model "$model" --threads "$threads" --warmup "$warmup" --steps "$steps" --batch "$batch" --impl pytorch+jemalloc
    fi
    # torch.compile (TorchInductor, C++ on the CPU): the warm-up steps
    # compile, so it gets at least 3 of them (graphs are traced twice).
    if [ -n "$torch_compile" ] && [ -n "$extra" ]; then
      run "pytorch 2 torch.compile $model..." pypi "$torch_env" bench/torch_step.py --model "$model" --threads "$threads" --warmup 3 --steps "$steps" --batch "$batch" --impl pytorch-compile --compile
    fi
    # Keras 3 on its PyTorch backend, in the same environment.
    if KERAS_BACKEND=torch "$torch_env" -c 'import keras' 2>/dev/null; then
      run "keras on torch $model..." pypi env KERAS_BACKEND=torch "$torch_env" bench/keras_step.py --model "$model" --threads "$threads" --warmup "$warmup" --steps "$steps" --batch "$batch"
    fi
  fi
  if [ -x "$keras_env" ]; then
    for kb in jax tensorflow; do
      run "keras on $kb $model..." env KERAS_BACKEND=$kb TF_CPP_MIN_LOG_LEVEL=2 "$keras_env" bench/keras_step.py --model "$model" --threads "$threads" --warmup "$warmup" --steps "$steps" --batch "$batch"
    done
  fi
done
done
rm -f "$out.stepbench" "$out.stepbench-openblas" "$out.stepbench-libtorch" "$out.stepbench-libtorch-pypi" "$out.gotchraw" "$out.gomlx"
fi
echo
[ "$repeat" -gt 1 ] && echo "# medians of $repeat interleaved runs"
true
echo "# ratios (each row / the fastest reference of the run for the model: every row that is not kerasgo; lower is better)"
awk '
  function median(list,   v, n, i, j, t) {
    n = split(list, v, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  { delete f
    for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
    key = f["impl"] SUBSEP f["model"]
    if (!(key in ms)) { order[++n] = key }
    ms[key] = ms[key] " " f["ms_per_step"]; rss[key] = rss[key] " " f["peak_rss_mb"] }
  END {
    for (i = 1; i <= n; i++) {
      split(order[i], k, SUBSEP); impl[i] = k[1]; mdl[i] = k[2]
      m[i] = median(ms[order[i]]); r[i] = median(rss[order[i]])
      # Every row that is not kerasgo is a reference.
      if (impl[i] !~ /^kerasgo/ && (!(mdl[i] in pt) || m[i] < pt[mdl[i]])) { pt[mdl[i]] = m[i]; prss[mdl[i]] = r[i]; ptname[mdl[i]] = impl[i] }
      if (impl[i] == "gotch-raw") { raw[mdl[i]] = m[i]; rrss[mdl[i]] = r[i] }
      if (impl[i] ~ /^pytorch-2\./) { pt2[mdl[i]] = m[i]; pt2name[mdl[i]] = impl[i] }
      if (impl[i] ~ /^pytorch\+jemalloc-2\./) { pt2j[mdl[i]] = m[i]; pt2jname[mdl[i]] = impl[i] }
      if (impl[i] ~ /^keras-/ && (!(mdl[i] in ks) || m[i] < ks[mdl[i]])) { ks[mdl[i]] = m[i]; ksname[mdl[i]] = impl[i] }
      if (impl[i] ~ /^kerasgo/ && (!(mdl[i] in kg) || m[i] < kg[mdl[i]])) { kg[mdl[i]] = m[i]; kgname[mdl[i]] = impl[i] }
    }
    for (i = 1; i <= n; i++) if (pt[mdl[i]] > 0 && impl[i] != ptname[mdl[i]])
      printf "%-26s %-11s step %8.2f ms vs %8.2f ms = %5.2fx   peak RSS %5d MB vs %5d MB = %5.2fx   (vs %s)\n",
        impl[i], mdl[i], m[i], pt[mdl[i]], m[i] / pt[mdl[i]], r[i], prss[mdl[i]], r[i] / prss[mdl[i]], ptname[mdl[i]]
    for (i = 1; i <= n; i++) if (impl[i] == "kerasgo-libtorch-pypi" && pt2[mdl[i]] > 0) {
      if (!hdr2++) print "\n# kerasgo on the PyPI libtorch / PyTorch 2 eager on the same libtorch (lower is better)"
      printf "%-26s %-11s step %8.2f ms vs %8.2f ms = %5.2fx   (vs %s)", impl[i], mdl[i], m[i], pt2[mdl[i]], m[i] / pt2[mdl[i]], pt2name[mdl[i]]
      if (pt2j[mdl[i]] > 0) printf "; vs %8.2f ms = %5.2fx (%s)", pt2j[mdl[i]], m[i] / pt2j[mdl[i]], pt2jname[mdl[i]]
      printf "\n" }
    for (i = 1; i <= n; i++) if (mdl[i] in ks && mdl[i] in kg && !(mdl[i] in kdone)) {
      kdone[mdl[i]] = 1
      if (!hdr3++) print "\n# the fastest kerasgo engine / the fastest Keras 3 backend (lower is better)"
      printf "%-11s %-26s %8.2f ms vs %-22s %8.2f ms = %5.2fx\n", mdl[i], kgname[mdl[i]], kg[mdl[i]], ksname[mdl[i]], ks[mdl[i]], kg[mdl[i]] / ks[mdl[i]] }
    print "\n# the same as a markdown table (ratio: to the fastest implementation that is not kerasgo, for the network)\n"
    print "| network | implementation | device | ms per step | ratio | peak RSS (MB) |"
    print "| --- | --- | --- | ---: | ---: | ---: |"
    for (i = 1; i <= n; i++)
      printf "| %s | %s | CPU, %s threads | %.1f | %s | %d |\n", mdl[i], impl[i], threads, m[i], (pt[mdl[i]] > 0 ? sprintf("%.2fx", m[i] / pt[mdl[i]]) : "n/a"), r[i]
    for (i = 1; i <= n; i++) if (impl[i] == "kerasgo-libtorch" && raw[mdl[i]] > 0) {
      if (!hdr++) print "\n# kerasgo on libtorch / raw gotch (lower is better)"
      printf "%-26s %-11s step %8.2f ms vs %8.2f ms = %5.2fx   peak RSS %5d MB vs %5d MB = %5.2fx\n",
        impl[i], mdl[i], m[i], raw[mdl[i]], m[i] / raw[mdl[i]], r[i], rrss[mdl[i]], r[i] / rrss[mdl[i]] } }' threads="$threads" "$out"
