"""PyTorch reference for kerasgo's benchmarks: the demo's MLP and CNN,
Keras's "Text classification with Transformer" model and an LSTM(64)
classifier, trained with Adam (Keras's defaults), and the six networks of
the 2016 benchmark (internal/models.Seed), trained with plain SGD, on
random data, one line of results.

Run with the PyTorch that Debian packages (python3-torch, /usr/bin/python3):
    /usr/bin/python3 bench/torch_step.py --model cnn --threads 2
"""
import argparse
import resource
import sys
import time

import torch
import torch.nn as nn


class KerasMHA(nn.Module):
    """Keras's MultiHeadAttention: key_dim per head (not embed/heads as
    nn.MultiheadAttention), projections with biases."""

    def __init__(self, d, heads, key_dim):
        super().__init__()
        self.h, self.dk = heads, key_dim
        self.q, self.k, self.v = (nn.Linear(d, heads * key_dim) for _ in range(3))
        self.o = nn.Linear(heads * key_dim, d)

    def forward(self, x):
        b, t, _ = x.shape
        split = lambda y: y.view(b, t, self.h, self.dk).transpose(1, 2)
        q, k, v = split(self.q(x)) * self.dk ** -0.5, split(self.k(x)), split(self.v(x))
        att = torch.softmax(q @ k.transpose(-1, -2), dim=-1)
        return self.o((att @ v).transpose(1, 2).reshape(b, t, self.h * self.dk))


class TransformerClassifier(nn.Module):
    """Keras's example: token + position embeddings, one transformer block
    (attention, dropout, residual, LayerNorm eps 1e-6, feed-forward),
    average over steps, Dropout, Dense(20, relu), Dropout, Dense(2)."""

    def __init__(self, maxlen=200, vocab=20000, d=32, heads=2, ff=32, classes=2):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(maxlen, d)
        self.att = KerasMHA(d, heads, d)
        self.ffn = nn.Sequential(nn.Linear(d, ff), nn.ReLU(), nn.Linear(ff, d))
        self.ln1, self.ln2 = nn.LayerNorm(d, eps=1e-6), nn.LayerNorm(d, eps=1e-6)
        self.drop1, self.drop2 = nn.Dropout(0.1), nn.Dropout(0.1)
        self.head = nn.Sequential(nn.Dropout(0.1), nn.Linear(d, 20), nn.ReLU(), nn.Dropout(0.1), nn.Linear(20, classes))

    def forward(self, x):
        h = self.tok(x) + self.pos.weight
        h = self.ln1(h + self.drop1(self.att(h)))
        h = self.ln2(h + self.drop2(self.ffn(h)))
        return self.head(h.mean(1))


class LSTMClassifier(nn.Module):
    """kerasgo's bench model "lstm": LSTM(64) over 100 steps of 8
    features, the last h to Dense(10)."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 64, batch_first=True)
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


class SmallResNet(nn.Module):
    """kerasgo's small ResNet (internal/models.ResNet): a conv + BN + ReLU
    stem of 32 filters, 2x2 max pooling, a residual block, a strided conv
    to 64 filters, another residual block, global average pooling, Dense(10).
    BatchNorm as Keras's: momentum 0.01 in PyTorch's terms, eps 1e-3."""

    def __init__(self):
        super().__init__()
        conv_bn = lambda cin, cout, stride: nn.Sequential(
            nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
            nn.BatchNorm2d(cout, eps=1e-3, momentum=0.01))
        self.stem = conv_bn(1, 32, 1)
        self.b1 = nn.ModuleList([conv_bn(32, 32, 1), conv_bn(32, 32, 1)])
        self.down = conv_bn(32, 64, 2)
        self.b2 = nn.ModuleList([conv_bn(64, 64, 1), conv_bn(64, 64, 1)])
        self.head = nn.Linear(64, 10)

    @staticmethod
    def block(x, convs):
        y = torch.relu(convs[0](x))
        return torch.relu(x + convs[1](y))

    def forward(self, x):
        x = torch.max_pool2d(torch.relu(self.stem(x)), 2)
        x = self.block(x, self.b1)
        x = torch.relu(self.down(x))
        x = self.block(x, self.b2)
        return self.head(x.mean((2, 3)))


SEED = ("fcn5", "fcn8", "alexnet", "resnet50", "lstm32", "lstm64")


class Bottleneck(nn.Module):
    """keras.applications' residual_block_v1: 1x1, 3x3, 1x1 convolutions
    with biases, BatchNorm (eps 1.001e-5, Keras's momentum) after each, a
    projection shortcut in a stage's first block, ReLU after the sum."""

    def __init__(self, cin, filters, stride, project):
        super().__init__()
        bn = lambda c: nn.BatchNorm2d(c, eps=1.001e-5, momentum=0.01)
        self.short = nn.Sequential(nn.Conv2d(cin, 4 * filters, 1, stride), bn(4 * filters)) if project else None
        self.body = nn.Sequential(
            nn.Conv2d(cin, filters, 1, stride), bn(filters), nn.ReLU(),
            nn.Conv2d(filters, filters, 3, padding=1), bn(filters), nn.ReLU(),
            nn.Conv2d(filters, 4 * filters, 1), bn(4 * filters))

    def forward(self, x):
        return torch.relu((self.short(x) if self.short is not None else x) + self.body(x))


class ResNet50(nn.Module):
    """keras.applications.ResNet50 (applications.ResNet50) in PyTorch."""

    def __init__(self, classes=1000):
        super().__init__()
        self.stem = nn.Sequential(nn.ZeroPad2d(3), nn.Conv2d(3, 64, 7, 2), nn.BatchNorm2d(64, eps=1.001e-5, momentum=0.01),
                                  nn.ReLU(), nn.ZeroPad2d(1), nn.MaxPool2d(3, 2))
        blocks, cin = [], 64
        for filters, n, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
            for i in range(n):
                blocks.append(Bottleneck(cin, filters, stride if i == 0 else 1, i == 0))
                cin = 4 * filters
        self.blocks = nn.Sequential(*blocks)
        self.head = nn.Linear(2048, classes)

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)).mean((2, 3)))


class LSTMLanguageModel(nn.Module):
    """internal/models.Seed's lstm32/lstm64: Embedding(10000, 256), two
    LSTM layers of 256, a softmax over the vocabulary at every step."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10000, 256)
        self.lstm = nn.LSTM(256, 256, num_layers=2, batch_first=True)
        self.head = nn.Linear(256, 10000)

    def forward(self, x):
        out, _ = self.lstm(self.emb(x))
        return self.head(out).transpose(1, 2)  # (batch, classes, steps), as CrossEntropyLoss takes it


def seed(name):
    """The 2016 benchmark's networks, as internal/models.Seed builds them
    (the softmax is in the loss)."""
    if name in ("fcn5", "fcn8"):
        mods, width = [], 26752
        for _ in range(3 if name == "fcn5" else 6):
            mods += [nn.Linear(width, 2048), nn.Sigmoid()]
            width = 2048
        return nn.Sequential(*mods, nn.Linear(2048, 26752))
    if name == "alexnet":
        # Keras's "same" padding: (k-1)//2 on each side fits these sizes,
        # except the stride-4 11x11 convolution and the 3x3/2 poolings,
        # which pad one more at the bottom and right.
        return nn.Sequential(
            nn.ZeroPad2d((3, 4, 3, 4)), nn.Conv2d(3, 96, 11, 4), nn.ReLU(), nn.MaxPool2d(3, 2, padding=1),
            nn.Conv2d(96, 256, 5, padding=2), nn.ReLU(), nn.MaxPool2d(3, 2, padding=1),
            nn.Conv2d(256, 384, 3, padding=1), nn.ReLU(), nn.Conv2d(384, 384, 3, padding=1), nn.ReLU(),
            nn.Conv2d(384, 256, 3, padding=1), nn.ReLU(), nn.MaxPool2d(3, 2, padding=1), nn.Flatten(),
            nn.Linear(256 * 7 * 7, 4096), nn.ReLU(), nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 1000))
    if name == "resnet50":
        return ResNet50()
    return LSTMLanguageModel()


def build(name):
    if name in SEED:
        return seed(name)
    if name == "resnet":
        return SmallResNet()
    if name == "transformer":
        return TransformerClassifier()
    if name == "lstm":
        return LSTMClassifier()
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
    p.add_argument("--impl", default="pytorch", help="the row's name before the version (e.g. pytorch+jemalloc)")
    p.add_argument("--serve", action="store_true",
                   help="after the warm-up print ready, then time --steps steps for each line read from "
                        "standard input, one result line each (bench/pairs.py alternates it with kerasgo)")
    p.add_argument("--compile", action="store_true",
                   help="torch.compile the model (TorchInductor; on CPU it needs a C++ compiler): "
                        "the warm-up steps compile the forward and backward graphs, the optimizer stays eager")
    a = p.parse_args()
    dev = torch.device(a.device)
    torch.manual_seed(1)
    torch.set_num_threads(a.threads)
    model = build(a.model).to(dev)
    if a.model in SEED:  # the 2016 benchmark's plain SGD
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = nn.CrossEntropyLoss()
    # The optimizer holds the parameters of the model itself; the compiled
    # wrapper shares them.
    run = torch.compile(model) if a.compile else model
    n = a.batch * (a.warmup + a.steps)
    if a.model in ("fcn5", "fcn8"):
        x = torch.rand(n, 26752, device=dev)
        y = torch.randint(0, 26752, (n,), device=dev)
    elif a.model in ("lstm32", "lstm64"):
        steps = 32 if a.model == "lstm32" else 64
        x = torch.randint(0, 10000, (n, steps), device=dev)
        y = torch.randint(0, 10000, (n, steps), device=dev)
    elif a.model in ("alexnet", "resnet50"):
        x = torch.rand(n, 3, 224, 224, device=dev)
        y = torch.randint(0, 1000, (n,), device=dev)
    elif a.model == "transformer":
        x = torch.randint(0, 20000, (n, 200), device=dev)
        y = torch.randint(0, 2, (n,), device=dev)
    elif a.model == "lstm":
        x = torch.rand(n, 100, 8, device=dev)
        y = torch.randint(0, 10, (n,), device=dev)
    else:
        x = torch.rand(n, 1, 28, 28, device=dev)
        y = torch.randint(0, 10, (n,), device=dev)
    model.train()

    def step(i):
        xb, yb = x[i * a.batch:(i + 1) * a.batch], y[i * a.batch:(i + 1) * a.batch]
        opt.zero_grad()
        out = run(xb)
        loss = loss_fn(out, yb)
        loss.backward()
        opt.step()
        if a.model in SEED:  # compiled with the loss alone
            return loss.item()
        # kerasgo reads loss and accuracy every step; so does this loop.
        return loss.item(), (out.argmax(1) == yb).float().sum().item()

    compile_start = time.perf_counter()
    for i in range(a.warmup):
        step(i)
    warm_ms = (time.perf_counter() - compile_start) * 1000
    if dev.type == "cuda":
        torch.cuda.synchronize()

    def timed():
        start = time.perf_counter()
        for i in range(a.warmup, a.warmup + a.steps):
            step(i)  # .item() in step synchronizes, as kerasgo's step does
        per = (time.perf_counter() - start) / a.steps
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        extra = f" warmup_with_compile_ms={warm_ms:.0f}" if a.compile else ""
        if dev.type == "cuda":
            extra += f" gpu_peak_mb={torch.cuda.max_memory_allocated() / 2**20:.0f} device={torch.cuda.get_device_name()}"
        print(f"impl={a.impl}-{torch.__version__}-{a.device} model={a.model} batch={a.batch} steps={a.steps} "
              f"threads={a.threads} ms_per_step={per * 1000:.2f} peak_rss_mb={rss_mb:.0f}{extra}", flush=True)

    if not a.serve:
        timed()
        return
    print("ready", flush=True)
    for _ in sys.stdin:
        timed()

if __name__ == "__main__":
    main()
