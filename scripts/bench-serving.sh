#!/usr/bin/env bash
# make bench-serving: kerasgo serve under load, with and without dynamic
# batching, beside a Python Keras server (Keras 3 on JAX behind FastAPI,
# scripts/keras-server.py, from make serving-env) on the same machine in
# the same run. A Go load generator (bench/loadgen) keeps C connections
# busy on 127.0.0.1 (C = 1, 16, 64), each posting one 28x28x1 image in
# TensorFlow Serving's row format, and reports requests per second,
# p50/p99 latency, errors and the server's resident memory. The demo CNN
# with batching at 64 connections runs for -soak seconds (60 by default),
# to show that memory stays flat under load.
#
#   scripts/bench-serving.sh [-duration 10] [-soak 60] [-models "mlp cnn fashion"]
#
# fashion is a CNN written by Keras itself (../shared/keras-fixtures);
# it is left out when the fixtures are not there. Without
# build/serving-env the Python rows are left out, with a note.
set -euo pipefail
cd "$(dirname "$0")/.."
duration=10
soak=60
models="mlp cnn fashion"
while [ $# -gt 0 ]; do
  case "$1" in
    -duration) duration=$2; shift 2 ;;
    -soak) soak=$2; shift 2 ;;
    -models) models=$2; shift 2 ;;
    *) echo "bench-serving: unknown flag $1" >&2; exit 2 ;;
  esac
done
dir=build/bench-serving
mkdir -p "$dir"
go build -o build/kerasgo ./cmd/kerasgo
go build -o build/loadgen ./bench/loadgen
go run ./bench/servemodels -out "$dir"
fixture=../shared/keras-fixtures/Aman-21k__cnn-fashion-mnist-classifier.keras
if [ -f "$fixture" ]; then cp "$fixture" "$dir/fashion.keras"; else models=${models//fashion/}; echo "note: no $fixture: the Keras-written model is left out" >&2; fi
py=build/serving-env/bin/python
servers="kerasgo kerasgo-no-batching keras"
if [ ! -x "$py" ]; then servers="kerasgo kerasgo-no-batching"; echo "note: no build/serving-env (make serving-env): the Python Keras server is left out" >&2; fi
port=8611
results=$(mktemp)
trap 'rm -f "$results"; [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null || true' EXIT
echo "# $(date -u +%Y-%m-%dT%H:%MZ)  $(nproc) cores, $(go version | cut -d' ' -f3), load generator on the same machine"
for model in $models; do
  for server in $servers; do
    case $server in
      kerasgo) build/kerasgo serve -addr 127.0.0.1:$port -reload-interval -1s "$model=$dir/$model.keras" 2>/dev/null & pid=$! ;;
      kerasgo-no-batching) build/kerasgo serve -addr 127.0.0.1:$port -no-batching -reload-interval -1s "$model=$dir/$model.keras" 2>/dev/null & pid=$! ;;
      keras) "$py" scripts/keras-server.py --port $port "$model=$dir/$model.keras" >/dev/null 2>&1 & pid=$! ;;
    esac
    for i in $(seq 120); do  # wait until it answers (Keras's start takes seconds)
      curl -s -o /dev/null -X POST "http://127.0.0.1:$port/v1/models/$model:predict" --data-binary @"$dir/image.json" && break
      sleep 0.5
    done
    for c in 1 16 64; do
      d=$duration
      if [ "$model $server $c" = "cnn kerasgo 64" ]; then d=$soak; fi
      build/loadgen -url "http://127.0.0.1:$port/v1/models/$model:predict" -body "$dir/image.json" \
        -c $c -duration "${d}s" -warmup 3s -pid $pid -label "$model $server" | tee -a "$results" >&2
    done
    kill $pid; wait $pid 2>/dev/null || true; pid=
    port=$((port + 1))
  done
done
python3 - "$results" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
by = {(r["label"], r["conns"]): r for r in rows}
print("| model | server | connections | requests/s | p50 ms | p99 ms | errors | RSS MB (start, end of measure; peak) |")
print("|---|---|---:|---:|---:|---:|---:|---|")
for r in rows:
    model, server = r["label"].split(" ", 1)
    print(f'| {model} | {server} | {r["conns"]} | {r["rps"]:.0f} | {r["p50_ms"]:.1f} | {r["p99_ms"]:.1f} | {r["errors"]} | {r["rss_start_mb"]:.0f}, {r["rss_end_mb"]:.0f}; {r["rss_peak_mb"]:.0f} |')
print()
for model in sorted({r["label"].split(" ", 1)[0] for r in rows}):
    b, n, k = by.get((model + " kerasgo", 64)), by.get((model + " kerasgo-no-batching", 64)), by.get((model + " keras", 64))
    if b and n:
        print(f"- {model}, 64 connections: dynamic batching {b['rps'] / n['rps']:.2f}x the requests/s without it")
    for c in (1, 16, 64):
        b, k = by.get((model + " kerasgo", c)), by.get((model + " keras", c))
        if b and k:
            print(f"- {model}, {c} connections: kerasgo {b['rps'] / k['rps']:.2f}x Keras's requests/s, p99 {b['p99_ms']:.1f} ms against {k['p99_ms']:.1f} ms")
PY
