"""Open, with Keras itself, the files kerasgo wrote, and report what Keras
computes from them (keras/keras_open_test.go compares it with kerasgo).

    KERAS_BACKEND=jax build/keras-env/bin/python scripts/keras-open.py DIR

DIR/requests.json lists the files:
  {"predict": [{"name", "keras", "inputs": [array...]}],
   "train":   [{"name", "keras", "weights_h5", "safetensors",
                "batches": [{"x": [array per input], "y": array}, ...]}]}
with arrays as {"shape", "data"}. Writes DIR/results.json:
  predict: per file, the outputs of keras.saving.load_model(file).predict
           and its summary (each layer's name, output shape, parameters);
  train:   per file, the loss of train_on_batch on each batch in turn
           (continuing from the optimizer state kerasgo saved) and the
           weights after; the weights after load_weights(weights_h5) into
           the loaded model; and every tensor of the .safetensors file
           that differs from the .weights.h5 dataset of the same name.
An error opening or running a file is reported as its "error".
"""

import json
import os
import sys

import h5py
import numpy as np
from safetensors.numpy import load_file

import keras


def array(a):
    return np.asarray(a["data"], dtype="float32").reshape(a["shape"])


def as_json(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "data": a.astype("float64").ravel().tolist()}


def shape_text(shape):
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ")"


def summary(model):
    rows = []
    for layer in model.layers:
        # As model.summary() (summary_utils.format_layer_shape): a layer
        # called more than once shows its last call's output.
        out = layer.output
        if len(layer._inbound_nodes) > 1:
            out = layer._inbound_nodes[-1].output_tensors
            out = out[0] if len(out) == 1 else out
        if isinstance(out, (list, tuple)):
            shape = "[" + ", ".join(shape_text(o.shape) for o in out) + "]"
        else:
            shape = shape_text(out.shape)
        rows.append({"name": layer.name, "class": type(layer).__name__, "shape": shape, "params": layer.count_params()})
    return {"rows": rows, "total": model.count_params()}


def double_plus_one(x):
    """The catalogue's named Lambda function (scripts/keras-catalogue.py)."""
    return x * 2.0 + 1.0


class MLPBlock(keras.layers.Layer):
    """The MLPBlock of Keras's guide "Making new layers and models via
    subclassing", as keras/sublayers_test.go writes it in Go: a layer
    holding three Dense layers in its attributes."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.linear_1 = keras.layers.Dense(32)
        self.linear_2 = keras.layers.Dense(32)
        self.linear_3 = keras.layers.Dense(3)

    def build(self, input_shape):
        self.linear_1.build(input_shape)
        self.linear_2.build((None, 32))
        self.linear_3.build((None, 32))

    def call(self, x):
        x = keras.activations.relu(self.linear_1(x))
        x = keras.activations.relu(self.linear_2(x))
        return keras.activations.softmax(self.linear_3(x))

    def compute_output_shape(self, input_shape):
        return input_shape[:-1] + (3,)


def predict(req):
    # safe_mode=False: the catalogue's Python lambda comes back as Keras
    # wrote it (kerasgo keeps a Lambda's function object), and Keras
    # deserializes lambdas only when told the file is trusted.
    model = keras.saving.load_model(req["keras"], safe_mode=False, custom_objects={"double_plus_one": double_plus_one, "MLPBlock": MLPBlock})
    xs = [array(a) for a in req["inputs"]]
    pred = model.predict(xs if len(xs) > 1 else xs[0], verbose=0)
    outs = list(pred) if isinstance(pred, (list, tuple)) else [pred]  # a tuple for a layer with two outputs
    return {"outputs": [as_json(o) for o in outs], "summary": summary(model)}


def train(req):
    model = keras.saving.load_model(req["keras"])
    losses = []
    for b in req["batches"]:
        x = [array(a) for a in b["x"]]  # one array per input
        logs = model.train_on_batch(x[0] if len(x) == 1 else x, array(b["y"]), return_dict=True)
        losses.append(float(logs["loss"]))
    result = {"losses": losses, "weights": [as_json(w) for w in model.get_weights()],
              "iterations": int(model.optimizer._iterations.numpy())}
    fresh = keras.saving.load_model(req["keras"])
    fresh.load_weights(req["weights_h5"])
    result["h5_weights"] = [as_json(w) for w in fresh.get_weights()]
    tensors = load_file(req["safetensors"])
    differ = []
    with h5py.File(req["weights_h5"], "r") as f:
        names = []
        f["layers"].visititems(lambda n, o: names.append("layers/" + n) if isinstance(o, h5py.Dataset) else None)
        for n in names:
            if n not in tensors or not np.array_equal(tensors[n], f[n][()]):
                differ.append(n)
        differ += sorted(set(tensors) - set(names))
        result["safetensors_checked"] = len(names)
    result["safetensors_differ"] = differ
    return result


def run(fn, reqs):
    out = {}
    for req in reqs:
        keras.utils.clear_session()
        try:
            out[req["name"]] = fn(req)
        except Exception as e:  # reported to the Go test, which fails with it
            # Keras nests the cause at the end of its message.
            lines = [l.strip() for l in str(e).splitlines() if l.strip()]
            out[req["name"]] = {"error": f"{type(e).__name__}: {lines[-1] if lines else ''}"}
    return out


def main(d):
    with open(os.path.join(d, "requests.json")) as f:
        requests = json.load(f)
    results = {"keras": keras.__version__,
               "predict": run(predict, requests.get("predict", [])),
               "train": run(train, requests.get("train", []))}
    with open(os.path.join(d, "results.json"), "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main(sys.argv[1])
