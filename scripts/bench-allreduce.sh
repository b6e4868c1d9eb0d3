#!/usr/bin/env bash
# make bench-allreduce: allreduce time for float32 buffers across 2 local
# processes, kerasgo's path (keras/distribution over c10d's Gloo, from Go)
# against torch.distributed's ProcessGroupGloo in Python (Debian's
# python3-torch) with the same backend, in the same run; then the time the
# allreduce adds to a data-parallel MLP step. Needs libtorch and
# libgloo-dev.
#
# Then, where it runs as root with iproute2, the same across two test
# machines (network namespaces joined through a bridge by veth pairs, as
# the several-machine tests build them; bench/machines), one process on
# each, against two processes on one machine, in the same run.
#
#   scripts/bench-allreduce.sh [-sizes 1,16,64] [-iters 20] [-repeat 3] [-procs 2]
#
# With -repeat N the Go and Python runs alternate N times and the ratios
# use each side's median; so do the one-machine and two-machine runs.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=1,16,64
iters=20
repeat=3
procs=2
while [ $# -gt 0 ]; do
  case "$1" in
    -sizes) sizes=$2; shift 2 ;;
    -iters) iters=$2; shift 2 ;;
    -repeat) repeat=$2; shift 2 ;;
    -procs) procs=$2; shift 2 ;;
    *) echo "bench-allreduce: unknown flag $1" >&2; exit 2 ;;
  esac
done
go build -o build/kerasgo ./cmd/kerasgo
if ! build/kerasgo libtorch -check-distributed; then
  echo "bench-allreduce: needs libtorch and Gloo's headers: sudo apt-get install libtorch-dev libgloo-dev python3-torch" >&2
  exit 1
fi
flags=$(build/kerasgo libtorch -flags 2>/dev/null)
# shellcheck disable=SC2086
go build $flags -o build/allreduce ./bench/allreduce
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
for i in $(seq "$repeat"); do
  build/kerasgo launch -n "$procs" build/allreduce -sizes "$sizes" -iters "$iters" -mlp-steps 0 >>"$tmp/go.txt"
  port=$(free_port)
  for r in $(seq 0 $((procs - 1))); do
    /usr/bin/python3 bench/allreduce/allreduce.py 127.0.0.1 "$port" "$r" "$procs" "$sizes" "$iters" >>"$tmp/py-$r.txt" &
  done
  wait
done
echo "allreduce of float32 buffers, $procs processes on this machine, Gloo, median ms of $repeat runs (each a median of $iters):"
/usr/bin/python3 - "$tmp/go.txt" "$tmp/py-0.txt" <<'PY'
import re, statistics, sys
def read(path):
    out = {}
    for line in open(path):
        m = re.match(r"allreduce (\d+) MB: ([\d.]+) ms", line)
        if m:
            out.setdefault(int(m.group(1)), []).append(float(m.group(2)))
    return out
go, py = read(sys.argv[1]), read(sys.argv[2])
print(f"{'size':>8} {'kerasgo (Go)':>14} {'torch.distributed':>18} {'ratio':>7}  {'bandwidth':>10}")
for mb in sorted(go):
    g, p = statistics.median(go[mb]), statistics.median(py[mb])
    # ring allreduce moves 2(N-1)/N of the buffer through each link
    print(f"{mb:>5} MB {g:>11.2f} ms {p:>15.2f} ms {g/p:>7.3f}  {mb/ (g/1000):>7.0f} MB/s")
PY
echo
echo "the allreduce in a data-parallel MLP step (784-512-512-10, batch 128 per process):"
build/kerasgo launch -n "$procs" build/allreduce -sizes 1 -iters 3 -mlp-steps 30 | grep "mlp step"
KERASGO_BACKEND=libtorch build/kerasgo launch -n "$procs" build/allreduce -sizes 1 -iters 3 -mlp-steps 30 | sed 's/^mlp step/mlp step (libtorch)/' | grep "mlp step"

echo
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
  echo "across machines: SKIPPED (it builds network namespaces: run as root with iproute2)"
  exit 0
fi
go build -o build/machines ./bench/machines
# The two test machines share this machine's cores: give each process
# the share kerasgo launch gives 2 processes on one machine.
threads=$(( $(nproc) / 2 > 0 ? $(nproc) / 2 : 1 ))
for i in $(seq "$repeat"); do
  build/kerasgo launch -n 2 build/allreduce -sizes "$sizes" -iters "$iters" -mlp-steps 30 >>"$tmp/one.txt"
  OMP_NUM_THREADS=$threads build/machines -n 2 -procs 1 -- build/allreduce -sizes "$sizes" -iters "$iters" -mlp-steps 30 >>"$tmp/two.txt"
  KERASGO_BACKEND=libtorch build/kerasgo launch -n 2 build/allreduce -sizes 1 -iters 3 -mlp-steps 30 >>"$tmp/one-lt.txt"
  OMP_NUM_THREADS=$threads KERASGO_BACKEND=libtorch build/machines -n 2 -procs 1 -- build/allreduce -sizes 1 -iters 3 -mlp-steps 30 >>"$tmp/two-lt.txt"
done
echo "2 processes: on one machine (loopback) against one on each of 2 machines (veth pairs through a bridge), kerasgo, median of $repeat runs:"
/usr/bin/python3 - "$tmp" <<'PY'
import re, statistics, sys
d = sys.argv[1]
def read(path):
    ar, step = {}, {"dp": [], "alone": []}
    for line in open(path):
        m = re.match(r"allreduce (\d+) MB: ([\d.]+) ms", line)
        if m:
            ar.setdefault(int(m.group(1)), []).append(float(m.group(2)))
        m = re.match(r"mlp step: ([\d.]+) ms data parallel, ([\d.]+) ms alone", line)
        if m:
            step["dp"].append(float(m.group(1)))
            step["alone"].append(float(m.group(2)))
    return ar, step
one, two = read(d + "/one.txt"), read(d + "/two.txt")
print(f"{'size':>8} {'one machine':>12} {'two machines':>13} {'ratio':>7}  {'bandwidth (2)':>14}")
for mb in sorted(one[0]):
    a, b = statistics.median(one[0][mb]), statistics.median(two[0][mb])
    print(f"{mb:>5} MB {a:>9.2f} ms {b:>10.2f} ms {b/a:>7.3f}  {mb/(b/1000):>9.0f} MB/s")
print("MLP step (784-512-512-10: 669,706 float32 gradients, 2,678,824 bytes allreduced per step), batch 128 per process:")
for name, o, t in (("Gorgonia", one, two), ("libtorch", read(d + "/one-lt.txt"), read(d + "/two-lt.txt"))):
    a, b = statistics.median(o[1]["dp"]), statistics.median(t[1]["dp"])
    a1, b1 = statistics.median(o[1]["alone"]), statistics.median(t[1]["alone"])
    print(f"  {name}: data parallel {a:.2f} ms on one machine, {b:.2f} ms on two ({b/a:.3f}); alone {a1:.2f} and {b1:.2f} ms")
PY
