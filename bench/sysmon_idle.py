"""Runs a Go program and, after its warm-up, puts Go's sysmon thread under
SCHED_IDLE (or, with --nice, at nice 19): the experiment that found what
sysmon's wake-ups cost a training step whose OpenMP threads spin on every
core (docs/benchmarks.md, "Go's sysmon"). kerasgo's libtorch engine puts
sysmon under SCHED_BATCH itself when asked (KERASGO_SYSMON=batch,
internal/sysmon); run the program without it (the default since issue 39)
to compare this script's policies with the default one.

    python3 bench/sysmon_idle.py [--nice] -- build/stepbench -serve -model lstm ...

It takes sysmon to be the program's thread with the most voluntary context
switches after 3 seconds (sysmon sleeps 20 us to 10 ms between its
rounds; the op thread and OpenMP's threads rarely sleep during a step),
prints which thread it chose to standard error, and passes standard input
and output through, so that bench/pairs.py can drive it. Linux only; an
unprivileged process may lower its own threads' priority but not raise it
back.
"""
import os
import re
import subprocess
import sys
import time

args = sys.argv[1:]
nice = False
if args and args[0] == "--nice":
    nice, args = True, args[1:]
if args and args[0] == "--":
    args = args[1:]
if not args:
    sys.exit(__doc__)
p = subprocess.Popen(args)
time.sleep(3)
best, most = None, -1
for t in os.listdir(f"/proc/{p.pid}/task"):
    status = open(f"/proc/{p.pid}/task/{t}/status").read()
    vol = int(re.search(r"voluntary_ctxt_switches:\s+(\d+)", status).group(1))
    if vol > most:
        best, most = int(t), vol
if nice:
    os.setpriority(os.PRIO_PROCESS, best, 19)
else:
    os.sched_setscheduler(best, os.SCHED_IDLE, os.sched_param(0))
print(f"sysmon_idle: thread {best} ({most} voluntary switches) now {'nice 19' if nice else 'SCHED_IDLE'}", file=sys.stderr)
sys.exit(p.wait())
