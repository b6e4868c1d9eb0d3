"""Compute, with Keras itself, the random image transforms in training
mode with degenerate ranges (so that the transform is known), for
kerasgo's tests to compare (keras/transforms_reference_test.go).

    KERAS_BACKEND=jax build/keras-env/bin/python scripts/keras-transforms.py OUT_DIR

Writes OUT_DIR/index.json: {"keras": version, "cases": [{"name", "class",
"config", "input", "output"}]}, arrays as {"shape", "data"}. Each case is
layer(x, training=True) for a layer whose random range is one value
(factor=(f, f)), on every fill mode and interpolation Keras takes.
"""

import json
import os
import sys

import numpy as np

import keras
from keras import layers

rng = np.random.default_rng(20261124)


def as_json(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "data": a.astype("float64").ravel().tolist()}


def main(out):
    os.makedirs(out, exist_ok=True)
    x = rng.uniform(0, 1, size=(2, 5, 7, 2)).astype("float32")
    cases = []
    for fill in ["reflect", "wrap", "constant", "nearest"]:
        for interp in ["bilinear", "nearest"]:
            common = dict(fill_mode=fill, interpolation=interp, fill_value=0.25)
            made = {
                "rotation": layers.RandomRotation((0.07, 0.07), **common),
                "rotation_half_turn": layers.RandomRotation((-0.5, -0.5), **common),
                "zoom_out": layers.RandomZoom((0.4, 0.4), **common),
                "zoom_in_width": layers.RandomZoom((-0.3, -0.3), width_factor=(0.2, 0.2), **common),
                "translation": layers.RandomTranslation((0.3, 0.3), (-0.45, -0.45), **common),
                "translation_far": layers.RandomTranslation((-0.9, -0.9), (0.8, 0.8), **common),
            }
            for name, layer in made.items():
                y = layer(x, training=True)
                cases.append({"name": f"{name}_{fill}_{interp}", "class": type(layer).__name__,
                              "config": layer.get_config(), "input": as_json(x), "output": as_json(y)})
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump({"keras": keras.__version__, "cases": cases}, f)


if __name__ == "__main__":
    main(sys.argv[1])
