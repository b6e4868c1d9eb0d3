#!/usr/bin/env bash
# bench-compare.sh REV [ROUNDS]: time a training step of the demo MLP, the
# convnet, the small ResNet (bench/bench_test.go, batch 128) and the LSTM
# and GRU classifiers (bench/recurrent_test.go) at commit
# REV and at the working tree, interleaved in one run (REV, then the tree,
# each round, on each engine), and print each model's median per engine
# and the ratio tree/REV. The machine is shared and noisy: read ratios
# within ±15% as equal, and rerun when a row's rounds spread widely.
#
#   scripts/bench-compare.sh ad520ca 5
#
# libtorch rows need `make libtorch` (build/gotch); without it only the
# pure-Go engine runs.
#
# PAIRS=1 measures instead with bench/pairs.py: bench/stepbench built at
# REV and at the tree, each in one long-lived process, chunks of 20 steps
# alternating (ROUNDS rounds, at least 3; 12 is a good number), so both
# see the same minutes of the machine; it prints, per engine and model
# (MODELS, default "mlp cnn lstm transformer resnet"), the median of the
# rounds' ratios tree/REV with a 90% bootstrap interval. RESTARTS=N
# starts both processes afresh N times (pairs.py --restarts): a process
# can be several percent faster or slower than another of the same
# binary for its whole life, so one pair alone gives too narrow an
# interval; 8 restarts of 4 rounds each are a good number.
#
#   PAIRS=1 scripts/bench-compare.sh ad520ca 12
#   PAIRS=1 RESTARTS=8 scripts/bench-compare.sh ad520ca 32
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: scripts/bench-compare.sh REV [ROUNDS]}
rounds=${2:-5}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/before" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --detach "$tmp/before" "$rev" >/dev/null
engines=gorgonia
if [ "${PAIRS:-}" = 1 ]; then
	[ -f build/gotch/overlay.json ] && engines="gorgonia libtorch"
	for eng in $engines; do
		tags=()
		[ "$eng" = libtorch ] && tags=(-tags=libtorch -modfile="$PWD/build/gotch/go.mod" -overlay="$PWD/build/gotch/overlay.json")
		(cd "$tmp/before" && go build "${tags[@]}" -o "$tmp/before_$eng" ./bench/stepbench)
		go build "${tags[@]}" -o "$tmp/after_$eng" ./bench/stepbench
		for m in ${MODELS:-mlp cnn lstm transformer resnet}; do
			echo "## $eng $m"
			python3 bench/pairs.py --rounds "$rounds" --restarts "${RESTARTS:-1}" \
				--a tree -- "$tmp/after_$eng" -serve -model "$m" -backend "$eng" \
				--b "$rev" -- "$tmp/before_$eng" -serve -model "$m" -backend "$eng" | tail -2
		done
	done
	exit 0
fi
(cd "$tmp/before" && go test -c -o "$tmp/before.test" ./bench)
go test -c -o "$tmp/after.test" ./bench
if [ -f build/gotch/overlay.json ]; then
	lt=(-tags=libtorch -modfile="$PWD/build/gotch/go.mod" -overlay="$PWD/build/gotch/overlay.json")
	(cd "$tmp/before" && go test "${lt[@]}" -c -o "$tmp/before_lt.test" ./bench)
	go test "${lt[@]}" -c -o "$tmp/after_lt.test" ./bench
	engines="gorgonia libtorch"
fi
export OMP_WAIT_POLICY=PASSIVE
cd bench
for round in $(seq "$rounds"); do
	for eng in $engines; do
		for which in before after; do
			bin=$tmp/$which.test
			[ "$eng" = libtorch ] && bin=$tmp/${which}_lt.test
			KERASGO_BACKEND=$eng "$bin" -test.run '^$' -test.bench 'MLPStep|CNNStep|ResNetStep|LSTMStep|GRUStep' -test.benchtime 8x 2>&1 |
				awk -v e="$eng" -v w="$which" '/^Benchmark/ {print e, w, $1, $3}'
		done
	done
done | awk '
	{ t[$1" "$3" "$2] = t[$1" "$3" "$2] " " $4 / 1e6; rows[$1" "$3] = 1 }
	function median(s,   a, n, i, j, x) {
		n = split(s, a, " ")
		for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		printf "%-9s %-24s %12s %12s %8s\n", "engine", "benchmark", "REV ms", "tree ms", "tree/REV"
		for (r in rows) {
			b = median(t[r" before"]); a = median(t[r" after"])
			split(r, k, " ")
			printf "%-9s %-24s %12.1f %12.1f %8.3f\n", k[1], k[2], b, a, a / b
		}
	}'
