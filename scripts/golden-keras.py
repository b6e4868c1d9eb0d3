"""Keras's own values for the layer, loss and metric golden files.

scripts/golden-{layers,losses,metrics}.py write each golden file's cases
(inputs, weights, settings) with PyTorch's values, an independent check.
This script computes every case again with Keras 3 itself (JAX backend,
float64) and stores Keras's result beside PyTorch's, under "keras":

  layers:  {"output": ..., "states": [...], "moving_mean": ..., "moving_variance": ...}
  losses:  {"value": ...}
  metrics: {"value": ...}

The Go golden tests compare kerasgo with Keras's values first and
PyTorch's second. With --check it writes nothing and fails when a stored
Keras value is not what this Keras computes, within a few float32 ulps
(CHECK_TOLERANCE: the last bits depend on the CPU) (the Go tests run it
so, with the environment `make keras-env` installs).

Run (after the PyTorch scripts):
  build/keras-env/bin/python scripts/golden-keras.py [--check] [layers] [losses] [metrics]
"""
import copy
import json
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "jax")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ["JAX_ENABLE_X64"] = "1"

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras.src.backend.common.masking import set_keras_mask  # noqa: E402
from keras.src.losses.losses import LossFunctionWrapper  # noqa: E402  (what compile wraps a loss function in)

keras.config.set_floatx("float64")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
FILES = {
    "layers": "keras/layers/testdata/golden.json",
    "losses": "keras/losses/testdata/golden.json",
    "metrics": "keras/metrics/testdata/golden.json",
}
# How far a stored Keras value may be from what Keras computes now before
# --check calls the file stale. On one machine Keras's values are
# reproducible to the bit, but the last bits of float32 reductions depend
# on the CPU XLA compiles for: MultiHeadAttention's (through
# jax.nn.dot_product_attention) differed by up to 3.8e-7 between the
# machine that wrote the file and an AMD EPYC one, and LayerNormalization,
# GroupNormalization and BatchNormalization's by up to 2.4e-7 on an Intel
# Xeon (2026-11-28). So every case gets 1e-6 (relative, as worst measures
# it: a few float32 ulps), the Go tests' own tolerance against Keras in
# float64; a stale file differs by far more.
CHECK_TOLERANCE = 1e-6
MERGE = {"Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate", "Dot"}
ATTENTION = {"Attention", "AdditiveAttention"}
# Layers Keras computes partly in float32 whatever the dtype: their
# float64 results are compared as float32 ones. MelSpectrogram builds its
# mel filter bank in float32 (linear_to_mel_weight_matrix's dtype).
FLOAT32_INSIDE = {"MelSpectrogram"}


def array(a, dtype="float64"):
    return np.asarray(a["data"], dtype=dtype).reshape(a["shape"])


def listed(x):
    return {"shape": list(x.shape), "data": [float(v) for v in np.asarray(x, dtype="float64").ravel()]}


def layer_case(c):
    """The case computed by Keras in float64, or, where Keras 3.15 cannot
    compute a layer in float64 on JAX (SimpleRNN's scan mixes float32
    into its carry), in float32, its default; the result says which."""
    try:
        return layer_case_in(c, "float64")
    except TypeError as e:
        if "float32" not in str(e):
            raise
        return layer_case_in(c, "float32")


def layer_case_in(c, dtype):
    keras.config.set_floatx(dtype)
    config = dict(copy.deepcopy(c["config"]), dtype=dtype)  # Keras's from_config pops nested configs (cells) in place
    if "layer" in config:  # wrappers: the inner layer computes in the same dtype
        config["layer"] = dict(config["layer"], config=dict(config["layer"]["config"], dtype=dtype))
    if c["class"] == "Pipeline":  # it takes no dtype; its layers compute in it
        del config["dtype"]
        config["layers"] = [dict(sub, config=dict(sub["config"], dtype=dtype)) for sub in config["layers"]]
    layer = keras.layers.deserialize({"module": "keras.layers", "class_name": c["class"], "config": config})
    no_grad = set(c.get("no_grad_inputs") or [])
    inputs = [array(a, "int32" if i in no_grad else dtype) for i, a in enumerate(c["inputs"])]
    masks = [None if m is None else array(m).astype(bool) for m in (c.get("masks") or [])]
    kwargs = dict(c.get("call") or {})

    def call(training, xs=inputs):
        if c["class"] in MERGE:
            xs = list(xs)
            for i, m in enumerate(masks):  # Keras's merge layers read each input's _keras_mask
                if m is not None:
                    xs[i] = keras.ops.convert_to_tensor(xs[i])
                    set_keras_mask(xs[i], m)
            return layer(xs)
        if c["class"] in ATTENTION:
            if masks:
                kwargs["mask"] = masks[:2] if len(masks) >= 2 else [masks[0], None]
            return layer(list(xs), training=training, **kwargs)
        if c["class"] in ("MultiHeadAttention", "GroupQueryAttention"):  # query, value[, key[, attention mask]]
            for name, m in zip(["query_mask", "value_mask", "key_mask"], masks):
                if m is not None:
                    kwargs[name] = m
            if len(xs) == 4:
                kwargs["attention_mask"] = np.asarray(xs[3]).astype(bool)
            xs = list(xs[:3])
            if masks and masks[0] is not None:
                # Keras takes the query's mask from the query tensor alone
                # (its _keras_mask, which the call then clears), never from
                # the query_mask argument.
                xs[0] = keras.ops.convert_to_tensor(xs[0])
                set_keras_mask(xs[0], masks[0])
            return layer(*xs, training=training, **kwargs)
        if len(xs) > 1:  # a recurrent layer's initial states
            kwargs["initial_state"] = list(xs[1:])
        if masks and masks[0] is not None:
            kwargs["mask"] = masks[0]
        return layer(xs[0], training=training, **kwargs)

    call(False)  # builds the layer
    layer.set_weights([array(w) for w in c["weights"]])
    out = call(c["training"])
    states = []
    if c.get("states"):
        out, states = out[0], out[1:]
    result = {"dtype": dtype, "output": listed(out)}
    if c["class"] in FLOAT32_INSIDE:
        result["dtype"] = "float32"
    if states:
        result["states"] = [listed(s) for s in states]
    if c.get("moving_mean"):
        layer.set_weights([array(w) for w in c["weights"]])
        for batch in c["steps"]:
            call(True, [array(batch, dtype)])
        result["moving_mean"] = listed(layer.moving_mean)
        result["moving_variance"] = listed(layer.moving_variance)
    return result


def keras_loss(spec):
    """The loss a name or class object denotes, as keras.losses.get reads
    it; the losses Keras 3.15 exports but leaves out of get's table
    (CategoricalGeneralizedCrossEntropy: keras.losses.get and
    deserialize refuse it) are built from keras.losses directly."""
    try:
        return keras.losses.get(spec)
    except ValueError:
        if isinstance(spec, dict) and hasattr(keras.losses, spec["class_name"]):
            return getattr(keras.losses, spec["class_name"])(**spec["config"])
        if isinstance(spec, str) and hasattr(keras.losses, spec):
            return getattr(keras.losses, spec)
        raise


def loss_case(c):
    loss = keras_loss(c["loss"])
    if not isinstance(loss, keras.losses.Loss):
        loss = LossFunctionWrapper(loss)
    return {"value": float(loss(array(c["y_true"]), array(c["y_pred"])))}


def metric_case(c):
    metric = keras.metrics.get(c["metric"])
    if not isinstance(metric, keras.metrics.Metric):
        metric = keras.metrics.MeanMetricWrapper(metric, dtype="float64")
    y, p = array(c["y_true"]), array(c["y_pred"])
    for lo, hi in [(0, 7), (7, 12)]:  # two batches, as the Go test runs them
        metric.update_state(y[lo:hi], p[lo:hi])
    return {"value": float(metric.result())}


COMPUTE = {"layers": layer_case, "losses": loss_case, "metrics": metric_case}


def worst(a, b):
    """The largest difference between two results, relative to max(1, |b|)."""
    if isinstance(a, dict) and "data" in a:
        if a["shape"] != b["shape"]:
            return float("inf")
        x, y = np.asarray(a["data"]), np.asarray(b["data"])
        return float(np.max(np.abs(x - y) / np.maximum(1, np.abs(y)), initial=0))
    if isinstance(a, dict) and "error" in a:
        return 0 if a == b else float("inf")
    if isinstance(a, dict):
        if a.keys() != b.keys():
            return float("inf")
        return max(worst(a[k], b[k]) for k in a)
    if isinstance(a, str):
        return 0 if a == b else float("inf")
    if isinstance(a, list):
        if len(a) != len(b):
            return float("inf")
        return max((worst(x, y) for x, y in zip(a, b)), default=0)
    return abs(a - b) / max(1, abs(b))


def torch_value(kind, c):
    if kind != "layers":
        return {"value": c["value"]}
    t = {"dtype": c["keras"]["dtype"], "output": c["output"]}
    if c.get("states"):
        t["states"] = c["states"]
    if c.get("moving_mean"):
        t["moving_mean"], t["moving_variance"] = c["moving_mean"], c["moving_variance"]
    return t


def main(args):
    check = "--check" in args
    kinds = [a for a in args if not a.startswith("--")] or list(FILES)
    failed = False
    for kind in kinds:
        path = os.path.join(ROOT, FILES[kind])
        with open(path) as f:
            golden = json.load(f)
        far = []
        for c in golden["cases"]:
            try:
                k = COMPUTE[kind](c)
            except Exception as e:  # recorded: the Go tests then have PyTorch's value alone
                k = {"error": "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")}
            if check:
                if "keras" not in c or worst(c["keras"], k) > CHECK_TOLERANCE:
                    print("%s %s: Keras now computes %s, the file holds %s" % (kind, c["name"], k, c.get("keras")))
                    failed = True
                continue
            c["keras"] = k
            if "error" in k:
                far.append((c["name"], k["error"]))
                continue
            d = worst(torch_value(kind, c), k)
            if d > 1e-9:
                far.append((c["name"], "Keras and PyTorch differ by %.3g" % d))
        if check:
            print("%s: %d cases checked against Keras %s" % (kind, len(golden["cases"]), keras.__version__))
            continue
        golden["keras_generator"] = "scripts/golden-keras.py, Keras %s (JAX %s, float64)" % (
            keras.__version__, __import__("jax").__version__)
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(golden, f)
            f.write("\n")
        os.replace(tmp, path)
        print("%s: Keras's values for %d cases written to %s" % (kind, len(golden["cases"]), FILES[kind]))
        for name, what in far:
            print("  %s: %s" % (name, what))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
