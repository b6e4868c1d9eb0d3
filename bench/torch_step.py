"""PyTorch reference for kerasgo's benchmarks: the demo's MLP and CNN,
trained with Adam (Keras's defaults) on random data, one line of results.

Run with the PyTorch that Debian packages (python3-torch, /usr/bin/python3):
    /usr/bin/python3 bench/torch_step.py --model cnn --threads 2
"""
import argparse
import resource
import time

import torch
import torch.nn as nn


def build(name):
    if name == "mlp":
        return nn.Sequential(
            nn.Flatten(),
            nn.Linear(784, 512), nn.ReLU(),
            nn.Linear(512, 512), nn.ReLU(),
            nn.Linear(512, 10),
        )
    return nn.Sequential(  # the classic Keras MNIST convnet
        nn.Conv2d(1, 32, 3), nn.ReLU(),
        nn.Conv2d(32, 64, 3), nn.ReLU(),
        nn.MaxPool2d(2), nn.Dropout(0.25), nn.Flatten(),
        nn.Linear(9216, 128), nn.ReLU(), nn.Dropout(0.5),
        nn.Linear(128, 10),
    )


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="mlp")
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--device", default="cpu", help="cpu or cuda")
    a = p.parse_args()
    dev = torch.device(a.device)
    torch.manual_seed(1)
    torch.set_num_threads(a.threads)
    model = build(a.model).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = nn.CrossEntropyLoss()
    n = a.batch * (a.warmup + a.steps)
    x = torch.rand(n, 1, 28, 28, device=dev)
    y = torch.randint(0, 10, (n,), device=dev)
    model.train()

    def step(i):
        xb, yb = x[i * a.batch:(i + 1) * a.batch], y[i * a.batch:(i + 1) * a.batch]
        opt.zero_grad()
        out = model(xb)
        loss = loss_fn(out, yb)
        loss.backward()
        opt.step()
        # kerasgo reads loss and accuracy every step; so does this loop.
        return loss.item(), (out.argmax(1) == yb).float().sum().item()

    for i in range(a.warmup):
        step(i)
    if dev.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for i in range(a.warmup, a.warmup + a.steps):
        step(i)  # .item() in step synchronizes, as kerasgo's step does
    per = (time.perf_counter() - start) / a.steps
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    extra = ""
    if dev.type == "cuda":
        extra = f" gpu_peak_mb={torch.cuda.max_memory_allocated() / 2**20:.0f} device={torch.cuda.get_device_name()}"
    print(f"impl=pytorch-{torch.__version__}-{a.device} model={a.model} batch={a.batch} steps={a.steps} "
          f"threads={a.threads} ms_per_step={per * 1000:.2f} peak_rss_mb={rss_mb:.0f}{extra}")


if __name__ == "__main__":
    main()
