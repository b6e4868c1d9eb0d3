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

# Metrics whose value per sample is a loss's (Keras's MeanMetricWrapper),
# averaged over the epoch's samples, from PyTorch's loss functions or
# Keras's formulas.
EPS = 1e-7
logits = torch.randn(n, k) * 2
bin_logits = torch.randn(n, 2) * 2
pos_true, pos_pred = torch.rand(n, 3) * 3, torch.rand(n, 3) * 3 + 0.1
exact_true, exact_pred = torch.randint(0, 3, (n, 1)).double(), torch.randint(0, 3, (n, 1)).double()
add("accuracy_exact", obj("Accuracy"), exact_true, exact_pred, (exact_true == exact_pred).double().mean())
add("binary_crossentropy", "binary_crossentropy", bin_true, bin_pred, F.binary_cross_entropy(bin_pred, bin_true))
smoothed = bin_true * 0.9 + 0.05
add("binary_crossentropy/logits", obj("BinaryCrossentropy", from_logits=True, label_smoothing=0.1), bin_true, bin_logits,
    F.binary_cross_entropy_with_logits(bin_logits, smoothed))
add("categorical_crossentropy", "categorical_crossentropy", onehot, probs, F.nll_loss(torch.log(probs), labels))
add("categorical_crossentropy/logits", obj("CategoricalCrossentropy", from_logits=True, label_smoothing=0.2), onehot, logits,
    F.cross_entropy(logits, labels, label_smoothing=0.2))
add("sparse_categorical_crossentropy/logits", obj("SparseCategoricalCrossentropy", from_logits=True), labels.double(), logits,
    F.cross_entropy(logits, labels))
pm = bin_true * 2 - 1
add("hinge", obj("Hinge"), bin_true, reg_pred[:, :2], F.relu(1 - pm * reg_pred[:, :2]).mean())
add("squared_hinge", "squared_hinge", bin_true, reg_pred[:, :2], (F.relu(1 - pm * reg_pred[:, :2]) ** 2).mean())
neg = ((1 - onehot) * probs).max(-1).values
add("categorical_hinge", "categorical_hinge", onehot, probs, F.relu(neg - (onehot * probs).sum(-1) + 1).mean())
ys = F.softmax(torch.randn(n, k), dim=-1)
add("kl_divergence", obj("KLDivergence"), ys, probs, F.kl_div(torch.log(probs), ys, reduction="none").sum(-1).mean())
add("poisson", "poisson", pos_true, pos_pred, F.poisson_nll_loss(pos_pred, pos_true, log_input=False, eps=EPS, full=False))
add("logcosh", obj("LogCoshError"), reg_true, reg_pred, torch.log(torch.cosh(reg_pred - reg_true)).mean())
add("mape", "mape", reg_true, reg_pred, (100 * (reg_true - reg_pred).abs() / reg_true.abs().clamp(min=EPS)).mean())
add("msle", obj("MeanSquaredLogarithmicError"), pos_true, pos_pred,
    ((torch.log(pos_pred.clamp(min=EPS) + 1) - torch.log(pos_true.clamp(min=EPS) + 1)) ** 2).mean())
add("cosine_similarity", "cosine_similarity", reg_true, reg_pred, F.cosine_similarity(reg_true, reg_pred, dim=-1, eps=0).mean())


# Correlations per sample over the last axis (Keras 3's formulas:
# population standard deviations; the concordance centres both on the
# prediction's mean, as Keras does).
def pearson(y, p):
    yc, pc = y - y.mean(-1, keepdim=True), p - p.mean(-1, keepdim=True)
    return ((yc / yc.std(-1, unbiased=False, keepdim=True)) * (pc / pc.std(-1, unbiased=False, keepdim=True))).mean(-1)


def concordance(y, p):
    ym, pm_ = y.mean(-1, keepdim=True), p.mean(-1, keepdim=True)
    yv, pv = (y - ym).var(-1, unbiased=False, keepdim=True), (p - pm_).var(-1, unbiased=False, keepdim=True)
    return (2 * (y - pm_) * (p - pm_) / (yv + pv + (ym - pm_) ** 2 + EPS)).mean(-1)


corr_true = torch.randn(n, 5)
corr_pred = corr_true * 0.6 + torch.randn(n, 5) * 0.5
add("pearson_correlation", "pearson_correlation", corr_true, corr_pred, pearson(corr_true, corr_pred).mean())
add("concordance_correlation", obj("ConcordanceCorrelation"), corr_true, corr_pred, concordance(corr_true, corr_pred).mean())


# R² over the epoch's samples, per output, then combined.
def r2(y, p, aggregation="uniform_average", regressors=0):
    total = ((y - y.mean(0)) ** 2).sum(0)
    scores = 1 - ((y - p) ** 2).sum(0) / total
    score = scores.mean() if aggregation == "uniform_average" else (scores * total).sum() / total.sum()
    m = y.numel()
    if 0 < regressors < m - 1:
        score = 1 - (1 - score) * (m - 1) / (m - regressors - 1)
    return score


r2_pred = reg_true * 0.7 + torch.randn(n, 3) * 0.4
add("r2_score", "r2_score", reg_true, r2_pred, r2(reg_true, r2_pred))
add("r2_score/variance_weighted", obj("R2Score", class_aggregation="variance_weighted_average", num_regressors=2), reg_true, r2_pred,
    r2(reg_true, r2_pred, "variance_weighted_average", 2))


# F-beta: Keras's result, with its epsilons.
def fbeta(y, pred_pos, beta, average):
    pred_pos = pred_pos.double()
    tp, fp, fn = (pred_pos * y).sum(0), (pred_pos * (1 - y)).sum(0), ((1 - pred_pos) * y).sum(0)
    support = y.sum(0)
    if average == "micro":
        tp, fp, fn, support = tp.sum(), fp.sum(), fn.sum(), support.sum()
    prec, rec = tp / (tp + fp + EPS), tp / (tp + fn + EPS)
    f = prec * rec / (beta ** 2 * prec + rec + EPS) * (1 + beta ** 2)
    if average == "weighted":
        return (f * support / (support.sum() + EPS)).sum()
    return f.mean()


largest = probs >= probs.max(-1, keepdim=True).values
add("fbeta/macro_2", obj("FBetaScore", average="macro", beta=2.0), onehot, probs, fbeta(onehot, largest, 2.0, "macro"))
add("fbeta/micro_half", obj("FBetaScore", average="micro", beta=0.5), onehot, probs, fbeta(onehot, largest, 0.5, "micro"))
add("fbeta/weighted_threshold", obj("FBetaScore", average="weighted", beta=1.5, threshold=0.2), onehot, probs,
    fbeta(onehot, probs > 0.2, 1.5, "weighted"))


# Confusion counts and the rates at a rate, over every value.
def counts(y, p, t):
    pos, truth = p > t, y != 0
    return [float((pos & truth).sum()), float((pos & ~truth).sum()), float((~pos & ~truth).sum()), float((~pos & truth).sum())]


for cls, cell in [("TruePositives", 0), ("FalsePositives", 1), ("TrueNegatives", 2), ("FalseNegatives", 3)]:
    add(cls, obj(cls), bin_true, bin_pred, counts(bin_true, bin_pred, 0.5)[cell])
    add(cls + "/0.3", obj(cls, thresholds=0.3), bin_true, bin_pred, counts(bin_true, bin_pred, 0.3)[cell])

rate_pred = (bin_true * 0.3 + torch.rand(n, 2) * 0.7)


def at_rate(y, p, kind, value, num=200):
    ts = [0.0] + [(i + 1) / (num - 1) for i in range(num - 2)] + [1.0]
    best = 0.0
    dnn = lambda a, b: a / b if b else 0.0
    for t in ts:
        tp, fp, tn, fn = counts(y, p, t)
        recall, precision, specificity = dnn(tp, tp + fn), dnn(tp, tp + fp), dnn(tn, tn + fp)
        constrained, dependent = {"PrecisionAtRecall": (recall, precision), "RecallAtPrecision": (precision, recall),
                                  "SensitivityAtSpecificity": (specificity, recall), "SpecificityAtSensitivity": (recall, specificity)}[kind]
        if constrained >= value:
            best = max(best, dependent)
    return best


add("precision_at_recall", obj("PrecisionAtRecall", recall=0.6), bin_true, rate_pred, at_rate(bin_true, rate_pred, "PrecisionAtRecall", 0.6))
add("recall_at_precision", obj("RecallAtPrecision", precision=0.7), bin_true, rate_pred, at_rate(bin_true, rate_pred, "RecallAtPrecision", 0.7))
add("sensitivity_at_specificity", obj("SensitivityAtSpecificity", specificity=0.5), bin_true, rate_pred,
    at_rate(bin_true, rate_pred, "SensitivityAtSpecificity", 0.5))
add("specificity_at_sensitivity/50", obj("SpecificityAtSensitivity", sensitivity=0.8, num_thresholds=50), bin_true, rate_pred,
    at_rate(bin_true, rate_pred, "SpecificityAtSensitivity", 0.8, 50))


# IoU of chosen classes (Keras 3.15's result, with its epsilons).
def iou(true, pred, c, targets):
    cm = torch.zeros(c, c)
    for t, p in zip(true.tolist(), pred.tolist()):
        cm[t, p] += 1
    inter = cm.diag()
    union = cm.sum(0) + cm.sum(1) - inter
    inter, union = inter[targets], union[targets]
    valid = union > 1e-9
    return torch.where(valid, inter / (union + EPS), torch.zeros_like(inter)).sum() / (valid.sum() + EPS)


add("io_u", obj("IoU", num_classes=k, target_class_ids=[0, 2], sparse_y_pred=False), labels.double(), probs,
    iou(labels, probs.argmax(1), k, [0, 2]))
add("one_hot_io_u", obj("OneHotIoU", num_classes=k, target_class_ids=[1, 3]), onehot, probs, iou(labels, probs.argmax(1), k, [1, 3]))
add("one_hot_mean_io_u", obj("OneHotMeanIoU", num_classes=k), onehot, probs, iou(labels, probs.argmax(1), k, list(range(k))))
flat_true = bin_true.flatten().long()
add("binary_io_u", "binary_io_u", bin_true, bin_pred, iou(flat_true, (bin_pred >= 0.5).flatten().long(), 2, [0, 1]))
add("binary_io_u/1_at_0.3", obj("BinaryIoU", target_class_ids=[1], threshold=0.3), bin_true, bin_pred,
    iou(flat_true, (bin_pred >= 0.3).flatten().long(), 2, [1]))

out = os.path.join(os.path.dirname(__file__), "..", "keras", "metrics", "testdata", "golden.json")
with open(out, "w") as f:
    json.dump({"generator": "scripts/golden-metrics.py, PyTorch " + torch.__version__, "cases": cases}, f)
    f.write("\n")
print("wrote %d cases to %s" % (len(cases), os.path.normpath(out)))
