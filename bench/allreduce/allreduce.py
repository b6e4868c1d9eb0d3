"""The Python side of scripts/bench-allreduce.sh: torch.distributed's Gloo
allreduce of float32 buffers, timed as bench/allreduce/main.go times
kerasgo's. Run one process per rank:

    python3 allreduce.py HOST PORT RANK WORLD SIZES ITERS
"""
import statistics
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist

host, port, rank, world = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
sizes = [int(s) for s in sys.argv[5].split(",")]
iters = int(sys.argv[6])
store = dist.TCPStore(host, port, world, rank == 0, timedelta(seconds=300))
pg = dist.ProcessGroupGloo(store, rank, world, timedelta(seconds=300))
for mb in sizes:
    buf = (torch.arange(mb * 1024 * 1024 // 4, dtype=torch.float32) % 7)
    times = []
    for i in range(iters + 3):
        pg.barrier().wait()
        start = time.perf_counter()
        pg.allreduce([buf]).wait()
        if i >= 3:
            times.append((time.perf_counter() - start) * 1000)
    if rank == 0:
        print(f"allreduce {mb} MB: {statistics.median(times):.3f} ms (median of {iters})", flush=True)
