"""One rank of TestPythonJoins: joins the Go rank's TCPStore and Gloo group
with torch.distributed and checks the allreduce and the broadcast."""
import sys
from datetime import timedelta

import torch
import torch.distributed as dist

host, port, rank, world = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
store = dist.TCPStore(host, port, world, rank == 0, timedelta(seconds=60))
pg = dist.ProcessGroupGloo(store, rank, world, timedelta(seconds=60))

x = torch.arange(1000, dtype=torch.float32) * (rank + 1) / 8
pg.allreduce([x]).wait()
want = torch.arange(1000, dtype=torch.float32) * (world * (world + 1) // 2) / 8
assert torch.equal(x, want), (x[:4], want[:4])

y = torch.arange(10, dtype=torch.float64) * (rank + 1)
pg.allreduce([y]).wait()
assert torch.equal(y, torch.arange(10, dtype=torch.float64) * 3), y

b = torch.tensor([float(rank), float(rank * 10)])
opts = dist.BroadcastOptions()
opts.rootRank = 0
pg.broadcast([b], opts).wait()
assert b.tolist() == [0.0, 0.0], b
pg.barrier().wait()
print("python ok", x[1].item(), y[1].item())
