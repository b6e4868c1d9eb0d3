"""Times two implementations of one training step in alternating chunks,
each in its own long-lived process, so that their ratio does not depend on
which of them got the faster minutes of a shared machine.

Each command must warm up, print a line "ready", and then, for every line
it reads from standard input, time a chunk of steps and print one line
with ms_per_step=<ms> (bench/stepbench -serve, bench/torch_step.py
--serve). Only one process runs at a time: the other waits on its
standard input. Rounds alternate the order (A B, then B A). The first
round is left out of the statistics (allocator caches and libgomp's
threads still settling).

    python3 bench/pairs.py --rounds 30 \\
        --a kerasgo -- build/stepbench -serve -model lstm ... \\
        --b pytorch -- build/torch-env/bin/python bench/torch_step.py --serve ...

A third implementation (--c NAME -- CMD..., e.g. an older kerasgo build)
joins every round; each implementation's ratio is to --b's. With three,
rounds alternate A B C and C B A.

--restarts N starts every implementation afresh N times (the rounds
shared among them, the first of each left out, the start order
alternating): one process can be several percent faster or slower than
another of the same binary for its whole life (where its buffers landed,
say), which rounds within one pair of processes cannot show. An A/A run
of bench/stepbench's gorgonia LSTM, one binary on both sides, gave
1.094 (interval 1.005-1.161) in one pair of processes. With restarts the
interval comes from resampling whole process sets, so it includes that
spread.

scripts/bench-pairs.sh (make bench-pairs) runs it for kerasgo on PyPI's
libtorch against PyTorch 2 eager.
"""
import argparse
import random
import re
import statistics as st
import subprocess
import sys
import time


class Impl:
    """One implementation's process, driven one chunk at a time."""

    def __init__(self, name, argv):
        self.name = name
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.expect_ready()

    def expect_ready(self):
        for line in self.proc.stdout:
            if line.strip() == "ready":
                return
        sys.exit(f"pairs: {self.name} exited before it printed ready (exit status {self.proc.wait()})")

    def chunk(self):
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()
        for line in self.proc.stdout:
            m = re.search(r"ms_per_step=([0-9.]+)", line)
            if m:
                return float(m.group(1))
        sys.exit(f"pairs: {self.name} exited in the middle of a chunk (exit status {self.proc.wait()})")

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def split_commands(argv):
    """--a NAME -- CMD... --b NAME -- CMD... [--c NAME -- CMD...]: the named
    commands, in flag order."""
    flags = ("--a", "--b", "--c")
    out = {}
    i = 0
    while i < len(argv):
        flag = argv[i]
        if flag not in flags or i + 2 >= len(argv) or argv[i + 2] != "--":
            sys.exit(f"pairs: expected --a NAME -- COMMAND... --b NAME -- COMMAND... [--c NAME -- COMMAND...], got {argv[i:]}")
        name = argv[i + 1]
        j = i + 3
        while j < len(argv) and argv[j] not in flags:
            j += 1
        out[flag] = (name, argv[i + 3:j])
        i = j
    if "--a" not in out or "--b" not in out:
        sys.exit("pairs: needs both --a and --b")
    if len({name for name, _ in out.values()}) != len(out):
        sys.exit("pairs: the implementations need different names")
    return [out[f] for f in flags if f in out]


def median_interval(values, stat, rng, n=2000, level=0.90):
    """A percentile bootstrap interval for stat over values."""
    boot = sorted(stat([rng.choice(values) for _ in values]) for _ in range(n))
    tail = (1 - level) / 2
    return boot[int(tail * n)], boot[int((1 - tail) * n) - 1]


def main():
    first = sys.argv.index("--a") if "--a" in sys.argv else len(sys.argv)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--restarts", type=int, default=1,
                   help="start every implementation afresh this many times, sharing the rounds among them")
    p.add_argument("--pause", type=float, default=0.05,
                   help="seconds between chunks, so that the last process's OpenMP threads stop spinning")
    a = p.parse_args(sys.argv[1:first])
    if a.rounds < 3:
        sys.exit("pairs: --rounds must be at least 3 (the first is left out)")
    named = split_commands(sys.argv[first:])
    if a.restarts < 1 or a.rounds < 2 * a.restarts + 1:
        sys.exit("pairs: --restarts must be at least 1, with at least 2 rounds per restart beyond the first")
    names = [name for name, _ in named]
    ref = names[1]  # --b: every other implementation's ratio is to it
    others = [n for n in names if n != ref]
    print(f"# round  " + " ".join(f"{n:>9}" for n in names) + "  " +
          ", ".join(f"{n} / {ref}" for n in others) + " (ms per step)", flush=True)
    sets = []  # the kept rounds of each process set
    r = 0
    for k in range(a.restarts):
        start = named if k % 2 == 0 else named[::-1]
        impls = {name: Impl(name, cmd) for name, cmd in start}
        per = a.rounds // a.restarts + (1 if k < a.rounds % a.restarts else 0)
        rows = []
        for i in range(per):
            order = [impls[n] for n in names] if r % 2 == 0 else [impls[n] for n in names[::-1]]
            ms = {}
            for impl in order:
                ms[impl.name] = impl.chunk()
                time.sleep(a.pause)
            r += 1
            print(f"{r:7d}  " + " ".join(f"{ms[n]:9.2f}" for n in names) + "  " +
                  " ".join(f"{ms[n] / ms[ref]:.3f}" for n in others) + ("  (left out)" if i == 0 else ""), flush=True)
            if i > 0:
                rows.append(ms)
        for impl in impls.values():
            impl.close()
        sets.append(rows)
    rng = random.Random(1)
    rows = [row for rows in sets for row in rows]
    times = {n: [row[n] for row in rows] for n in names}
    print(", ".join(f"{n} median {st.median(times[n]):.2f} ms ({min(times[n]):.1f}-{max(times[n]):.1f})" for n in names) +
          f", {len(rows)} rounds" + (f" in {a.restarts} process sets" if a.restarts > 1 else ""))
    for n in others:
        ratios = [[row[n] / row[ref] for row in rows] for rows in sets]
        pooled = [x for rs in ratios for x in rs]
        if a.restarts > 1:
            # Resample whole process sets, then their rounds.
            lo, hi = median_interval(ratios, lambda picked: st.median([x for rs in picked for x in rs]), rng)
            each = ", ".join(f"{st.median(rs):.3f}" for rs in ratios)
        else:
            lo, hi = median_interval(pooled, st.median, rng)
        of_medians = st.median(times[n]) / st.median(times[ref])
        print(f"{n} / {ref}: median of the rounds' ratios {st.median(pooled):.3f} "
              f"(90% bootstrap interval {lo:.3f}-{hi:.3f}), ratio of the medians {of_medians:.3f}" +
              (f"; per process set {each}" if a.restarts > 1 else ""))

if __name__ == "__main__":
    main()
