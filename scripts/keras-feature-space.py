"""Run Keras's keras.utils.FeatureSpace on structured data made here, for
kerasgo's tests to compare (keras/utils/feature_space_reference_test.go).

    KERAS_BACKEND=jax build/keras-env/bin/python scripts/keras-feature-space.py OUT_DIR

Writes OUT_DIR/index.json: the data's columns (a heart-disease-like table,
as keras.io's "Structured data classification with FeatureSpace" uses,
and a held-out part), and per space its settings as kerasgo spells them
and the output of feature_space(held_out) after feature_space.adapt(data)
on the dict (Keras batches a dict by 32 to adapt), concatenated.
Arrays are {"shape", "data"} (or "ints", "strings").

    KERAS_BACKEND=tensorflow build/keras-env/bin/python scripts/keras-feature-space.py --open MODEL.keras OUT_DIR

loads a model kerasgo saved (raw columns in, FeatureSpace's layers and a
head inside) with keras.saving.load_model and writes its predictions on
the held-out columns of OUT_DIR/index.json to OUT_DIR/opened.json
(TensorFlow's backend: the string layers' values cannot enter JAX).
"""

import json
import os
import sys

import numpy as np

import keras
from keras.utils import FeatureSpace

rng = np.random.default_rng(20261203)


def table(n):
    return {
        "sex": rng.integers(0, 2, n).astype("int32"),
        "cp": rng.integers(0, 4, n).astype("int32"),
        "ca": rng.integers(0, 3, n).astype("int32"),
        "thal": rng.choice(["normal", "fixed", "reversible"], n),
        "city": rng.choice(["a", "b", "c", "d", "e", "f", "g"], n),
        "age": rng.normal(54, 9, n).round().astype("float32"),
        "trestbps": rng.normal(131, 17, n).astype("float32"),
        "chol": rng.normal(246, 51, n).astype("float32"),
        "oldpeak": rng.exponential(1.0, n).astype("float32"),
    }


def listed(a):
    a = np.asarray(a)
    out = {"shape": list(a.shape)}
    if a.dtype.kind in "US":
        out["strings"] = [str(v) for v in a.ravel()]
    elif a.dtype.kind == "i":
        out["ints"] = [int(v) for v in a.ravel()]
    else:
        out["data"] = [float(v) for v in a.astype("float64").ravel()]
    return out


data, held_out = table(203), table(41)
# a city and a code the adapted vocabularies never saw
held_out["city"][0], held_out["cp"][1] = "zz", 9

SPACES = [
    # keras.io's example: integer and string categories without OOV
    # indices, a discretized age, normalized measurements, two crosses
    ("heart", dict(
        features={
            "sex": FeatureSpace.integer_categorical(num_oov_indices=0),
            "ca": FeatureSpace.integer_categorical(num_oov_indices=0),
            "thal": FeatureSpace.string_categorical(num_oov_indices=0),
            "age": FeatureSpace.float_discretized(num_bins=6),
            "trestbps": FeatureSpace.float_normalized(),
            "chol": FeatureSpace.float_normalized(),
        },
        crosses=[FeatureSpace.cross(feature_names=("sex", "age"), crossing_dim=16),
                 FeatureSpace.cross(feature_names=("thal", "ca"), crossing_dim=8)],
        output_mode="concat"), {
        "features": {
            "sex": {"type": "integer_categorical", "no_oov_indices": True},
            "ca": {"type": "integer_categorical", "no_oov_indices": True},
            "thal": {"type": "string_categorical", "no_oov_indices": True},
            "age": {"type": "float_discretized", "num_bins": 6},
            "trestbps": {"type": "float_normalized"},
            "chol": {"type": "float_normalized"},
        },
        "crosses": [{"feature_names": ["sex", "age"], "crossing_dim": 16},
                    {"feature_names": ["thal", "ca"], "crossing_dim": 8}],
    }),
    # the types by name, with the space's defaults (an OOV index, hashing
    # and crossing dimensions), and the options that remain
    ("by_name", dict(
        features={
            "cp": "integer_categorical",
            "city": "string_hashed",
            "ca": "integer_hashed",
            "oldpeak": "float",
            "chol": FeatureSpace.float_rescaled(scale=0.01, offset=-2.0),
            "thal": FeatureSpace.string_categorical(max_tokens=3),
        },
        crosses=[("cp", "city")],
        crossing_dim=12, hashing_dim=5), {
        "features": {
            "cp": {"type": "integer_categorical"},
            "city": {"type": "string_hashed"},
            "ca": {"type": "integer_hashed"},
            "oldpeak": {"type": "float"},
            "chol": {"type": "float_rescaled", "scale": 0.01, "offset": -2.0},
            "thal": {"type": "string_categorical", "max_tokens": 3},
        },
        "crosses": [{"feature_names": ["cp", "city"]}],
        "crossing_dim": 12, "hashing_dim": 5,
    }),
]


def open_model(path, out):
    import tensorflow as tf

    with open(os.path.join(out, "index.json")) as f:
        index = json.load(f)
    model = keras.saving.load_model(path)
    cols = {}
    for inp in model.inputs:
        name = inp.name
        c = index["held_out"][name]
        if "strings" in c:
            v = tf.constant(c["strings"])
        elif "ints" in c:
            v = np.array(c["ints"], dtype="int32")
        else:
            v = np.array(c["data"], dtype="float32")
        cols[name] = tf.reshape(v, (-1, 1))
    pred = model(cols)
    with open(os.path.join(out, "opened.json"), "w") as f:
        json.dump({"keras": keras.__version__, "backend": keras.backend.backend(), "predictions": listed(np.asarray(pred))}, f)


def main():
    if sys.argv[1] == "--open":
        open_model(sys.argv[2], sys.argv[3])
        return
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    spaces = []
    for name, kwargs, go in SPACES:
        fs = FeatureSpace(**kwargs)
        fs.adapt({k: v for k, v in data.items() if k in kwargs["features"]})
        got = fs({k: v for k, v in held_out.items() if k in kwargs["features"]})
        spaces.append({"name": name, "settings": go, "output": listed(np.asarray(got))})
    index = {
        "keras": keras.__version__,
        "data": {k: listed(v) for k, v in data.items()},
        "held_out": {k: listed(v) for k, v in held_out.items()},
        "spaces": spaces,
    }
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(index, f)
    print(f"wrote {len(spaces)} feature spaces to {out}")


if __name__ == "__main__":
    main()
