#!/usr/bin/python3
"""Writes keras/metrics/testdata/golden.json: the value of each Keras
metric over an epoch of two batches, computed with PyTorch (Debian's
python3-torch) from Keras 3's definitions (keras/src/metrics/...).
keras/metrics/golden_test.go runs kerasgo's metrics batch by batch, as
training does, on every engine, and compares.

Run: /usr/bin/python3 scripts/golden-metrics.py
"""
import json
import os

import torch
import torch.nn.functional as F

torch.manual_seed(2)
torch.set_default_dtype(torch.float64)
cases = []


def arr(t):
    return {"shape": list(t.shape), "data": [float(v) for v in t.flatten().tolist()]}


def add(name, metric, y, p, value):
    cases.append({"name": name, "metric": metric, "y_true": arr(y), "y_pred": arr(p), "value": float(value)})


def obj(cls, **cfg):
    return {"module": "keras.metrics", "class_name": cls, "config": cfg, "registered_name": None}


n, k = 12, 6
probs = F.softmax(torch.randn(n, k) * 1.5, dim=-1)
labels = torch.randint(0, k, (n,))
onehot = F.one_hot(labels, k).double()
bin_true = (torch.rand(n, 2) > 0.5).double()
bin_pred = torch.rand(n, 2)
reg_true, reg_pred = torch.randn(n, 3), torch.randn(n, 3)


def rank_of_target(p, lab):
    target = p[torch.arange(len(lab)), lab].unsqueeze(1)
    return (p > target).sum(1)


for kk in (1, 3, 5):
    acc = (rank_of_target(probs, labels) < kk).double().mean()
    add("top_k/%d" % kk, obj("TopKCategoricalAccuracy", k=kk), onehot, probs, acc)
    add("sparse_top_k/%d" % kk, obj("SparseTopKCategoricalAccuracy", k=kk), labels.double(), probs, acc)
add("top_k/default", "top_k_categorical_accuracy", onehot, probs, (rank_of_target(probs, labels) < 5).double().mean())

add("rmse", "root_mean_squared_error", reg_true, reg_pred, torch.sqrt(((reg_true - reg_pred) ** 2).mean(-1).mean()))


def confusion(y, p, t):
    pos, truth = p > t, y != 0
    return (pos & truth).sum().item(), (pos & ~truth).sum().item(), (~pos & truth).sum().item()


tp, fp, fn = confusion(bin_true, bin_pred, 0.5)
add("precision", "precision", bin_true, bin_pred, tp / (tp + fp))
add("recall", "recall", bin_true, bin_pred, tp / (tp + fn))
tp, fp, fn = confusion(bin_true, bin_pred, 0.3)
add("precision/0.3", obj("Precision", thresholds=0.3), bin_true, bin_pred, tp / (tp + fp))
add("recall/0.3", obj("Recall", thresholds=0.3), bin_true, bin_pred, tp / (tp + fn))


def f1_scores(y, pred_pos):
    truth = y != 0
    tp = (pred_pos & truth).sum(0).double()
    fp = (pred_pos & ~truth).sum(0).double()
    fn = (~pred_pos & truth).sum(0).double()
    p = torch.where(tp + fp > 0, tp / (tp + fp), torch.zeros_like(tp))
    r = torch.where(tp + fn > 0, tp / (tp + fn), torch.zeros_like(tp))
    f1 = torch.where(p + r > 0, 2 * p * r / (p + r), torch.zeros_like(p))
    return tp, fp, fn, f1


argmax_pos = F.one_hot(probs.argmax(1), k).bool()
tp, fp, fn, f1 = f1_scores(onehot, argmax_pos)
add("f1/macro", obj("F1Score", average="macro"), onehot, probs, f1.mean())
support = tp + fn
add("f1/weighted", obj("F1Score", average="weighted"), onehot, probs, (f1 * support).sum() / support.sum())
TP, FP, FN = tp.sum(), fp.sum(), fn.sum()
P, R = TP / (TP + FP), TP / (TP + FN)
add("f1/micro", obj("F1Score", average="micro"), onehot, probs, 2 * P * R / (P + R))
_, _, _, f1 = f1_scores(bin_true, bin_pred > 0.4)
add("f1/threshold", obj("F1Score", average="macro", threshold=0.4), bin_true, bin_pred, f1.mean())


def auc(y, p, num=200, curve="ROC"):
    """Keras's AUC with summation_method='interpolation'."""
    t = torch.tensor([-1e-7] + [(i + 1) / (num - 1) for i in range(num - 2)] + [1 + 1e-7])
    p, y = p.flatten().unsqueeze(1), (y.flatten() != 0).unsqueeze(1)
    above = p > t
    tp = (above & y).sum(0).double()
    fp = (above & ~y).sum(0).double()
    tn = (~above & ~y).sum(0).double()
    fn = (~above & y).sum(0).double()
    dnn = lambda a, b: torch.where(b != 0, a / torch.where(b != 0, b, torch.ones_like(b)), torch.zeros_like(a))
    if curve == "PR":
        dtp = tp[:-1] - tp[1:]
        pp = tp + fp
        dp = pp[:-1] - pp[1:]
        slope = dnn(dtp, dp.clamp(min=0))
        intercept = tp[1:] - slope * pp[1:]
        ratio = torch.where((pp[:-1] > 0) & (pp[1:] > 0), dnn(pp[:-1], pp[1:].clamp(min=0)), torch.ones_like(pp[1:]))
        return dnn(slope * (dtp + intercept * torch.log(ratio)), (tp[1:] + fn[1:]).clamp(min=0)).sum()
    recall = dnn(tp, tp + fn)
    fpr = dnn(fp, fp + tn)
    return ((fpr[:-1] - fpr[1:]) * (recall[:-1] + recall[1:]) / 2).sum()


add("auc", "auc", bin_true, bin_pred, auc(bin_true, bin_pred))
add("auc/50", obj("AUC", num_thresholds=50), bin_true, bin_pred, auc(bin_true, bin_pred, 50))
add("auc/pr", obj("AUC", curve="PR"), bin_true, bin_pred, auc(bin_true, bin_pred, curve="PR"))

def mean_iou(true, pred, c):
    cm = torch.zeros(c, c)
    for t, p in zip(true.tolist(), pred.tolist()):
        cm[t, p] += 1
    inter = cm.diag()
    union = cm.sum(0) + cm.sum(1) - inter
    valid = union > 0
    return (inter[valid] / union[valid]).sum() / valid.sum()


add("mean_iou", obj("MeanIoU", num_classes=k, sparse_y_pred=False), labels.double(), probs, mean_iou(labels, probs.argmax(1), k))
add("mean_iou/dense", obj("MeanIoU", num_classes=k, sparse_y_true=False, sparse_y_pred=False), onehot, probs,
    mean_iou(labels, probs.argmax(1), k))

out = os.path.join(os.path.dirname(__file__), "..", "keras", "metrics", "testdata", "golden.json")
with open(out, "w") as f:
    json.dump({"generator": "scripts/golden-metrics.py, PyTorch " + torch.__version__, "cases": cases}, f)
    f.write("\n")
print("wrote %d cases to %s" % (len(cases), os.path.normpath(out)))
