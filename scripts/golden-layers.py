#!/usr/bin/python3
"""Writes keras/layers/testdata/golden.json: forward outputs of kerasgo's
layers computed by PyTorch (Debian's python3-torch), an independent
reference for keras/layers/golden_test.go.

Each case names a Keras layer class and config (the schema of Keras's
get_config, which layers.FromConfig reads), its inputs and weights (in
Keras's layout and order) and the output PyTorch computes with the same
weights, translated to PyTorch's layout (NCHW, (out, in, kh, kw) kernels).
BatchNormalization cases in training mode also give the moving statistics
after the steps, with Keras's momentum convention (moving = moving*m +
batch*(1-m); PyTorch's momentum is 1-m) and Keras's biased batch variance
(PyTorch's running_var uses the unbiased one: the script computes that
difference explicitly, see bn_training).

Run: /usr/bin/python3 scripts/golden-layers.py  (needs python3-torch)
"""
import json
import math
import os

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
cases = []


def arr(t):
    return {"shape": list(t.shape), "data": [float(v) for v in t.flatten().tolist()]}


def rand(*shape, lo=-1.0, hi=1.0):
    return torch.rand(*shape) * (hi - lo) + lo


def add(name, cls, config, inputs, weights, output, training=False, extra=None):
    c = {"name": name, "class": cls, "config": config, "training": training,
         "inputs": [arr(x) for x in inputs], "weights": [arr(w) for w in weights], "output": arr(output)}
    if extra:
        c.update(extra)
    cases.append(c)


def nchw(x):
    return x.permute(0, 3, 1, 2)


def nhwc(x):
    return x.permute(0, 2, 3, 1)


def same_pad(size, k, s, d=1):
    """TensorFlow's 'same' padding (more at the end), as Keras uses."""
    eff = (k - 1) * d + 1
    out = math.ceil(size / s)
    total = max((out - 1) * s + eff - size, 0)
    return total // 2, total - total // 2


ACT = {
    "linear": lambda x: x,
    "relu": F.relu,
    "relu6": lambda x: torch.clamp(x, 0, 6),
    "leaky_relu": lambda x: F.leaky_relu(x, 0.2),
    "elu": F.elu,
    "selu": F.selu,
    "silu": F.silu,
    "sigmoid": torch.sigmoid,
    "hard_sigmoid": lambda x: F.relu6(x + 3) / 6,
    "hard_silu": lambda x: x * F.relu6(x + 3) / 6,
    "tanh": torch.tanh,
    "softmax": lambda x: F.softmax(x, dim=-1),
    "log_softmax": lambda x: F.log_softmax(x, dim=-1),
    "softplus": F.softplus,
    "softsign": F.softsign,
    "exponential": torch.exp,
    "mish": F.mish,
    "gelu": F.gelu,
}

# Dense with each activation.
for act, f in ACT.items():
    x, k, b = rand(4, 5, lo=-3, hi=3), rand(5, 3), rand(3)
    add("Dense/" + act, "Dense", {"units": 3, "activation": act}, [x], [k, b], f(x @ k + b))
x, k = rand(2, 3, 4), rand(4, 2)
add("Dense/rank3NoBias", "Dense", {"units": 2, "use_bias": False}, [x], [k], x @ k)

# Conv2D: kernel (kh, kw, in, out) -> PyTorch (out, in, kh, kw).
for name, cfg, xs in [
    ("valid", {"filters": 3, "kernel_size": [3, 3]}, (2, 6, 5, 2)),
    ("same", {"filters": 2, "kernel_size": [3, 3], "padding": "same"}, (2, 5, 5, 3)),
    ("sameStride2", {"filters": 2, "kernel_size": [3, 3], "padding": "same", "strides": [2, 2]}, (1, 6, 7, 2)),
    ("validStride2Rect", {"filters": 4, "kernel_size": [2, 3], "strides": [2, 1], "activation": "relu"}, (2, 7, 6, 1)),
]:
    x = rand(*xs)
    kh, kw = cfg["kernel_size"]
    k, b = rand(kh, kw, xs[3], cfg["filters"]), rand(cfg["filters"])
    s = cfg.get("strides", [1, 1])
    inp = nchw(x)
    if cfg.get("padding") == "same":
        ph, pw = same_pad(xs[1], kh, s[0]), same_pad(xs[2], kw, s[1])
        inp = F.pad(inp, (pw[0], pw[1], ph[0], ph[1]))
    y = nhwc(F.conv2d(inp, k.permute(3, 2, 0, 1), b, stride=s))
    add("Conv2D/" + name, "Conv2D", cfg, [x], [k, b], ACT[cfg.get("activation", "linear")](y))

# Dilated and grouped Conv2D.
for name, cfg, xs in [
    ("dilated", {"filters": 2, "kernel_size": [3, 3], "dilation_rate": [2, 2]}, (2, 7, 6, 2)),
    ("dilatedSame", {"filters": 3, "kernel_size": [3, 2], "dilation_rate": [2, 1], "padding": "same"}, (1, 5, 5, 2)),
    ("groups", {"filters": 4, "kernel_size": [3, 3], "groups": 2}, (2, 5, 5, 4)),
    ("groupsSameStride2", {"filters": 6, "kernel_size": [3, 3], "groups": 3, "padding": "same", "strides": [2, 2]}, (1, 6, 5, 3)),
]:
    x = rand(*xs)
    kh, kw = cfg["kernel_size"]
    g, d, s = cfg.get("groups", 1), cfg.get("dilation_rate", [1, 1]), cfg.get("strides", [1, 1])
    k, b = rand(kh, kw, xs[3] // g, cfg["filters"]), rand(cfg["filters"])
    inp = nchw(x)
    if cfg.get("padding") == "same":
        ph, pw = same_pad(xs[1], kh, s[0], d[0]), same_pad(xs[2], kw, s[1], d[1])
        inp = F.pad(inp, (pw[0], pw[1], ph[0], ph[1]))
    y = nhwc(F.conv2d(inp, k.permute(3, 2, 0, 1), b, stride=s, dilation=d, groups=g))
    add("Conv2D/" + name, "Conv2D", cfg, [x], [k, b], y)

# Average pooling; "same" averages only the pixels inside the image.
for name, cfg, xs in [
    ("2x2", {"pool_size": [2, 2]}, (2, 4, 6, 3)),
    ("3x3stride2", {"pool_size": [3, 3], "strides": [2, 2]}, (1, 7, 6, 2)),
    ("3x3same", {"pool_size": [3, 3], "strides": [1, 1], "padding": "same"}, (1, 5, 4, 2)),
    ("2x2sameOdd", {"pool_size": [2, 2], "padding": "same"}, (2, 5, 5, 1)),
]:
    x = rand(*xs)
    p, st = cfg["pool_size"], cfg.get("strides", cfg["pool_size"])
    inp, ones = nchw(x), torch.ones(1, 1, xs[1], xs[2])
    if cfg.get("padding") == "same":
        ph, pw = same_pad(xs[1], p[0], st[0]), same_pad(xs[2], p[1], st[1])
        inp, ones = F.pad(inp, (pw[0], pw[1], ph[0], ph[1])), F.pad(ones, (pw[0], pw[1], ph[0], ph[1]))
    sums = F.avg_pool2d(inp, p, st, divisor_override=1)
    counts = F.avg_pool2d(ones, p, st, divisor_override=1)
    add("AveragePooling2D/" + name, "AveragePooling2D", cfg, [x], [], nhwc(sums / counts))

# Depthwise and separable convolutions: kernel (kh, kw, in, mult) ->
# PyTorch's grouped (in*mult, 1, kh, kw).
for name, cfg, xs in [
    ("valid", {"kernel_size": [3, 3]}, (2, 5, 4, 3)),
    ("multiplier2Same", {"kernel_size": [3, 3], "depth_multiplier": 2, "padding": "same"}, (1, 4, 4, 2)),
    ("stride2", {"kernel_size": [2, 3], "strides": [2, 2], "activation": "relu"}, (2, 6, 7, 2)),
    ("dilated", {"kernel_size": [3, 3], "dilation_rate": [2, 2]}, (1, 6, 6, 2)),
]:
    x = rand(*xs)
    kh, kw = cfg["kernel_size"]
    m, s, d = cfg.get("depth_multiplier", 1), cfg.get("strides", [1, 1]), cfg.get("dilation_rate", [1, 1])
    c = xs[3]
    k, b = rand(kh, kw, c, m), rand(c * m)
    inp = nchw(x)
    if cfg.get("padding") == "same":
        ph, pw = same_pad(xs[1], kh, s[0], d[0]), same_pad(xs[2], kw, s[1], d[1])
        inp = F.pad(inp, (pw[0], pw[1], ph[0], ph[1]))
    y = F.conv2d(inp, k.permute(2, 3, 0, 1).reshape(c * m, 1, kh, kw), b, stride=s, dilation=d, groups=c)
    add("DepthwiseConv2D/" + name, "DepthwiseConv2D", cfg, [x], [k, b], ACT[cfg.get("activation", "linear")](nhwc(y)))
for name, cfg, xs in [
    ("valid", {"filters": 4, "kernel_size": [3, 3]}, (2, 5, 5, 3)),
    ("multiplier2SameStride2", {"filters": 3, "kernel_size": [3, 3], "depth_multiplier": 2, "padding": "same", "strides": [2, 2]}, (1, 6, 5, 2)),
]:
    x = rand(*xs)
    kh, kw = cfg["kernel_size"]
    m, s = cfg.get("depth_multiplier", 1), cfg.get("strides", [1, 1])
    c = xs[3]
    dk, pk, b = rand(kh, kw, c, m), rand(1, 1, c * m, cfg["filters"]), rand(cfg["filters"])
    inp = nchw(x)
    if cfg.get("padding") == "same":
        ph, pw = same_pad(xs[1], kh, s[0]), same_pad(xs[2], kw, s[1])
        inp = F.pad(inp, (pw[0], pw[1], ph[0], ph[1]))
    y = F.conv2d(inp, dk.permute(2, 3, 0, 1).reshape(c * m, 1, kh, kw), None, stride=s, groups=c)
    y = F.conv2d(y, pk.permute(3, 2, 0, 1), b)
    add("SeparableConv2D/" + name, "SeparableConv2D", cfg, [x], [dk, pk, b], nhwc(y))

# Conv2DTranspose: kernel (kh, kw, out, in) -> PyTorch (in, out, kh, kw);
# Keras's output is (in-1)*s + k ("valid", at least in*s) or in*s ("same",
# the full output cropped as TensorFlow does, the extra row after).
for name, cfg, xs in [
    ("valid3", {"filters": 2, "kernel_size": [3, 3]}, (2, 4, 3, 3)),
    ("unet2x2", {"filters": 4, "kernel_size": [2, 2], "strides": [2, 2]}, (2, 3, 4, 2)),
    ("same3stride2", {"filters": 3, "kernel_size": [3, 3], "strides": [2, 2], "padding": "same", "activation": "relu"}, (1, 3, 3, 2)),
    ("valid3stride2", {"filters": 2, "kernel_size": [3, 3], "strides": [2, 2]}, (2, 3, 2, 1)),
    ("kernelSmallerThanStride", {"filters": 2, "kernel_size": [1, 1], "strides": [2, 2]}, (1, 3, 3, 2)),
    ("same4stride2", {"filters": 2, "kernel_size": [4, 4], "strides": [2, 2], "padding": "same"}, (1, 2, 3, 2)),
]:
    x = rand(*xs)
    kh, kw = cfg["kernel_size"]
    s = cfg.get("strides", [1, 1])
    k, b = rand(kh, kw, cfg["filters"], xs[3]), rand(cfg["filters"])
    full = F.conv_transpose2d(nchw(x), k.permute(3, 2, 0, 1), b, stride=s)
    H, W = xs[1], xs[2]
    if cfg.get("padding") == "same":
        oh, ow = H * s[0], W * s[1]
    else:
        oh, ow = H * s[0] + max(kh - s[0], 0), W * s[1] + max(kw - s[1], 0)
    fh, fw = full.shape[2], full.shape[3]
    if fh >= oh:
        top = (fh - oh) // 2
        full = full[:, :, top:top + oh, :]
    else:
        full = F.pad(full, (0, 0, 0, oh - fh), value=0.0) + b.view(1, -1, 1, 1) * F.pad(torch.zeros(1, 1, fh, full.shape[3]), (0, 0, 0, oh - fh), value=1.0)
    if fw >= ow:
        left = (fw - ow) // 2
        full = full[:, :, :, left:left + ow]
    else:
        full = F.pad(full, (0, ow - fw), value=0.0) + b.view(1, -1, 1, 1) * F.pad(torch.zeros(1, 1, full.shape[2], fw), (0, ow - fw), value=1.0)
    add("Conv2DTranspose/" + name, "Conv2DTranspose", cfg, [x], [k, b], ACT[cfg.get("activation", "linear")](nhwc(full)))

# Pooling.
for name, cfg, xs in [
    ("2x2", {"pool_size": [2, 2]}, (2, 4, 6, 3)),
    ("3x3stride1same", {"pool_size": [3, 3], "strides": [1, 1], "padding": "same"}, (1, 5, 4, 2)),
    ("2x2odd", {"pool_size": [2, 2]}, (1, 5, 5, 1)),
]:
    x = rand(*xs)
    p, s = cfg["pool_size"], cfg.get("strides", cfg["pool_size"])
    inp = nchw(x)
    if cfg.get("padding") == "same":
        ph, pw = same_pad(xs[1], p[0], s[0]), same_pad(xs[2], p[1], s[1])
        inp = F.pad(inp, (pw[0], pw[1], ph[0], ph[1]), value=-math.inf)
    add("MaxPooling2D/" + name, "MaxPooling2D", cfg, [x], [], nhwc(F.max_pool2d(inp, p, s)))
x = rand(2, 3, 4, 5)
add("GlobalAveragePooling2D", "GlobalAveragePooling2D", {}, [x], [], F.adaptive_avg_pool2d(nchw(x), 1).flatten(1))
add("GlobalMaxPooling2D", "GlobalMaxPooling2D", {}, [x], [], F.adaptive_max_pool2d(nchw(x), 1).flatten(1))

# Merging.
a, b, c = rand(3, 4), rand(3, 4), rand(3, 4)
add("Add", "Add", {}, [a, b, c], [], a + b + c)
add("Subtract", "Subtract", {}, [a, b], [], a - b)
add("Multiply", "Multiply", {}, [a, b, c], [], a * b * c)
add("Average", "Average", {}, [a, b, c], [], (a + b + c) / 3)
add("Maximum", "Maximum", {}, [a, b, c], [], torch.maximum(torch.maximum(a, b), c))
add("Minimum", "Minimum", {}, [a, b, c], [], torch.minimum(torch.minimum(a, b), c))
u, v = rand(2, 3, 3, 2), rand(2, 3, 3, 1)
add("Concatenate/channels", "Concatenate", {"axis": -1}, [u, v], [], torch.cat([u, v], dim=-1))
w = rand(2, 1, 3, 2)
add("Concatenate/rows", "Concatenate", {"axis": 1}, [u, w], [], torch.cat([u, w], dim=1))

# Core.
x = rand(2, 3, 2, 2)
add("Flatten", "Flatten", {}, [x], [], x.flatten(1))
add("Rescaling", "Rescaling", {"scale": 1 / 255, "offset": -0.5}, [x], [], x / 255 - 0.5)
add("Dropout/inference", "Dropout", {"rate": 0.5}, [x], [], x)
for act in ["relu", "elu", "softmax", "mish"]:
    add("Activation/" + act, "Activation", {"activation": act}, [x], [], ACT[act](x))


# Normalisation over features.
for shape in [(3, 5), (2, 3, 4)]:
    x = rand(*shape, lo=-2, hi=3)
    f = shape[-1]
    gamma, beta = rand(f, lo=0.5, hi=1.5), rand(f)
    add("LayerNormalization/rank%d" % len(shape), "LayerNormalization", {}, [x], [gamma, beta],
        F.layer_norm(x, (f,), gamma, beta, eps=1e-3))

# Activation layers.
x = rand(2, 3, 4, lo=-3, hi=8)
add("ReLU/default", "ReLU", {}, [x], [], F.relu(x))
t, slope, top = 0.5, 0.1, 6.0
add("ReLU/maxSlopeThreshold", "ReLU", {"max_value": top, "negative_slope": slope, "threshold": t}, [x], [],
    torch.where(x >= top, torch.full_like(x, top), torch.where(x >= t, x, slope * (x - t))))
add("LeakyReLU/default", "LeakyReLU", {}, [x], [], F.leaky_relu(x, 0.3))
add("LeakyReLU/0.05", "LeakyReLU", {"negative_slope": 0.05}, [x], [], F.leaky_relu(x, 0.05))
add("ELU/0.5", "ELU", {"alpha": 0.5}, [x], [], F.elu(x, 0.5))
add("Softmax", "Softmax", {}, [x], [], F.softmax(x, dim=-1))
img = rand(2, 3, 4, 3, lo=-2, hi=2)
alpha = rand(1, 1, 3)
add("PReLU/perChannel", "PReLU", {"shared_axes": [1, 2]}, [img], [alpha], nhwc(F.prelu(nchw(img), alpha.flatten())))
alpha = rand(3, 4)
add("PReLU/perElement", "PReLU", {}, [x], [alpha], torch.where(x >= 0, x, alpha * x))

# Reshaping images and sequences.
add("ZeroPadding2D/default", "ZeroPadding2D", {}, [img], [], nhwc(F.pad(nchw(img), (1, 1, 1, 1))))
add("ZeroPadding2D/uneven", "ZeroPadding2D", {"padding": [[1, 2], [0, 3]]}, [img], [], nhwc(F.pad(nchw(img), (0, 3, 1, 2))))
add("UpSampling2D/default", "UpSampling2D", {}, [img], [], nhwc(F.interpolate(nchw(img), scale_factor=2, mode="nearest")))
add("UpSampling2D/2x3", "UpSampling2D", {"size": [2, 3]}, [img], [], nhwc(F.interpolate(nchw(img), scale_factor=(2, 3), mode="nearest")))
v = rand(3, 4)
add("RepeatVector", "RepeatVector", {"n": 3}, [v], [], v.unsqueeze(1).repeat(1, 3, 1))
add("Cropping2D/uneven", "Cropping2D", {"cropping": [[1, 0], [1, 2]]}, [img], [], img[:, 1:, 1:-2, :])
add("Cropping2D/symmetric", "Cropping2D", {"cropping": [1, 0]}, [img], [], img[:, 1:-1, :, :])
add("Permute/swap", "Permute", {"dims": [2, 1]}, [x], [], x.permute(0, 2, 1))
add("Permute/images", "Permute", {"dims": [3, 1, 2]}, [img], [], img.permute(0, 3, 1, 2))
add("GaussianNoise/inference", "GaussianNoise", {"stddev": 0.5}, [img], [], img)
add("GaussianDropout/inference", "GaussianDropout", {"rate": 0.3}, [img], [], img)
img6 = rand(2, 3, 4, 6, lo=-2, hi=2)
gamma, beta = rand(6, lo=0.5, hi=1.5), rand(6)
add("GroupNormalization/images", "GroupNormalization", {"groups": 3}, [img6], [gamma, beta],
    nhwc(F.group_norm(nchw(img6), 3, gamma, beta, eps=1e-3)))
feat = rand(4, 6, lo=-2, hi=2)
add("GroupNormalization/features", "GroupNormalization", {"groups": 2}, [feat], [gamma, beta], F.group_norm(feat, 2, gamma, beta, eps=1e-3))
u2, v2 = rand(3, 5), rand(3, 5)
add("Dot/vectors", "Dot", {"axes": 1}, [u2, v2], [], (u2 * v2).sum(1, keepdim=True))
add("Dot/cosine", "Dot", {"axes": 1, "normalize": True}, [u2, v2], [], F.cosine_similarity(u2, v2, dim=1).unsqueeze(1))
q, kk = rand(2, 3, 4), rand(2, 5, 4)
add("Dot/attentionScores", "Dot", {"axes": [2, 2]}, [q, kk], [], torch.bmm(q, kk.transpose(1, 2)))
r1, r2 = rand(2, 3, 4), rand(2, 3, 2)
add("Dot/firstAxes", "Dot", {"axes": [1, 1]}, [r1, r2], [], torch.bmm(r1.transpose(1, 2), r2))
add("SpatialDropout2D/inference", "SpatialDropout2D", {"rate": 0.3}, [img], [], img)


# Sequences (batch, steps, channels). "same" average pooling divides by the
# steps inside the sequence (the ratio of two zero-padded averages). Conv1D kernel (k, in/groups, out) ->
# PyTorch (out, in/groups, k); "causal" pads the start only.
for name, cfg, xs in [
    ("valid", {"filters": 3, "kernel_size": 3}, (2, 7, 2)),
    ("sameStride2", {"filters": 2, "kernel_size": 4, "padding": "same", "strides": 2}, (2, 7, 3)),
    ("causalDilated", {"filters": 2, "kernel_size": 3, "padding": "causal", "dilation_rate": 2, "activation": "relu"}, (1, 8, 2)),
    ("groupsSame", {"filters": 4, "kernel_size": 3, "padding": "same", "groups": 2}, (2, 5, 4)),
    ("length1", {"filters": 2, "kernel_size": 1}, (3, 1, 2)),
]:
    x = rand(*xs)
    k_, g, s, d = cfg["kernel_size"], cfg.get("groups", 1), cfg.get("strides", 1), cfg.get("dilation_rate", 1)
    k, b = rand(k_, xs[2] // g, cfg["filters"]), rand(cfg["filters"])
    inp = x.permute(0, 2, 1)
    if cfg.get("padding") == "same":
        inp = F.pad(inp, same_pad(xs[1], k_, s, d))
    elif cfg.get("padding") == "causal":
        inp = F.pad(inp, ((k_ - 1) * d, 0))
    y = F.conv1d(inp, k.permute(2, 1, 0), b, stride=s, dilation=d, groups=g).permute(0, 2, 1)
    add("Conv1D/" + name, "Conv1D", cfg, [x], [k, b], ACT[cfg.get("activation", "linear")](y))
seq = rand(2, 7, 3)
ncw = seq.permute(0, 2, 1)
add("MaxPooling1D/default", "MaxPooling1D", {}, [seq], [], F.max_pool1d(ncw, 2).permute(0, 2, 1))
add("MaxPooling1D/3stride1same", "MaxPooling1D", {"pool_size": 3, "strides": 1, "padding": "same"}, [seq], [],
    F.max_pool1d(F.pad(ncw, same_pad(7, 3, 1), value=-math.inf), 3, 1).permute(0, 2, 1))
add("AveragePooling1D/default", "AveragePooling1D", {}, [seq], [], F.avg_pool1d(ncw, 2).permute(0, 2, 1))
add("AveragePooling1D/3stride2same", "AveragePooling1D", {"pool_size": 3, "strides": 2, "padding": "same"}, [seq], [],
    (F.avg_pool1d(F.pad(ncw, same_pad(7, 3, 2)), 3, 2) / F.avg_pool1d(F.pad(torch.ones(1, 1, 7), same_pad(7, 3, 2)), 3, 2)).permute(0, 2, 1))
add("GlobalAveragePooling1D", "GlobalAveragePooling1D", {}, [seq], [], seq.mean(1))
add("GlobalMaxPooling1D", "GlobalMaxPooling1D", {}, [seq], [], seq.amax(1))
add("UpSampling1D/default", "UpSampling1D", {}, [seq], [], seq.repeat_interleave(2, dim=1))
add("UpSampling1D/3", "UpSampling1D", {"size": 3}, [seq], [], seq.repeat_interleave(3, dim=1))
add("ZeroPadding1D/default", "ZeroPadding1D", {}, [seq], [], F.pad(ncw, (1, 1)).permute(0, 2, 1))
add("ZeroPadding1D/uneven", "ZeroPadding1D", {"padding": [2, 0]}, [seq], [], F.pad(ncw, (2, 0)).permute(0, 2, 1))
add("Cropping1D/default", "Cropping1D", {}, [seq], [], seq[:, 1:-1, :])
add("Cropping1D/uneven", "Cropping1D", {"cropping": [0, 3]}, [seq], [], seq[:, :-3, :])



# Recurrent layers against torch.nn.RNN, LSTM and GRU with Keras's weights:
# kernel (features, gates*units) is PyTorch's weight_ih transposed, Keras's
# single bias is bias_ih (bias_hh zero). LSTM gates have the same order
# (i, f, c, o); GRU's are (z, r, h) in Keras and (r, z, n) in PyTorch,
# whose n = tanh(W_in x + b_in + r*(W_hn h + b_hn)) is Keras's
# reset_after=True (bias row 0 is b_i*, row 1 b_h*).
def torch_rnn(mod, x, weights, backwards, initial):
    with torch.no_grad():
        for name, w in weights.items():
            getattr(mod, name).copy_(w)
        if backwards:
            x = x.flip(1)
        out, _ = mod(x, initial) if initial is not None else mod(x)
    return out


def gru_order(m, u):
    """Keras's (z, r, h) column blocks as PyTorch's (r, z, n) rows."""
    return torch.cat([m[..., u:2 * u], m[..., :u], m[..., 2 * u:]], dim=-1)


def gru_reset_before(x, k, rk, b, u, h):
    """Keras's GRU with reset_after=False (PyTorch has no such GRU)."""
    outs = []
    for t in range(x.shape[1]):
        xz = x[:, t] @ k + b
        z = torch.sigmoid(xz[:, :u] + h @ rk[:, :u])
        r = torch.sigmoid(xz[:, u:2 * u] + h @ rk[:, u:2 * u])
        hh = torch.tanh(xz[:, 2 * u:] + (r * h) @ rk[:, 2 * u:])
        h = z * h + (1 - z) * hh
        outs.append(h)
    return torch.stack(outs, 1)


for steps in [7, 1, 50]:
    for cls, cfg in [
        ("SimpleRNN", {"units": 3}),
        ("SimpleRNN", {"units": 3, "return_sequences": True, "go_backwards": True}),
        ("LSTM", {"units": 4}),
        ("LSTM", {"units": 3, "return_sequences": True}),
        ("LSTM", {"units": 3, "go_backwards": True, "return_sequences": True}),
        ("GRU", {"units": 4}),
        ("GRU", {"units": 3, "return_sequences": True, "go_backwards": True}),
        ("GRU", {"units": 3, "reset_after": False, "return_sequences": True}),
    ]:
        u, f, batch = cfg["units"], 2, 3
        gates = {"SimpleRNN": 1, "LSTM": 4, "GRU": 3}[cls]
        x = rand(batch, steps, f, lo=-2, hi=2)
        k, rk = rand(f, gates * u), rand(u, gates * u)
        back, seqs = cfg.get("go_backwards", False), cfg.get("return_sequences", False)
        name = "%s/%s/%d" % (cls, "+".join(key for key in ["return_sequences", "go_backwards", "reset_after"] if key in cfg) or "last", steps)
        if cls == "GRU" and cfg.get("reset_after") is False:
            b = rand(3 * u)
            out = gru_reset_before(x.flip(1) if back else x, k, rk, b, u, torch.zeros(batch, u))
            weights = [k, rk, b]
        elif cls == "GRU":
            b = rand(2, 3 * u)
            mod = torch.nn.GRU(f, u, batch_first=True)
            out = torch_rnn(mod, x, {"weight_ih_l0": gru_order(k, u).T, "weight_hh_l0": gru_order(rk, u).T,
                                     "bias_ih_l0": gru_order(b[0], u), "bias_hh_l0": gru_order(b[1], u)}, back, None)
            weights = [k, rk, b]
        else:
            b = rand(gates * u)
            mod = torch.nn.LSTM(f, u, batch_first=True) if cls == "LSTM" else torch.nn.RNN(f, u, batch_first=True)
            out = torch_rnn(mod, x, {"weight_ih_l0": k.T, "weight_hh_l0": rk.T, "bias_ih_l0": b, "bias_hh_l0": torch.zeros(gates * u)}, back, None)
            weights = [k, rk, b]
        add(name, cls, cfg, [x], weights, out if seqs else out[:, -1])

# return_state: the final states after the output (PyTorch's h_n, c_n).
x = rand(2, 6, 3, lo=-2, hi=2)
k, rk, b = rand(3, 8), rand(2, 8), rand(8)
mod = torch.nn.LSTM(3, 2, batch_first=True)
with torch.no_grad():
    for name, w in {"weight_ih_l0": k.T, "weight_hh_l0": rk.T, "bias_ih_l0": b, "bias_hh_l0": torch.zeros(8)}.items():
        getattr(mod, name).copy_(w)
    out, (hn, cn) = mod(x)
add("LSTM/returnState", "LSTM", {"units": 2, "return_sequences": True, "return_state": True}, [x], [k, rk, b], out,
    extra={"states": [arr(hn[0]), arr(cn[0])]})
k, rk, b = rand(3, 6), rand(2, 6), rand(2, 6)
mod = torch.nn.GRU(3, 2, batch_first=True)
with torch.no_grad():
    for name, w in {"weight_ih_l0": gru_order(k, 2).T, "weight_hh_l0": gru_order(rk, 2).T, "bias_ih_l0": gru_order(b[0], 2), "bias_hh_l0": gru_order(b[1], 2)}.items():
        getattr(mod, name).copy_(w)
    out, hn = mod(x.flip(1))
add("GRU/returnStateBackwards", "GRU", {"units": 2, "go_backwards": True, "return_state": True}, [x], [k, rk, b], out[:, -1],
    extra={"states": [arr(hn[0])]})

# Initial states as extra inputs (Keras's initial_state).
x = rand(2, 5, 3, lo=-2, hi=2)
k, rk, b = rand(3, 8), rand(2, 8), rand(8)
h0, c0 = rand(2, 2), rand(2, 2)
out = torch_rnn(torch.nn.LSTM(3, 2, batch_first=True), x, {"weight_ih_l0": k.T, "weight_hh_l0": rk.T, "bias_ih_l0": b, "bias_hh_l0": torch.zeros(8)},
                False, (h0.unsqueeze(0), c0.unsqueeze(0)))
add("LSTM/initialState", "LSTM", {"units": 2, "return_sequences": True}, [x, h0, c0], [k, rk, b], out)
k, rk, b = rand(3, 6), rand(2, 6), rand(2, 6)
out = torch_rnn(torch.nn.GRU(3, 2, batch_first=True), x, {"weight_ih_l0": gru_order(k, 2).T, "weight_hh_l0": gru_order(rk, 2).T,
                                                         "bias_ih_l0": gru_order(b[0], 2), "bias_hh_l0": gru_order(b[1], 2)}, False, h0.unsqueeze(0))
add("GRU/initialState", "GRU", {"units": 2}, [x, h0], [k, rk, b], out[:, -1])


# Bidirectional against PyTorch's bidirectional RNNs: the reverse
# direction's weights are the backward layer's; Keras's last output of the
# backward layer is PyTorch's reverse output at step 0.
def bidirectional(cls, u, f, x, seqs, merge):
    gates = {"SimpleRNN": 1, "LSTM": 4, "GRU": 3}[cls]
    mod = {"SimpleRNN": torch.nn.RNN, "LSTM": torch.nn.LSTM, "GRU": torch.nn.GRU}[cls](f, u, batch_first=True, bidirectional=True)
    weights, named = [], {}
    for suffix in ["", "_reverse"]:
        k, rk = rand(f, gates * u), rand(u, gates * u)
        b = rand(2, 3 * u) if cls == "GRU" else rand(gates * u)
        weights += [k, rk, b]
        if cls == "GRU":
            named.update({"weight_ih_l0" + suffix: gru_order(k, u).T, "weight_hh_l0" + suffix: gru_order(rk, u).T,
                          "bias_ih_l0" + suffix: gru_order(b[0], u), "bias_hh_l0" + suffix: gru_order(b[1], u)})
        else:
            named.update({"weight_ih_l0" + suffix: k.T, "weight_hh_l0" + suffix: rk.T, "bias_ih_l0" + suffix: b,
                          "bias_hh_l0" + suffix: torch.zeros(gates * u)})
    out = torch_rnn(mod, x, named, False, None)
    fwd, bwd = out[..., :u], out[..., u:]
    if not seqs:
        fwd, bwd = fwd[:, -1], bwd[:, 0]
    merged = {"concat": lambda: torch.cat([fwd, bwd], -1), "sum": lambda: fwd + bwd, "mul": lambda: fwd * bwd, "ave": lambda: (fwd + bwd) / 2}[merge]()
    return weights, merged


for cls, u, seqs, merge, steps in [("LSTM", 3, True, "concat", 6), ("GRU", 4, False, "concat", 7), ("SimpleRNN", 3, True, "sum", 5),
                                   ("GRU", 2, True, "ave", 1), ("LSTM", 2, False, "mul", 50)]:
    x = rand(2, steps, 3, lo=-2, hi=2)
    weights, out = bidirectional(cls, u, 3, x, seqs, merge)
    inner = {"module": "keras.layers", "class_name": cls, "config": {"name": "forward_" + cls.lower(), "units": u, "return_sequences": seqs}}
    add("Bidirectional/%s/%s/%d" % (cls, merge, steps), "Bidirectional", {"layer": inner, "merge_mode": merge}, [x], weights, out)

# Masked recurrences, written step by step with PyTorch's cells: at a
# padding step the states and the output stay as they were (Keras's rnn
# with zero_output_for_mask=False; the output starts at zeros).
def masked_rnn(cls, x, mask, k, rk, b, u, backwards):
    f = x.shape[-1]
    if cls == "LSTM":
        cell = torch.nn.LSTMCell(f, u)
        named = {"weight_ih": k.T, "weight_hh": rk.T, "bias_ih": b, "bias_hh": torch.zeros(4 * u)}
    elif cls == "GRU":
        cell = torch.nn.GRUCell(f, u)
        named = {"weight_ih": gru_order(k, u).T, "weight_hh": gru_order(rk, u).T, "bias_ih": gru_order(b[0], u), "bias_hh": gru_order(b[1], u)}
    else:
        cell = torch.nn.RNNCell(f, u)
        named = {"weight_ih": k.T, "weight_hh": rk.T, "bias_ih": b, "bias_hh": torch.zeros(u)}
    with torch.no_grad():
        for name, w in named.items():
            getattr(cell, name).copy_(w)
        batch = x.shape[0]
        h, c, out, outs = torch.zeros(batch, u), torch.zeros(batch, u), torch.zeros(batch, u), []
        order = range(x.shape[1] - 1, -1, -1) if backwards else range(x.shape[1])
        for t in order:
            m = mask[:, t:t + 1]
            if cls == "LSTM":
                hn, cn = cell(x[:, t], (h, c))
                c = m * cn + (1 - m) * c
            else:
                hn = cell(x[:, t], h)
            h = m * hn + (1 - m) * h
            out = m * hn + (1 - m) * out
            outs.append(out)
    return torch.stack(outs, 1), out


def pad_mask(batch, steps, lengths, left=False):
    m = torch.zeros(batch, steps)
    for i, n in enumerate(lengths):
        if left:
            m[i, steps - n:] = 1
        else:
            m[i, :n] = 1
    return m


for cls, cfg, steps, lengths, left in [
    ("LSTM", {"units": 3, "return_sequences": True}, 7, [7, 4, 1], False),
    ("GRU", {"units": 3}, 7, [5, 7, 2], True),
    ("SimpleRNN", {"units": 2, "return_sequences": True, "go_backwards": True}, 7, [3, 6, 7], False),
    ("LSTM", {"units": 2}, 1, [1, 0, 1], False),
    ("GRU", {"units": 2, "return_sequences": True}, 50, [50, 31, 9], False),
]:
    u, f = cfg["units"], 2
    gates = {"SimpleRNN": 1, "LSTM": 4, "GRU": 3}[cls]
    x = rand(3, steps, f, lo=-2, hi=2)
    k, rk = rand(f, gates * u), rand(u, gates * u)
    b = rand(2, 3 * u) if cls == "GRU" else rand(gates * u)
    mask = pad_mask(3, steps, lengths, left)
    seq, last = masked_rnn(cls, x, mask, k, rk, b, u, cfg.get("go_backwards", False))
    add("%s/masked/%s/%d" % (cls, "left" if left else "right", steps), cls, cfg, [x], [k, rk, b],
        seq if cfg.get("return_sequences") else last, extra={"masks": [arr(mask)]})

seq = rand(3, 6, 4)
mask = pad_mask(3, 6, [6, 2, 4])
add("GlobalAveragePooling1D/masked", "GlobalAveragePooling1D", {}, [seq], [], (seq * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True),
    extra={"masks": [arr(mask)]})

# TimeDistributed: the wrapped layer on every step.
seq = rand(2, 5, 3)
k, b = rand(3, 4), rand(4)
add("TimeDistributed/dense", "TimeDistributed", {"layer": {"module": "keras.layers", "class_name": "Dense", "config": {"name": "dense", "units": 4, "activation": "tanh"}}},
    [seq], [k, b], torch.tanh(seq @ k + b))
imgs = rand(2, 3, 5, 5, 2)
k, b = rand(3, 3, 2, 4), rand(4)
y = F.conv2d(imgs.reshape(6, 5, 5, 2).permute(0, 3, 1, 2), k.permute(3, 2, 0, 1), b).permute(0, 2, 3, 1).reshape(2, 3, 3, 3, 4)
add("TimeDistributed/conv2d", "TimeDistributed", {"layer": {"module": "keras.layers", "class_name": "Conv2D", "config": {"name": "conv2d", "filters": 4, "kernel_size": [3, 3]}}},
    [imgs], [k, b], y)

# Embedding: token ids (as floats) into rows of the matrix.
emb = rand(11, 4)
ids = torch.randint(0, 11, (3, 6)).double()
add("Embedding/sequences", "Embedding", {"input_dim": 11, "output_dim": 4}, [ids], [emb], F.embedding(ids.long(), emb),
    extra={"no_grad_inputs": [0]})
ids1 = torch.tensor([[10.0], [0.0]])
add("Embedding/single", "Embedding", {"input_dim": 11, "output_dim": 4}, [ids1], [emb], F.embedding(ids1.long(), emb),
    extra={"no_grad_inputs": [0]})

# MultiHeadAttention. Keras's kernels (features, heads, dim) flatten to
# PyTorch's in_proj/out_proj matrices transposed (heads split the same
# way); Keras's mask (1 = may attend) is PyTorch's attn_mask negated.
def keras_mha_weights(d, h, dk, dv, out, dk_in=None, dv_in=None):
    return [rand(d, h, dk), rand(h, dk), rand(dk_in or d, h, dk), rand(h, dk), rand(dv_in or d, h, dv), rand(h, dv), rand(h, dv, out), rand(out)]


def torch_mha(q, v, k, w, h, mask=None):
    d = q.shape[-1]
    mha = torch.nn.MultiheadAttention(d, h, batch_first=True)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([w[0].reshape(d, -1).T, w[2].reshape(d, -1).T, w[4].reshape(d, -1).T]))
        mha.in_proj_bias.copy_(torch.cat([w[1].flatten(), w[3].flatten(), w[5].flatten()]))
        mha.out_proj.weight.copy_(w[6].reshape(-1, w[6].shape[-1]).T)
        mha.out_proj.bias.copy_(w[7])
        attn = None
        if mask is not None:
            attn = (mask == 0).repeat_interleave(h, dim=0)
        out, _ = mha(q, k, v, attn_mask=attn, need_weights=False)
    return out


def einsum_mha(q, v, k, w, h, dk, mask=None):
    """The same attention written out (any key_dim, value_dim, output)."""
    qp = torch.einsum("btf,fhd->bhtd", q, w[0]) + w[1].unsqueeze(1)
    kp = torch.einsum("btf,fhd->bhtd", k, w[2]) + w[3].unsqueeze(1)
    vp = torch.einsum("btf,fhd->bhtd", v, w[4]) + w[5].unsqueeze(1)
    scores = (qp / math.sqrt(dk)) @ kp.transpose(-1, -2)
    if mask is not None:
        scores = scores + (1 - mask.unsqueeze(1)) * -1e9
    heads = torch.softmax(scores, -1) @ vp
    return torch.einsum("bhtd,hdo->bto", heads, w[6]) + w[7]


for steps in [7, 1, 50]:
    x = rand(2, steps, 6)
    w = keras_mha_weights(6, 2, 3, 3, 6)
    add("MultiHeadAttention/self/%d" % steps, "MultiHeadAttention", {"num_heads": 2, "key_dim": 3}, [x, x], w, torch_mha(x, x, x, w, 2))
    causal = torch.tril(torch.ones(steps, steps)).expand(2, steps, steps)
    add("MultiHeadAttention/causal/%d" % steps, "MultiHeadAttention", {"num_heads": 2, "key_dim": 3}, [x, x], w,
        torch_mha(x, x, x, w, 2, causal), extra={"call": {"use_causal_mask": True}})
q, v, k = rand(2, 4, 6), rand(2, 5, 6), rand(2, 5, 6)
mask = (torch.rand(2, 4, 5) > 0.4).double()
mask[:, :, 0] = 1  # every query step attends somewhere
w = keras_mha_weights(6, 3, 2, 2, 6)
add("MultiHeadAttention/crossKeyMask", "MultiHeadAttention", {"num_heads": 3, "key_dim": 2}, [q, v, k, mask], w,
    torch_mha(q, v, k, w, 3, mask), extra={"no_grad_inputs": [3]})
q, v = rand(2, 3, 5), rand(2, 4, 4)
w = keras_mha_weights(5, 3, 4, 2, 7, dk_in=4, dv_in=4)
add("MultiHeadAttention/valueDimOutputShape", "MultiHeadAttention", {"num_heads": 3, "key_dim": 4, "value_dim": 2, "output_shape": [7]},
    [q, v], w, einsum_mha(q, v, v, w, 3, 4))

# Attention with the inputs' masks (Keras adds -1e9 where masked; written
# out with einsum). The query mask marks data everywhere: a padding query
# step's row is shifted by -1e9 as a whole, which float32 cannot resolve,
# so its (meaningless) output is not compared.
q, v = rand(2, 4, 6), rand(2, 5, 6)
qm, vm = pad_mask(2, 4, [4, 4]), pad_mask(2, 5, [3, 5])
w = keras_mha_weights(6, 2, 3, 3, 6)
add("MultiHeadAttention/inputMasks", "MultiHeadAttention", {"num_heads": 2, "key_dim": 3}, [q, v], w,
    einsum_mha(q, v, v, w, 2, 3, qm.unsqueeze(2) * vm.unsqueeze(1)), extra={"masks": [arr(qm), arr(vm)]})

# Attention and AdditiveAttention (Keras's BaseDenseAttention): scores,
# -1e9 where the value is padding or above the diagonal, softmax, the
# weighted value, zeroed at padded query steps.
def dense_attention(q, v, k, scores, vmask=None, qmask=None, causal=False):
    if causal:
        scores = scores - 1e9 * (1 - torch.tril(torch.ones(q.shape[1], v.shape[1])))
    if vmask is not None:
        scores = scores - 1e9 * (1 - vmask.unsqueeze(1))
    out = torch.softmax(scores, -1) @ v
    if qmask is not None:
        out = out * qmask.unsqueeze(-1)
    return out


for steps in [1, 7, 50]:
    q, v = rand(2, steps, 4), rand(2, steps, 4)
    add("Attention/dot/%d" % steps, "Attention", {}, [q, v], [], dense_attention(q, v, v, q @ v.transpose(1, 2)))
q, v, k = rand(2, 3, 4), rand(2, 5, 4), rand(2, 5, 4)
scale = torch.tensor(0.7)
add("Attention/scaledKey", "Attention", {"use_scale": True}, [q, v, k], [scale], dense_attention(q, v, k, scale * (q @ k.transpose(1, 2))))
cw = torch.tensor(1.3)
pair = q.unsqueeze(2) + v.unsqueeze(1)
add("Attention/concatScaled", "Attention", {"use_scale": True, "score_mode": "concat"}, [q, v], [scale, cw],
    dense_attention(q, v, v, cw * torch.tanh(scale * pair).sum(-1)))
qm, vm = pad_mask(2, 3, [3, 2]), pad_mask(2, 5, [4, 2])
add("Attention/masksCausal", "Attention", {}, [q, v], [], dense_attention(q, v, v, q @ v.transpose(1, 2), vm, qm, causal=True),
    extra={"masks": [arr(qm), arr(vm)], "call": {"use_causal_mask": True}})
ascale = rand(4)
add("AdditiveAttention/scaled", "AdditiveAttention", {}, [q, v], [ascale], dense_attention(q, v, v, (ascale * torch.tanh(pair)).sum(-1)))
pair_k = q.unsqueeze(2) + k.unsqueeze(1)
add("AdditiveAttention/noScaleKeyMask", "AdditiveAttention", {"use_scale": False}, [q, v, k], [],
    dense_attention(q, v, k, torch.tanh(pair_k).sum(-1), vm), extra={"masks": [None, arr(vm)]})

# BatchNormalization (channels last): inference with moving statistics,
# and training steps.
def bn_inference(x, gamma, beta, mm, mv, eps=1e-3):
    return (x - mm) / torch.sqrt(mv + eps) * gamma + beta


x = rand(4, 3, 3, 2)
gamma, beta, mm, mv = rand(2, lo=0.5, hi=1.5), rand(2), rand(2), rand(2, lo=0.5, hi=2)
ref = nhwc(F.batch_norm(nchw(x), mm, mv, gamma, beta, training=False, eps=1e-3))
add("BatchNormalization/inference", "BatchNormalization", {}, [x], [gamma, beta, mm, mv], ref)


def bn_training(batches, gamma, beta, mm, mv, momentum=0.99, eps=1e-3):
    """PyTorch's BatchNorm2d in training mode (momentum 1-m) gives the
    outputs and the moving mean; the moving variance follows Keras (biased
    batch variance), which PyTorch's running_var (unbiased) does not."""
    bn = torch.nn.BatchNorm2d(len(gamma), eps=eps, momentum=1 - momentum)
    with torch.no_grad():
        bn.weight.copy_(gamma)
        bn.bias.copy_(beta)
        bn.running_mean.copy_(mm)
        bn.running_var.copy_(mv)
    bn.train()
    keras_var = mv.clone()
    outs = []
    for x in batches:
        outs.append(nhwc(bn(nchw(x))).detach())
        batch_var = nchw(x).var(dim=(0, 2, 3), unbiased=False)
        keras_var = keras_var * momentum + batch_var * (1 - momentum)
    return outs, bn.running_mean.detach(), keras_var


batches = [rand(4, 3, 3, 2, lo=-2, hi=3) for _ in range(3)]
outs, mean3, var3 = bn_training(batches, gamma, beta, mm, mv)
add("BatchNormalization/training", "BatchNormalization", {}, [batches[0]], [gamma, beta, mm, mv], outs[0], training=True,
    extra={"steps": [arr(b) for b in batches], "moving_mean": arr(mean3), "moving_variance": arr(var3)})
x2 = rand(6, 5, lo=-2, hi=2)
bn = torch.nn.BatchNorm1d(5, eps=1e-3, momentum=0.01)
add("BatchNormalization/dense", "BatchNormalization", {}, [x2], [torch.ones(5), torch.zeros(5), torch.zeros(5), torch.ones(5)], bn.train()(x2).detach(), training=True)

# Cross-attention with every mask Keras's _compute_attention_mask joins:
# the query's, the value's and a different key's masks, the caller's
# attention mask (any nonzero value attends: Keras casts it to bool) and
# the causal mask. Keras replaces a masked score with a large negative
# one (a where, not a sum), so a query step left with nothing to attend
# to (batch 0's padding step, and rows the causal and caller's masks
# empty) spreads evenly over the values; with dropout (or returned
# scores) Keras computes through its Softmax layer, which zeroes that
# row, so the step's output is the output bias.
def where_mha(q, v, k, w, h, dk, mask, zero_empty_rows):
    qp = torch.einsum("btf,fhd->bhtd", q, w[0]) + w[1].unsqueeze(1)
    kp = torch.einsum("btf,fhd->bhtd", k, w[2]) + w[3].unsqueeze(1)
    vp = torch.einsum("btf,fhd->bhtd", v, w[4]) + w[5].unsqueeze(1)
    scores = (qp / math.sqrt(dk)) @ kp.transpose(-1, -2)
    keep = mask.unsqueeze(1) != 0
    probs = torch.softmax(torch.where(keep, scores, torch.full_like(scores, -1e9)), -1)
    if zero_empty_rows:
        probs = probs * keep
    return torch.einsum("bhtd,hdo->bto", probs @ vp, w[6]) + w[7]


q, v, k = rand(2, 4, 6), rand(2, 5, 6), rand(2, 5, 6)
qm, vm, km = pad_mask(2, 4, [3, 4]), pad_mask(2, 5, [4, 5]), pad_mask(2, 5, [5, 3])
attention = torch.tensor([[[1, 2, 0, -1, 1], [1, 1, 1, 0, 3], [0, 1, 1, 1, 1], [1, 1, 0, 1, 1]],
                          [[0, 0, 1, 1, 1], [1, -2, 1, 1, 0], [1, 1, 1, 0, 1], [1, 0, 1, 1, 1]]]).double()
joined = (attention != 0).double() * qm.unsqueeze(2) * vm.unsqueeze(1) * km.unsqueeze(1) * torch.tril(torch.ones(4, 5))
w = keras_mha_weights(6, 2, 3, 3, 6)
for name, config, zero in [("allMasks", {"num_heads": 2, "key_dim": 3}, False),
                           ("allMasksDropout", {"num_heads": 2, "key_dim": 3, "dropout": 0.5}, True)]:
    add("MultiHeadAttention/" + name, "MultiHeadAttention", config, [q, v, k, attention], w, where_mha(q, v, k, w, 2, 3, joined, zero),
        extra={"masks": [arr(qm), arr(vm), arr(km)], "call": {"use_causal_mask": True}, "no_grad_inputs": [3]})

# Maximum, Minimum and Multiply of masked inputs, as Keras computes them:
# a padding step of one input never wins over the other's data (Keras's
# _apply_merge_op_and_or_mask), and Multiply counts padding as 1, then
# zeroes the steps that are padding in every input.
def masked_fold(op, xs, ms):
    out, kept = xs[0], ms[0].unsqueeze(-1).expand_as(xs[0]).bool()
    for x, m in zip(xs[1:], ms[1:]):
        m = m.unsqueeze(-1).expand_as(x).bool()
        x = torch.where(m, x, out)
        out = op(torch.where(kept, out, x), x)
        kept = kept | m
    return out


def masked_product(xs, ms):
    out, kept = torch.ones_like(xs[0]), torch.zeros_like(xs[0]).bool()
    for x, m in zip(xs, ms):
        m = m.unsqueeze(-1).expand_as(x).bool()
        out = out * torch.where(m, x, torch.ones_like(x))
        kept = kept | m
    return torch.where(kept, out, torch.zeros_like(out))


xs = [rand(2, 4, 3), rand(2, 4, 3), rand(2, 4, 3)]
ms = [pad_mask(2, 4, [3, 1]), pad_mask(2, 4, [2, 4]), pad_mask(2, 4, [1, 2])]
add("Maximum/masked", "Maximum", {}, xs, [], masked_fold(torch.maximum, xs, ms), extra={"masks": [arr(m) for m in ms]})
add("Minimum/masked", "Minimum", {}, xs, [], masked_fold(torch.minimum, xs, ms), extra={"masks": [arr(m) for m in ms]})
add("Multiply/masked", "Multiply", {}, xs, [], masked_product(xs, ms), extra={"masks": [arr(m) for m in ms]})

x = rand(2, 3, 4, 5)
add("GlobalAveragePooling2D/keepdims", "GlobalAveragePooling2D", {"keepdims": True}, [x], [], nhwc(F.adaptive_avg_pool2d(nchw(x), 1)))
add("GlobalMaxPooling2D/keepdims", "GlobalMaxPooling2D", {"keepdims": True}, [x], [], nhwc(F.adaptive_max_pool2d(nchw(x), 1)))

# Unit and RMS normalisation over the last axis, and over several.
x = rand(2, 3, 4, lo=-2, hi=2)
add("UnitNormalization/last", "UnitNormalization", {"axis": -1}, [x], [], F.normalize(x, p=2.0, dim=-1, eps=1e-12))
add("UnitNormalization/axes", "UnitNormalization", {"axis": [1, 2]}, [x], [],
    x / x.pow(2).sum((1, 2), keepdim=True).sqrt().clamp(min=1e-12))
scale = rand(4, lo=0.5, hi=1.5)
add("RMSNormalization/last", "RMSNormalization", {"axis": -1, "epsilon": 1e-6}, [x], [scale],
    x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * scale)
scale2 = rand(3, 4, lo=0.5, hi=1.5)
add("RMSNormalization/axes", "RMSNormalization", {"axis": [1, 2], "epsilon": 1e-3}, [x], [scale2],
    x * torch.rsqrt(x.pow(2).mean((1, 2), keepdim=True) + 1e-3) * scale2)

# Adaptive pooling, as PyTorch's adaptive pools (channels last here).
x = rand(2, 7, 3)
add("AdaptiveAveragePooling1D", "AdaptiveAveragePooling1D", {"output_size": [3]}, [x], [],
    F.adaptive_avg_pool1d(x.permute(0, 2, 1), 3).permute(0, 2, 1))
add("AdaptiveMaxPooling1D", "AdaptiveMaxPooling1D", {"output_size": [4]}, [x], [],
    F.adaptive_max_pool1d(x.permute(0, 2, 1), 4).permute(0, 2, 1))
x = rand(2, 7, 5, 2)
add("AdaptiveAveragePooling2D", "AdaptiveAveragePooling2D", {"output_size": [3, 2]}, [x], [], nhwc(F.adaptive_avg_pool2d(nchw(x), (3, 2))))
add("AdaptiveMaxPooling2D", "AdaptiveMaxPooling2D", {"output_size": [4, 4]}, [x], [], nhwc(F.adaptive_max_pool2d(nchw(x), (4, 4))))

# 3-D layers: volumes (batch, depth, rows, cols, channels) -> PyTorch's
# NCDHW; kernels (kd, kh, kw, in, out) -> (out, in, kd, kh, kw).
def ncdhw(x):
    return x.permute(0, 4, 1, 2, 3)


def ndhwc(x):
    return x.permute(0, 2, 3, 4, 1)


def same_pad3(xs, k, s, d=(1, 1, 1)):
    """F.pad's widths for TensorFlow's 'same' padding of a volume."""
    p = [same_pad(xs[1 + i], k[i], s[i], d[i]) for i in range(3)]
    return (p[2][0], p[2][1], p[1][0], p[1][1], p[0][0], p[0][1])


for name, cfg, xs in [
    ("valid", {"filters": 3, "kernel_size": [2, 3, 2]}, (2, 4, 5, 4, 2)),
    ("sameStrides", {"filters": 2, "kernel_size": [3, 3, 3], "strides": [2, 1, 2], "padding": "same", "activation": "relu"}, (1, 5, 4, 5, 3)),
    ("dilated", {"filters": 2, "kernel_size": [2, 2, 2], "dilation_rate": [2, 1, 2]}, (1, 5, 4, 5, 2)),
    ("groups", {"filters": 4, "kernel_size": [2, 2, 2], "groups": 2}, (1, 3, 4, 4, 4)),
]:
    x = rand(*xs)
    k3, st, d = cfg["kernel_size"], cfg.get("strides", [1, 1, 1]), cfg.get("dilation_rate", [1, 1, 1])
    g = cfg.get("groups", 1)
    k, b = rand(*k3, xs[4] // g, cfg["filters"]), rand(cfg["filters"])
    inp = ncdhw(x)
    if cfg.get("padding") == "same":
        inp = F.pad(inp, same_pad3(xs, k3, st, d))
    y = F.conv3d(inp, k.permute(4, 3, 0, 1, 2), b, stride=st, dilation=d, groups=g)
    add("Conv3D/" + name, "Conv3D", cfg, [x], [k, b], ACT[cfg.get("activation", "linear")](ndhwc(y)))

# Transposed convolutions: kernels (spatial..., out, in) -> PyTorch's (in,
# out, spatial...). "valid" is PyTorch's full output (output padding: the
# extra steps at the end, where only the bias reaches); "same" crops it
# as TensorFlow does, the extra step at the end.
def transposed(x, k, b, st, d, op, same, dims):
    perm = [dims + 1, dims] + list(range(dims))
    conv = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[dims]
    inp = x.permute(0, dims + 1, *range(1, dims + 1))
    y = conv(inp, k.permute(*perm), b, stride=st, dilation=d, output_padding=op if not same else 0)
    if same:
        for i in range(dims):
            n, kk = x.shape[1 + i], (k.shape[i] - 1) * d[i] + 1
            out = n * st[i] if op is None or op == 0 else (n - 1) * st[i] + kk % 2 + op[i]
            crop = (y.shape[2 + i] - out) // 2
            y = y.narrow(2 + i, crop, out)
    return y.permute(0, *range(2, dims + 2), 1)


for cls, dims, name, cfg, xs in [
    ("Conv1DTranspose", 1, "valid", {"filters": 2, "kernel_size": [3]}, (2, 5, 3)),
    ("Conv1DTranspose", 1, "stride2OutputPadding", {"filters": 3, "kernel_size": [3], "strides": [2], "output_padding": [1]}, (1, 4, 2)),
    ("Conv1DTranspose", 1, "sameStride2", {"filters": 2, "kernel_size": [3], "strides": [2], "padding": "same"}, (2, 4, 2)),
    ("Conv1DTranspose", 1, "dilated", {"filters": 2, "kernel_size": [2], "dilation_rate": [2]}, (1, 4, 2)),
    ("Conv2DTranspose", 2, "outputPadding", {"filters": 2, "kernel_size": [3, 2], "strides": [2, 3], "output_padding": [1, 2]}, (1, 3, 2, 2)),
    ("Conv2DTranspose", 2, "dilated", {"filters": 3, "kernel_size": [2, 3], "dilation_rate": [2, 1]}, (1, 3, 3, 2)),
    ("Conv3DTranspose", 3, "valid", {"filters": 2, "kernel_size": [2, 3, 2]}, (2, 2, 3, 2, 2)),
    ("Conv3DTranspose", 3, "stridesOutputPadding", {"filters": 2, "kernel_size": [3, 2, 3], "strides": [2, 2, 3], "output_padding": [1, 0, 2]}, (1, 2, 3, 2, 3)),
    ("Conv3DTranspose", 3, "sameStride2", {"filters": 3, "kernel_size": [3, 3, 3], "strides": [2, 2, 2], "padding": "same", "activation": "relu"}, (1, 2, 3, 2, 2)),
]:
    x = rand(*xs)
    kk = cfg["kernel_size"]
    st, d = cfg.get("strides", [1] * dims), cfg.get("dilation_rate", [1] * dims)
    k, b = rand(*kk, cfg["filters"], xs[-1]), rand(cfg["filters"])
    op = cfg.get("output_padding")
    y = transposed(x, k, b, st, d, tuple(op) if op else 0, cfg.get("padding") == "same", dims)
    add(cls + "/" + name, cls, cfg, [x], [k, b], ACT[cfg.get("activation", "linear")](y))

# DepthwiseConv1D and SeparableConv1D: kernel (k, in, mult) -> PyTorch's
# grouped (in*mult, 1, k); pointwise (1, in*mult, filters) -> (filters,
# in*mult, 1).
for name, cfg, xs in [
    ("valid", {"kernel_size": [3]}, (2, 6, 3)),
    ("multiplier2SameStride2", {"kernel_size": [3], "depth_multiplier": 2, "padding": "same", "strides": [2]}, (1, 7, 2)),
    ("dilated", {"kernel_size": [2], "dilation_rate": [3], "activation": "tanh"}, (2, 7, 2)),
]:
    x = rand(*xs)
    kk, m = cfg["kernel_size"][0], cfg.get("depth_multiplier", 1)
    st, d = cfg.get("strides", [1])[0], cfg.get("dilation_rate", [1])[0]
    c = xs[2]
    k, b = rand(kk, c, m), rand(c * m)
    inp = x.permute(0, 2, 1)
    if cfg.get("padding") == "same":
        inp = F.pad(inp, same_pad(xs[1], kk, st, d))
    y = F.conv1d(inp, k.permute(1, 2, 0).reshape(c * m, 1, kk), b, stride=st, dilation=d, groups=c)
    add("DepthwiseConv1D/" + name, "DepthwiseConv1D", cfg, [x], [k, b], ACT[cfg.get("activation", "linear")](y.permute(0, 2, 1)))
for name, cfg, xs in [
    ("valid", {"filters": 4, "kernel_size": [3]}, (2, 6, 3)),
    ("multiplier2Same", {"filters": 3, "kernel_size": [4], "depth_multiplier": 2, "padding": "same"}, (1, 7, 2)),
]:
    x = rand(*xs)
    kk, m, c = cfg["kernel_size"][0], cfg.get("depth_multiplier", 1), xs[2]
    dk, pk, b = rand(kk, c, m), rand(1, c * m, cfg["filters"]), rand(cfg["filters"])
    inp = x.permute(0, 2, 1)
    if cfg.get("padding") == "same":
        inp = F.pad(inp, same_pad(xs[1], kk, 1))
    y = F.conv1d(inp, dk.permute(1, 2, 0).reshape(c * m, 1, kk), None, groups=c)
    y = F.conv1d(y, pk.permute(2, 1, 0), b)
    add("SeparableConv1D/" + name, "SeparableConv1D", cfg, [x], [dk, pk, b], y.permute(0, 2, 1))

# 3-D pooling.
for name, cfg, xs in [
    ("2x2x2", {"pool_size": [2, 2, 2]}, (2, 4, 4, 5, 2)),
    ("sameStrides", {"pool_size": [3, 2, 3], "strides": [2, 1, 2], "padding": "same"}, (1, 5, 4, 5, 2)),
]:
    x = rand(*xs)
    p, st = cfg["pool_size"], cfg.get("strides", cfg["pool_size"])
    inp, ones = ncdhw(x), torch.ones(1, 1, *xs[1:4])
    if cfg.get("padding") == "same":
        w = same_pad3(xs, p, st)
        mx = F.max_pool3d(F.pad(inp, w, value=-math.inf), p, st)
        inp, ones = F.pad(inp, w), F.pad(ones, w)
    else:
        mx = F.max_pool3d(inp, p, st)
    add("MaxPooling3D/" + name, "MaxPooling3D", cfg, [x], [], ndhwc(mx))
    sums = F.avg_pool3d(inp, p, st, divisor_override=1)
    counts = F.avg_pool3d(ones, p, st, divisor_override=1)
    add("AveragePooling3D/" + name, "AveragePooling3D", cfg, [x], [], ndhwc(sums / counts))
x = rand(2, 3, 4, 2, 3)
add("GlobalAveragePooling3D", "GlobalAveragePooling3D", {}, [x], [], x.mean((1, 2, 3)))
add("GlobalMaxPooling3D/keepdims", "GlobalMaxPooling3D", {"keepdims": True}, [x], [], x.amax((1, 2, 3), keepdim=True))
add("UpSampling3D/default", "UpSampling3D", {}, [x], [], ndhwc(F.interpolate(ncdhw(x), scale_factor=2, mode="nearest")))
add("UpSampling3D/1x2x3", "UpSampling3D", {"size": [1, 2, 3]}, [x], [], ndhwc(F.interpolate(ncdhw(x), scale_factor=(1, 2, 3), mode="nearest")))
add("ZeroPadding3D/default", "ZeroPadding3D", {}, [x], [], ndhwc(F.pad(ncdhw(x), (1, 1, 1, 1, 1, 1))))
add("ZeroPadding3D/uneven", "ZeroPadding3D", {"padding": [[0, 2], [1, 0], [2, 1]]}, [x], [], ndhwc(F.pad(ncdhw(x), (2, 1, 1, 0, 0, 2))))
x = rand(2, 4, 5, 4, 2)
add("Cropping3D/default", "Cropping3D", {}, [x], [], x[:, 1:-1, 1:-1, 1:-1, :])
add("Cropping3D/uneven", "Cropping3D", {"cropping": [[1, 0], [0, 2], [1, 1]]}, [x], [], x[:, 1:, :-2, 1:-1, :])
add("AdaptiveAveragePooling3D", "AdaptiveAveragePooling3D", {"output_size": [2, 3, 2]}, [x], [], ndhwc(F.adaptive_avg_pool3d(ncdhw(x), (2, 3, 2))))
add("AdaptiveMaxPooling3D", "AdaptiveMaxPooling3D", {"output_size": [3, 3, 3]}, [x], [], ndhwc(F.adaptive_max_pool3d(ncdhw(x), 3)))

# EinsumDense: torch.einsum of the input and the kernel, plus the bias.
for name, cfg, xs, ks, bs, eq in [
    ("dense", {"equation": "ab,bc->ac", "output_shape": [4], "bias_axes": "c"}, (3, 5), (5, 4), (4,), "ab,bc->ac"),
    ("heads", {"equation": "abc,cde->abde", "output_shape": [None, 2, 3], "bias_axes": "de", "activation": "relu"}, (2, 4, 5), (5, 2, 3), (2, 3), "abc,cde->abde"),
    ("leftEllipsis", {"equation": "...b,bc->...c", "output_shape": [3]}, (2, 3, 2, 4), (4, 3), None, "xyzb,bc->xyzc"),
    ("rightEllipsis", {"equation": "ab...,bc->ac...", "output_shape": [3], "bias_axes": "c"}, (2, 4, 2, 3), (4, 3), (3, 1, 1), "abxy,bc->acxy"),
    ("sumsAnAxis", {"equation": "abc,cd->ad", "output_shape": [4], "bias_axes": "d", "activation": "tanh"}, (2, 3, 5), (5, 4), (4,), "abc,cd->ad"),
]:
    x, k = rand(*xs), rand(*ks)
    y = torch.einsum(eq, x, k)
    weights = [k]
    if bs is not None:
        b = rand(*bs)
        y = y + b
        weights.append(b)
    add("EinsumDense/" + name, "EinsumDense", cfg, [x], weights, ACT[cfg.get("activation", "linear")](y))

# ConvLSTM1D/2D/3D: Keras's ConvLSTMCell written with PyTorch's
# convolutions (channels last here; kernels (spatial..., in, 4*filters),
# gates i, f, c, o; the recurrent convolution has stride 1 and "same"
# padding).
def conv_last(x, k, stride, dilation, same, dims):
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[dims]
    xi = x.permute(0, dims + 1, *range(1, dims + 1))
    if same:
        widths = []
        for i in reversed(range(dims)):
            widths += list(same_pad(x.shape[1 + i], k.shape[i], stride[i], dilation[i]))
        xi = F.pad(xi, widths)
    y = conv(xi, k.permute(dims + 1, dims, *range(dims)), stride=stride, dilation=dilation)
    return y.permute(0, *range(2, dims + 2), 1)


for cls, dims, name, cfg, xs in [
    ("ConvLSTM2D", 2, "lastSame", {"filters": 2, "kernel_size": [3, 3], "padding": "same"}, (2, 3, 4, 4, 2)),
    ("ConvLSTM2D", 2, "sequencesStridesBackwards", {"filters": 3, "kernel_size": [2, 2], "strides": [2, 1], "return_sequences": True, "go_backwards": True}, (1, 3, 5, 4, 2)),
    ("ConvLSTM1D", 1, "sequencesDilated", {"filters": 2, "kernel_size": [3], "dilation_rate": [2], "return_sequences": True, "recurrent_activation": "hard_sigmoid"}, (2, 4, 7, 3)),
    ("ConvLSTM3D", 3, "lastSame", {"filters": 2, "kernel_size": [2, 2, 2], "padding": "same", "activation": "relu"}, (1, 2, 3, 4, 3, 1)),
]:
    x = rand(*xs)
    kk, f = cfg["kernel_size"], cfg["filters"]
    st, d = cfg.get("strides", [1] * dims), cfg.get("dilation_rate", [1] * dims)
    same = cfg.get("padding") == "same"
    k, rk, b = rand(*kk, xs[-1], 4 * f, lo=-0.5, hi=0.5), rand(*kk, f, 4 * f, lo=-0.5, hi=0.5), rand(4 * f, lo=-0.5, hi=0.5)
    act = ACT[cfg.get("activation", "tanh")]
    rec = ACT[cfg.get("recurrent_activation", "sigmoid")]
    steps = range(xs[1] - 1, -1, -1) if cfg.get("go_backwards") else range(xs[1])
    h = c = None
    outs = []
    for t in steps:
        zx = conv_last(x[:, t], k, st, d, same, dims) + b
        if h is None:
            h = c = torch.zeros(zx.shape[:-1] + (f,))
        z = zx + conv_last(h, rk, [1] * dims, [1] * dims, True, dims)
        gi, gf, gc, go = (z[..., g * f:(g + 1) * f] for g in range(4))
        c = rec(gf) * c + rec(gi) * act(gc)
        h = rec(go) * act(c)
        outs.append(h)
    y = torch.stack(outs, 1) if cfg.get("return_sequences") else h
    add(cls + "/" + name, cls, cfg, [x], [k, rk, b], y)

# RNN over Keras's cells: the same weights and steps as LSTM, GRU and
# SimpleRNN (torch.nn's), and StackedRNNCells as the layers one after
# another.
def cell(cls, **cfg):
    return {"module": "keras.layers", "class_name": cls, "config": cfg}


x = rand(2, 5, 3, lo=-2, hi=2)
k, rk, b = rand(3, 12), rand(3, 12), rand(12)
lstm_out = torch_rnn(torch.nn.LSTM(3, 3, batch_first=True), x, {"weight_ih_l0": k.T, "weight_hh_l0": rk.T, "bias_ih_l0": b, "bias_hh_l0": torch.zeros(12)}, False, None)
add("RNN/lstmCell", "RNN", {"cell": cell("LSTMCell", units=3), "return_sequences": True}, [x], [k, rk, b], lstm_out)
gk, grk, gb = rand(3, 6), rand(2, 6), rand(2, 6)
gru = lambda inp, back: torch_rnn(torch.nn.GRU(inp.shape[2], 2, batch_first=True), inp, {"weight_ih_l0": gru_order(gk, 2).T, "weight_hh_l0": gru_order(grk, 2).T,
                                                                                        "bias_ih_l0": gru_order(gb[0], 2), "bias_hh_l0": gru_order(gb[1], 2)}, back, None)
add("RNN/gruCellBackwards", "RNN", {"cell": cell("GRUCell", units=2), "go_backwards": True}, [x], [gk, grk, gb], gru(x, True)[:, -1])
sk, srk, sb = rand(3, 4), rand(4, 4), rand(4)
add("RNN/simpleRNNCell", "RNN", {"cell": cell("SimpleRNNCell", units=4, activation="relu")}, [x], [sk, srk, sb],
    torch_rnn(torch.nn.RNN(3, 4, batch_first=True, nonlinearity="relu"), x,
              {"weight_ih_l0": sk.T, "weight_hh_l0": srk.T, "bias_ih_l0": sb, "bias_hh_l0": torch.zeros(4)}, False, None)[:, -1])
gk, grk, gb = rand(3, 6), rand(2, 6), rand(2, 6)
add("RNN/stackedCells", "RNN", {"cell": cell("StackedRNNCells", cells=[cell("LSTMCell", units=3), cell("GRUCell", units=2)]), "return_sequences": True},
    [x], [k, rk, b, gk, grk, gb], gru(lstm_out, False))

# GroupQueryAttention (Keras exports the class GroupedQueryAttention so): the key and value heads repeated for their query
# heads (Keras's ops.repeat, head i of the keys for query heads
# i*r..i*r+r-1), an optional sigmoid gate on the heads, written out.
def gqa_ref(q, v, k, w, hq, hkv, d, causal=False, gate=False):
    wq, bq, wk, bk = w[:4]
    rest = w[4:]
    if gate:
        wg, bg, rest = rest[0], rest[1], rest[2:]
    wv, bv, wo, bo = rest
    qp = torch.einsum("btf,fhd->bhtd", q, wq) + bq.unsqueeze(1)
    kp = (torch.einsum("btf,fhd->bhtd", k, wk) + bk.unsqueeze(1)).repeat_interleave(hq // hkv, dim=1)
    vp = (torch.einsum("btf,fhd->bhtd", v, wv) + bv.unsqueeze(1)).repeat_interleave(hq // hkv, dim=1)
    scores = (qp / math.sqrt(d)) @ kp.transpose(-1, -2)
    if causal:
        scores = torch.where(torch.tril(torch.ones(q.shape[1], k.shape[1])) > 0, scores, torch.tensor(-1e9))
    heads = torch.softmax(scores, -1) @ vp
    if gate:
        heads = heads * torch.sigmoid(torch.einsum("btf,fhd->bhtd", q, wg) + bg.unsqueeze(1))
    return torch.einsum("bhtd,hdo->bto", heads, wo) + bo


x = rand(2, 5, 6)
w = [rand(6, 4, 3), rand(4, 3), rand(6, 2, 3), rand(2, 3), rand(6, 2, 3), rand(2, 3), rand(4, 3, 6), rand(6)]
add("GroupQueryAttention/self", "GroupQueryAttention", {"head_dim": 3, "num_query_heads": 4, "num_key_value_heads": 2}, [x, x], w,
    gqa_ref(x, x, x, w, 4, 2, 3))
q, v, k = rand(2, 4, 6), rand(2, 4, 5), rand(2, 4, 3)
w = [rand(6, 2, 2), rand(2, 2), rand(3, 1, 2), rand(1, 2), rand(6, 2, 2), rand(2, 2), rand(5, 1, 2), rand(1, 2), rand(2, 2, 6), rand(6)]
add("GroupQueryAttention/multiQueryCausalGate", "GroupQueryAttention", {"head_dim": 2, "num_query_heads": 2, "num_key_value_heads": 1, "use_gate": True},
    [q, v, k], w, gqa_ref(q, v, k, w, 2, 1, 2, causal=True, gate=True), extra={"call": {"use_causal_mask": True}})

# Keras's colour augmentation layers in training, with settings whose
# draws are fixed (a factor range of one value; a probability of 1), so
# the output is Keras's formula written out. Images (batch, h, w, 3).
def gray(x):
    return (x * torch.tensor([0.2989, 0.5870, 0.1140], dtype=x.dtype)).sum(-1, keepdim=True)


def rgb_to_hsv(x):
    """Keras's image.rgb_to_hsv (dm_pix's)."""
    eps = torch.finfo(x.dtype).eps
    x = torch.where(x.abs() < eps, torch.zeros_like(x), x)
    r, g, b = x.unbind(-1)
    value = torch.maximum(torch.maximum(r, g), b)
    rng = value - torch.minimum(torch.minimum(r, g), b)
    safe_value = torch.where(value > 0, value, torch.ones_like(value))
    safe_range = torch.where(rng > 0, rng, torch.ones_like(rng))
    sat = torch.where(value > 0, rng / safe_value, torch.zeros_like(value))
    norm = 1.0 / (6.0 * safe_range)
    hue = torch.where(value == g, norm * (b - r) + 2.0 / 6.0, norm * (r - g) + 4.0 / 6.0)
    hue = torch.where(value == r, norm * (g - b), hue)
    hue = torch.where(rng > 0, hue, torch.zeros_like(hue)) + (hue < 0).double()
    return torch.stack([hue, sat, value], -1)


def hsv_to_rgb(x):
    h, s, v = x.unbind(-1)
    dh = torch.remainder(h, 1.0) * 6.0
    dr = torch.clamp((dh - 3.0).abs() - 1.0, 0, 1)
    dg = torch.clamp(2.0 - (dh - 2.0).abs(), 0, 1)
    db = torch.clamp(2.0 - (dh - 4.0).abs(), 0, 1)
    return torch.stack([v * (1 - s + s * d) for d in (dr, dg, db)], -1)


def depthwise_same(x, k2d):
    """Each channel convolved with one 2-D kernel, zero "same" padding (odd sizes)."""
    c = x.shape[-1]
    kh, kw = k2d.shape
    w = k2d.expand(c, 1, kh, kw)
    return nhwc(F.conv2d(nchw(x), w, padding=(kh // 2, kw // 2), groups=c))


img01 = rand(2, 4, 5, 3, lo=0.02, hi=0.98)
img255 = img01 * 255
add("RandomGrayscale/always", "RandomGrayscale", {"factor": 1.0}, [img01], [], gray(img01).expand(-1, -1, -1, 3), training=True)
add("RandomInvert/always", "RandomInvert", {"factor": [1.0, 1.0], "value_range": [0, 1]}, [img01], [], 1 - img01, training=True)
add("RandomPosterization/3bits", "RandomPosterization", {"factor": [3, 3], "value_range": [0, 1]}, [img01], [],
    torch.floor(torch.floor(img01 * 255) / 32) * 32 / 255, training=True)
add("RandomColorDegeneration/0.4", "RandomColorDegeneration", {"factor": [0.4, 0.4], "value_range": [0, 1]}, [img01], [],
    torch.clamp(img01 + 0.4 * (gray(img01) - img01), 0, 1), training=True)
sat = 0.3 / (1 - 0.3 + 1e-7)
hsv = rgb_to_hsv(img255)
add("RandomSaturation/0.3", "RandomSaturation", {"factor": [0.3, 0.3]}, [img255], [],
    hsv_to_rgb(torch.stack([hsv[..., 0], torch.clamp(hsv[..., 1] * sat, 0, 255), hsv[..., 2]], -1)), training=True)


def hue_shift(x, shift):
    hsv = rgb_to_hsv(x)
    h = hsv[..., 0] + shift
    h = torch.where(h > 1, h - 1, h)
    h = torch.where(h < 0, h + 1, h)
    return torch.clamp(hsv_to_rgb(torch.stack([h, hsv[..., 1], hsv[..., 2]], -1)), 0, 1)


# A factor of 1 moves the hue by half a turn, the same either way round:
# Keras's random sign then draws nothing.
add("RandomHue/halfTurn", "RandomHue", {"factor": [1.0, 1.0], "value_range": [0, 1]}, [img01], [], hue_shift(img01, 0.5), training=True)
# Keras's default: an addition of 0 and a threshold of 0, every pixel inverted.
add("Solarization/default", "Solarization", {"value_range": [0, 1]}, [img01], [], 1 - img01, training=True)
lo = img01.amin((1, 2), keepdim=True)
hi = img01.amax((1, 2), keepdim=True)
add("AutoContrast/unit", "AutoContrast", {"value_range": [0, 1]}, [img01], [], torch.clamp((img01 - lo) * 255 / (hi - lo), 0, 255) / 255)
a, m = 1 / 13, 5 / 13
smooth = depthwise_same(img255, torch.tensor([[a, a, a], [a, m, a], [a, a, a]], dtype=torch.float64))
add("RandomSharpness/0.8", "RandomSharpness", {"factor": [0.8, 0.8]}, [img255], [],
    torch.clamp(img255 + (1 - 1.6) * (smooth - img255), 0, 255), training=True)


def gauss(n, s):
    d = torch.arange(n, dtype=torch.float64) - (n - 1) / 2
    k = torch.exp(-0.5 * (d / s) ** 2)
    return k / k.sum()


s = 0.7 + 1e-6
blur = depthwise_same(img255, torch.outer(gauss(5, s), gauss(3, s)))
add("RandomGaussianBlur/always", "RandomGaussianBlur", {"factor": [1.0, 1.0], "kernel_size": [3, 5], "sigma": [0.7, 0.7]}, [img255], [],
    torch.clamp(blur, 0, 255), training=True)
bright = torch.clamp(img01 + 0.1, 0, 1)
hsv = rgb_to_hsv(bright)
jitter = hsv_to_rgb(torch.stack([hsv[..., 0], torch.clamp(hsv[..., 1] * sat, 0, 1), hsv[..., 2]], -1))
add("RandomColorJitter/brightnessSaturationHue", "RandomColorJitter",
    {"value_range": [0, 1], "brightness_factor": [0.1, 0.1], "saturation_factor": [0.3, 0.3], "hue_factor": [1.0, 1.0]}, [img01], [],
    hue_shift(jitter, 0.5), training=True)


def equalize(x, vr, bins):
    """Keras's Equalization: one histogram per channel over the whole batch."""
    y = (x - vr[0]) * 255 / (vr[1] - vr[0])
    out = torch.empty_like(y)
    for ch in range(y.shape[-1]):
        c = y[..., ch]
        idx = torch.clamp(torch.trunc(c * (bins - 1) / 255), 0, bins - 1).long().flatten()
        hist = torch.bincount(idx, minlength=bins)
        if (hist > 0).sum() <= 1:
            out[..., ch] = c
            continue
        cdf = torch.cumsum(hist, 0)
        first = cdf[cdf > 0][0]
        den = cdf[-1] - first
        den = den if den != 0 else 1
        lut = torch.clamp(torch.round((cdf - first) * 255 / den), 0, 255).double()
        look = torch.clamp(c / 255 * (bins - 1), 0, bins - 1).long()
        out[..., ch] = lut[look]
    return out * (vr[1] - vr[0]) / 255 + vr[0]


add("Equalization/default", "Equalization", {}, [img255], [], equalize(img255, (0, 255), 256), training=True)
add("Equalization/16bins", "Equalization", {"bins": 16, "value_range": [0, 1]}, [img01], [], equalize(img01, (0, 1), 16), training=True)
# A scale of 1: the rectangle is the whole image.
# (Keras 3.15 on JAX fails on a fill_value list, a TrackedList that
# jnp.full_like refuses: the per-channel fill is checked in Go.)
add("RandomErasing/wholeImage", "RandomErasing", {"factor": [1.0, 1.0], "scale": [1.0, 1.0], "fill_value": 1.5, "value_range": [0, 1]},
    [img01], [], torch.ones(2, 4, 5, 3), training=True)
add("Pipeline/invertThenEqualize", "Pipeline", {"layers": [
    {"module": "keras.layers", "class_name": "RandomInvert", "config": {"factor": [1.0, 1.0], "value_range": [0, 1]}, "registered_name": None},
    {"module": "keras.layers", "class_name": "Equalization", "config": {"bins": 8, "value_range": [0, 1]}, "registered_name": None}]},
    [img01], [], equalize(1 - img01, (0, 1), 8), training=True)


# STFTSpectrogram: Keras's STFT kernels (keras.initializers.STFT, SciPy's
# windows written out) as the weights, PyTorch's strided conv1d per channel.
def window(name, n, periodic):
    m = n + 1 if periodic else n
    t = torch.arange(m, dtype=torch.float64) * 2 * math.pi / (m - 1)
    w = {"hann": 0.5 - 0.5 * torch.cos(t), "hamming": 0.54 - 0.46 * torch.cos(t)}[name]
    return w[:n]


def stft_kernel(side, frame, fft, win, scaling):
    bins = fft // 2 + 1
    t = torch.arange(frame, dtype=torch.float64).reshape(frame, 1, 1)
    f = torch.arange(bins, dtype=torch.float64).reshape(1, 1, bins) / ((bins - 1) * 2)
    arg = -2 * t * f * math.pi
    k = torch.cos(arg) if side == "real" else torch.sin(arg)
    w = win.reshape(frame, 1, 1)
    scale = torch.sqrt((win ** 2).sum()) if scaling == "density" else win.abs().sum()
    return k * w / scale


def stft_conv(x, k, step, same):
    """(batch, time, ch) -> (batch, ch, bins, frames), as Keras's _apply_conv."""
    n, t, c = x.shape
    sig = x.permute(0, 2, 1).reshape(n * c, 1, t)
    frame = k.shape[0]
    if same:  # TensorFlow's "same": ceil(t/step) frames, the extra padding at the end
        out = math.ceil(t / step)
        total = max((out - 1) * step + frame - t, 0)
        sig = F.pad(sig, (total // 2, total - total // 2))
    y = F.conv1d(sig, k.permute(2, 1, 0), stride=step)  # (n*c, bins, frames)
    return y.reshape(n, c, y.shape[1], y.shape[2])


def flat_bins(y):
    n, c, b, fr = y.shape
    return y.reshape(n, c * b, fr).permute(0, 2, 1)


sig = rand(2, 20, 2)
hann8 = window("hann", 8, False)
kr, ki = stft_kernel("real", 8, 8, hann8, "density"), stft_kernel("imag", 8, 8, hann8, "density")
re, im = stft_conv(sig, kr, 4, False), stft_conv(sig, ki, 4, False)
power = re ** 2 + im ** 2
add("STFTSpectrogram/log", "STFTSpectrogram", {"frame_length": 8, "frame_step": 4}, [sig], [kr, ki],
    flat_bins(torch.log(torch.clamp(torch.sqrt(torch.clamp(power, min=1e-7)), min=1e-7))))
re, im = stft_conv(sig, kr, 3, True), stft_conv(sig, ki, 3, True)
power = re ** 2 + im ** 2
psd = power + F.pad(power[:, :, 1:-1, :], (0, 0, 1, 1))
add("STFTSpectrogram/psdSameExpanded", "STFTSpectrogram", {"mode": "psd", "frame_length": 8, "frame_step": 3, "padding": "same", "expand_dims": True},
    [sig], [kr, ki], psd.permute(0, 3, 2, 1))
ham = window("hamming", 6, True)
kr, ki = stft_kernel("real", 6, 8, ham, "spectrum"), stft_kernel("imag", 6, 8, ham, "spectrum")
add("STFTSpectrogram/stftHamming", "STFTSpectrogram",
    {"mode": "stft", "frame_length": 6, "frame_step": 2, "fft_length": 8, "window": "hamming", "periodic": True, "scaling": "spectrum"},
    [sig], [kr, ki], flat_bins(torch.cat([stft_conv(sig, kr, 2, False), stft_conv(sig, ki, 2, False)], 2)))
add("STFTSpectrogram/real", "STFTSpectrogram", {"mode": "real", "frame_length": 6, "frame_step": 2, "fft_length": 8, "window": "hamming", "periodic": True, "scaling": "spectrum"},
    [sig], [kr], flat_bins(stft_conv(sig, kr, 2, False)))


# MelSpectrogram: torch.stft (centred, reflected, Keras's periodic window
# of sequence_length centred in fft_length), TensorFlow's mel matrix.
def mel_matrix(mels, bins, rate, lo, hi):
    to_mel = lambda hz: 1127.0 * torch.log(1 + hz / 700.0)
    freqs = torch.linspace(0, rate / 2, bins, dtype=torch.float64)[1:]
    spec_mel = to_mel(freqs).unsqueeze(1)
    edges = torch.linspace(float(to_mel(torch.tensor(lo, dtype=torch.float64))), float(to_mel(torch.tensor(hi, dtype=torch.float64))), mels + 2, dtype=torch.float64)
    lower, center, upper = edges[:-2].unsqueeze(0), edges[1:-1].unsqueeze(0), edges[2:].unsqueeze(0)
    w = torch.clamp(torch.minimum((spec_mel - lower) / (center - lower), (upper - spec_mel) / (upper - center)), min=0)
    return F.pad(w, (0, 0, 1, 0))


def mel_ref(x, fft, stride, seq, rate, mels, lo, hi, db=True, mag_exp=2.0, top_db=80.0, min_power=1e-10, ref=1.0):
    win = torch.hann_window(seq, periodic=True, dtype=torch.float64)
    st = torch.stft(x, fft, hop_length=stride, win_length=seq, window=win, center=True, pad_mode="reflect", return_complex=True)
    spec = st.abs().permute(0, 2, 1) ** mag_exp  # (batch, frames, bins)
    mel = spec @ mel_matrix(mels, fft // 2 + 1, rate, lo, hi)
    if db:
        mel = 10 * torch.log10(torch.clamp(mel, min=min_power)) - 10 * math.log10(max(abs(ref), min_power))
        mel = torch.maximum(mel, mel.max() - top_db)
    return mel.permute(0, 2, 1)


audio = rand(2, 64)
add("MelSpectrogram/db", "MelSpectrogram",
    {"fft_length": 16, "sequence_stride": 8, "sequence_length": 12, "sampling_rate": 8000, "num_mel_bins": 6, "min_freq": 100.0, "max_freq": 3500},
    [audio], [], mel_ref(audio, 16, 8, 12, 8000, 6, 100.0, 3500.0))
add("MelSpectrogram/linearTopDb", "MelSpectrogram",
    {"fft_length": 16, "sequence_stride": 4, "sampling_rate": 4000, "num_mel_bins": 4, "min_freq": 0.0, "power_to_db": False, "mag_exp": 1.0},
    [audio], [], mel_ref(audio, 16, 4, 16, 4000, 4, 0.0, 2000.0, db=False, mag_exp=1.0))

out = os.path.join(os.path.dirname(__file__), "..", "keras", "layers", "testdata", "golden.json")
with open(out, "w") as f:
    json.dump({"generator": "scripts/golden-layers.py, PyTorch " + torch.__version__, "cases": cases}, f)
    f.write("\n")
print("wrote %d cases to %s" % (len(cases), os.path.normpath(out)))
