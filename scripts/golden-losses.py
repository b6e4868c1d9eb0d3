#!/usr/bin/python3
"""Writes keras/losses/testdata/golden.json: the value of each Keras loss on
fixed targets and predictions, computed with PyTorch (Debian's
python3-torch) from Keras 3's definitions (keras/src/losses/losses.py),
using PyTorch's own loss functions where one computes the same quantity.
keras/losses/golden_test.go compares kerasgo's losses with it on every
engine.

Run: /usr/bin/python3 scripts/golden-losses.py
"""
import json
import math
import os

import torch
import torch.nn.functional as F

torch.manual_seed(1)
torch.set_default_dtype(torch.float64)
EPS = 1e-7
cases = []


def arr(t):
    return {"shape": list(t.shape), "data": [float(v) for v in t.flatten().tolist()]}


def add(name, loss, y, p, value):
    cases.append({"name": name, "loss": loss, "y_true": arr(y), "y_pred": arr(p), "value": float(value)})


def obj(cls, **cfg):
    return {"module": "keras.losses", "class_name": cls, "config": dict({"reduction": "sum_over_batch_size"}, **cfg), "registered_name": None}


n, k = 4, 3
logits = torch.randn(n, k) * 2
probs = F.softmax(logits, dim=-1)
labels = torch.tensor([0, 2, 1, 2])
onehot = F.one_hot(labels, k).double()
reg_true = torch.rand(n, k) * 4 - 1
reg_pred = torch.rand(n, k) * 4 - 1
pos_true = torch.rand(n, k) * 3
pos_pred = torch.rand(n, k) * 3 + 0.1
bin_true = torch.tensor([[1.0, 0, 1], [0, 0, 1], [1, 1, 0], [0, 1, 0]])
bin_logits = torch.randn(n, k) * 2
bin_probs = torch.sigmoid(bin_logits)

# Crossentropies, with PyTorch's own functions.
add("categorical", "categorical_crossentropy", onehot, probs, F.nll_loss(torch.log(probs), labels))
add("categorical/logits", obj("CategoricalCrossentropy", from_logits=True), onehot, logits, F.cross_entropy(logits, labels))
add("categorical/smoothing", obj("CategoricalCrossentropy", label_smoothing=0.1), onehot, probs,
    F.cross_entropy(torch.log(probs), labels, label_smoothing=0.1))
add("categorical/logitsSmoothing", obj("CategoricalCrossentropy", from_logits=True, label_smoothing=0.2), onehot, logits,
    F.cross_entropy(logits, labels, label_smoothing=0.2))
add("sparse", "sparse_categorical_crossentropy", labels.double(), probs, F.nll_loss(torch.log(probs), labels))
add("binary", "binary_crossentropy", bin_true, bin_probs, F.binary_cross_entropy(bin_probs, bin_true))
add("binary/logits", obj("BinaryCrossentropy", from_logits=True), bin_true, bin_logits, F.binary_cross_entropy_with_logits(bin_logits, bin_true))
smoothed = bin_true * 0.8 + 0.1
add("binary/smoothing", obj("BinaryCrossentropy", label_smoothing=0.2), bin_true, bin_probs, F.binary_cross_entropy(bin_probs, smoothed))

# Reductions other than the batch mean.
add("mse/sum", obj("MeanSquaredError", reduction="sum"), reg_true, reg_pred, ((reg_true - reg_pred) ** 2).mean(-1).sum())
add("categorical/sum", obj("CategoricalCrossentropy", reduction="sum"), onehot, probs, F.nll_loss(torch.log(probs), labels, reduction="sum"))

# Regression.
add("mse", "mse", reg_true, reg_pred, F.mse_loss(reg_pred, reg_true))
add("mae", "mae", reg_true, reg_pred, F.l1_loss(reg_pred, reg_true))
add("huber", "huber", reg_true, reg_pred, F.huber_loss(reg_pred, reg_true, delta=1.0))
add("huber/0.5", obj("Huber", delta=0.5), reg_true, reg_pred, F.huber_loss(reg_pred, reg_true, delta=0.5))
add("mape", "mape", reg_true, reg_pred,
    (100 * ((reg_true - reg_pred).abs() / reg_true.abs().clamp(min=EPS)).mean(-1)).mean())
add("msle", "msle", pos_true, pos_pred,
    ((torch.log(pos_pred.clamp(min=EPS) + 1) - torch.log(pos_true.clamp(min=EPS) + 1)) ** 2).mean(-1).mean())
add("log_cosh", "log_cosh", reg_true, reg_pred, torch.log(torch.cosh(reg_pred - reg_true)).mean(-1).mean())
ps = probs
ys = F.softmax(torch.randn(n, k), dim=-1)
add("kl_divergence", "kl_divergence", ys, ps, F.kl_div(torch.log(ps), ys, reduction="none").sum(-1).mean())
add("poisson", "poisson", pos_true, pos_pred, F.poisson_nll_loss(pos_pred, pos_true, log_input=False, eps=EPS, full=False))
add("cosine_similarity", "cosine_similarity", reg_true, reg_pred, -F.cosine_similarity(reg_true, reg_pred, dim=-1, eps=0).mean())

# Hinge losses: 0/1 targets become -1/1.
pm = bin_true * 2 - 1
add("hinge", "hinge", bin_true, reg_pred, F.relu(1 - pm * reg_pred).mean(-1).mean())
add("hinge/signed", "hinge", pm, reg_pred, F.relu(1 - pm * reg_pred).mean(-1).mean())
add("squared_hinge", "squared_hinge", bin_true, reg_pred, (F.relu(1 - pm * reg_pred) ** 2).mean(-1).mean())

neg = ((1 - onehot) * probs).max(-1).values
add("categorical_hinge", "categorical_hinge", onehot, probs, F.relu(neg - (onehot * probs).sum(-1) + 1).mean())

# Focal losses, from Keras 3's formulas.
out = probs.clamp(EPS, 1 - EPS)
cfl = (0.25 * (1 - out) ** 2 * -(onehot * torch.log(out))).sum(-1).mean()
add("categorical_focal", "categorical_focal_crossentropy", onehot, probs, cfl)
out = F.softmax(logits, dim=-1).clamp(EPS, 1 - EPS)
y_s = onehot * 0.9 + 0.1 / k
cfl = (0.5 * (1 - out) ** 1.5 * -(y_s * torch.log(out))).sum(-1).mean()
add("categorical_focal/custom", obj("CategoricalFocalCrossentropy", alpha=0.5, gamma=1.5, from_logits=True, label_smoothing=0.1), onehot, logits, cfl)
bce = F.binary_cross_entropy(bin_probs, bin_true, reduction="none")
pt = bin_true * bin_probs + (1 - bin_true) * (1 - bin_probs)
add("binary_focal", "binary_focal_crossentropy", bin_true, bin_probs, ((1 - pt) ** 2 * bce).mean(-1).mean())
bce = F.binary_cross_entropy_with_logits(bin_logits, bin_true, reduction="none")
pt = bin_true * bin_probs + (1 - bin_true) * (1 - bin_probs)
w = bin_true * 0.3 + (1 - bin_true) * 0.7
add("binary_focal/balanced", obj("BinaryFocalCrossentropy", apply_class_balancing=True, alpha=0.3, gamma=3.0, from_logits=True),
    bin_true, bin_logits, (w * (1 - pt) ** 3 * bce).mean(-1).mean())

# Overlap losses of segmentation, from Keras 3's formulas (dice, tversky),
# summed over every axis (Keras's axis=None) or per sample.
seg_true = (torch.rand(3, 4, 4, 1) > 0.5).double()
seg_pred = torch.rand(3, 4, 4, 1)


def dice(y, p, dims):
    return 1 - 2 * (y * p).sum(dims) / (y.sum(dims) + p.sum(dims) + EPS)


def tversky(y, p, alpha, beta, dims):
    tp = (y * p).sum(dims)
    return 1 - tp / (tp + alpha * ((1 - p) * y).sum(dims) + beta * (p * (1 - y)).sum(dims) + EPS)


everything = (0, 1, 2, 3)
add("dice", "dice", seg_true, seg_pred, dice(seg_true, seg_pred, everything))
add("dice/per_image", obj("Dice", axis=[1, 2, 3]), seg_true, seg_pred, dice(seg_true, seg_pred, (1, 2, 3)).mean())
add("dice/per_image_sum", obj("Dice", axis=[1, 2, 3], reduction="sum"), seg_true, seg_pred, dice(seg_true, seg_pred, (1, 2, 3)).sum())
add("tversky", "tversky", seg_true, seg_pred, tversky(seg_true, seg_pred, 0.5, 0.5, everything))
add("tversky/recall", obj("Tversky", alpha=0.3, beta=0.7, axis=[1, 2]), seg_true, seg_pred,
    tversky(seg_true, seg_pred, 0.3, 0.7, (1, 2)).mean())

# Generalized crossentropy on class indices: (1 - p^q) / q.
p_true = probs[torch.arange(n), labels]
add("categorical_generalized_cross_entropy", obj("CategoricalGeneralizedCrossEntropy"), labels.double(), probs,
    ((1 - p_true ** 0.5) / 0.5).mean())
add("categorical_generalized_cross_entropy/q", obj("CategoricalGeneralizedCrossEntropy", q=0.8), labels.double(), probs,
    ((1 - p_true ** 0.8) / 0.8).mean())


# Circle loss on unit embeddings (Sun et al. 2020, Keras 3's circle): a
# sample whose loss is 0 (no positive pair) is left out of the average.
def circle(labels, emb, gamma, margin, remove_diagonal):
    d = (1 - emb @ emb.T).clamp(min=0)
    pos = labels[:, None] == labels[None, :]
    neg = ~pos
    if remove_diagonal:
        pos = pos & ~torch.eye(len(labels), dtype=torch.bool)
    wp = ((margin + d) * pos).clamp(min=0)
    wn = ((1 + margin - d) * neg).clamp(min=0)
    lp = torch.where(pos, -gamma * wp * (margin - d), torch.tensor(-math.inf)).logsumexp(1)
    ln = torch.where(neg, gamma * wn * (1 - margin - d), torch.tensor(-math.inf)).logsumexp(1)
    values = F.softplus(lp + ln)
    kept = values > 0
    return values.sum() / kept.sum()


emb = F.normalize(torch.randn(6, 4), dim=-1)
emb_labels = torch.tensor([0.0, 1, 0, 2, 1, 0])  # class 2 has one sample: no positive pair
add("circle", "circle", emb_labels, emb, circle(emb_labels, emb, 80.0, 0.4, True))
add("circle/custom", obj("Circle", gamma=10.0, margin=0.25, remove_diagonal=False), emb_labels, emb,
    circle(emb_labels, emb, 10.0, 0.25, False))

# CTC, with PyTorch's own ctc_loss: logits (batch, steps, classes), label
# sequences padded with the blank 0, every step counting.
ctc_logits = torch.randn(3, 8, 5)
ctc_labels = torch.tensor([[1.0, 2, 2, 0], [3, 1, 4, 2], [4, 0, 0, 0]])
lengths = (ctc_labels != 0).sum(-1)
ctc = F.ctc_loss(F.log_softmax(ctc_logits, -1).transpose(0, 1), ctc_labels.long(), torch.full((3,), 8), lengths,
                 blank=0, reduction="none")
add("ctc", "ctc", ctc_labels, ctc_logits, ctc.mean())

out = os.path.join(os.path.dirname(__file__), "..", "keras", "losses", "testdata", "golden.json")
with open(out, "w") as f:
    json.dump({"generator": "scripts/golden-losses.py, PyTorch " + torch.__version__, "cases": cases}, f)
    f.write("\n")
print("wrote %d cases to %s" % (len(cases), os.path.normpath(out)))
