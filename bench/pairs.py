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
    """--a NAME -- CMD... --b NAME -- CMD...: the two named commands."""
    out = {}
    i = 0
    while i < len(argv):
        flag = argv[i]
        if flag not in ("--a", "--b") or i + 2 >= len(argv) or argv[i + 2] != "--":
            sys.exit(f"pairs: expected --a NAME -- COMMAND... --b NAME -- COMMAND..., got {argv[i:]}")
        name = argv[i + 1]
        j = i + 3
        while j < len(argv) and argv[j] not in ("--a", "--b"):
            j += 1
        out[flag] = (name, argv[i + 3:j])
        i = j
    if set(out) != {"--a", "--b"}:
        sys.exit("pairs: needs both --a and --b")
    return out["--a"], out["--b"]


def median_interval(values, stat, rng, n=2000, level=0.90):
    """A percentile bootstrap interval for stat over values."""
    boot = sorted(stat([rng.choice(values) for _ in values]) for _ in range(n))
    tail = (1 - level) / 2
    return boot[int(tail * n)], boot[int((1 - tail) * n) - 1]


def main():
    first = sys.argv.index("--a") if "--a" in sys.argv else len(sys.argv)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--pause", type=float, default=0.05,
                   help="seconds between chunks, so that the last process's OpenMP threads stop spinning")
    a = p.parse_args(sys.argv[1:first])
    if a.rounds < 3:
        sys.exit("pairs: --rounds must be at least 3 (the first is left out)")
    (name_a, cmd_a), (name_b, cmd_b) = split_commands(sys.argv[first:])
    impls = [Impl(name_a, cmd_a), Impl(name_b, cmd_b)]
    print(f"# round  {name_a:>9} {name_b:>9}  ratio ({name_a} / {name_b}, ms per step)", flush=True)
    rows = []
    for r in range(a.rounds):
        order = impls if r % 2 == 0 else impls[::-1]
        ms = {}
        for impl in order:
            ms[impl.name] = impl.chunk()
            time.sleep(a.pause)
        row = (ms[name_a], ms[name_b])
        print(f"{r + 1:7d}  {row[0]:9.2f} {row[1]:9.2f}  {row[0] / row[1]:.3f}{'  (left out)' if r == 0 else ''}", flush=True)
        if r > 0:
            rows.append(row)
    for impl in impls:
        impl.close()
    rng = random.Random(1)
    ta, tb = [x for x, _ in rows], [y for _, y in rows]
    ratios = [x / y for x, y in rows]
    lo, hi = median_interval(ratios, st.median, rng)
    of_medians = st.median(ta) / st.median(tb)
    print(f"{name_a} median {st.median(ta):.2f} ms ({min(ta):.1f}-{max(ta):.1f}), "
          f"{name_b} median {st.median(tb):.2f} ms ({min(tb):.1f}-{max(tb):.1f}), {len(rows)} rounds")
    print(f"{name_a} / {name_b}: median of the rounds' ratios {st.median(ratios):.3f} "
          f"(90% bootstrap interval {lo:.3f}-{hi:.3f}), ratio of the medians {of_medians:.3f}")


if __name__ == "__main__":
    main()
