"""Predict with and train, with Keras itself, small models under the
mixed_bfloat16 dtype policy, and the same models under float32, and
record what kerasgo must reproduce (keras/mixed_precision_test.go): the
model as saved before training (.keras, compiled, with its initial
weights and its layers' policies), the data, the predictions and the
weights after training, under both policies. The float32 run says how
far bfloat16's rounding moves Keras's numbers, so that a test can tell
a bfloat16 computation from a float32 one.

    KERAS_BACKEND=jax build/keras-env/bin/python scripts/keras-mixed-precision.py OUT_DIR

Writes OUT_DIR/<name>.keras, <name>.json and index.json. Every case
takes one step, then trains 2 epochs of 4 batches of 8 samples,
unshuffled. As Keras's mixed
precision guide advises, the last layer (the logits) is float32.
"""

import json
import os
import sys

# XLA keeps a value in float32 where a fused computation lets it (a
# bfloat16 tanh's result, fed to a float32 layer, is never rounded):
# without this flag Keras on JAX rounds less than its policy says, and
# less than Keras on PyTorch or TensorFlow does.
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_allow_excess_precision=false").strip()

import numpy as np

import keras
from keras import layers, optimizers

rng = np.random.default_rng(2026120601)

SAMPLES, BATCH, EPOCHS, CLASSES = 32, 8, 2, 4


def as_json(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "data": a.astype("float64").ravel().tolist()}


def mlp(policy):
    x = keras.Input((16,))
    h = layers.Dense(64, activation="relu", dtype=policy)(x)
    h = layers.Dense(64, activation="tanh", dtype=policy)(h)
    return x, layers.Dense(CLASSES, dtype="float32")(h)


def conv(policy):
    x = keras.Input((8, 8, 3))
    h = layers.Conv2D(16, 3, padding="same", activation="relu", dtype=policy)(x)
    h = layers.Conv2D(16, 3, activation="relu", dtype=policy)(h)
    h = layers.Flatten(dtype=policy)(h)
    return x, layers.Dense(CLASSES, dtype="float32")(h)


def norm(policy):
    # Keras's normalization layers compute in float32 under a mixed
    # policy and round only their outputs to bfloat16.
    x = keras.Input((16,))
    h = layers.Dense(32, dtype=policy)(x)
    h = layers.BatchNormalization(dtype=policy)(h)
    h = layers.Activation("relu", dtype=policy)(h)
    h = layers.Dense(32, dtype=policy)(h)
    h = layers.LayerNormalization(dtype=policy)(h)
    h = layers.Dense(32, dtype=policy)(h)
    h = layers.GroupNormalization(4, dtype=policy)(h)
    h = layers.RMSNormalization(dtype=policy)(h)
    return x, layers.Dense(CLASSES, dtype="float32")(h)


CASES = {"mlp": ((16,), mlp), "conv": ((8, 8, 3), conv), "norm": ((16,), norm)}


def run(name, body, weights, x, y, policy, out=None):
    """Builds the model under policy with weights, saves it to out (if
    given), and returns its predictions of x and its weights after
    training on (x, y)."""
    keras.utils.clear_session()
    inp, logits = body(policy)
    model = keras.Model(inp, logits, name=name)
    model.set_weights(weights)
    model.compile(optimizer=optimizers.SGD(0.1), loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    if out is not None:
        model.save(out)
        model = keras.saving.load_model(out)
    pred = model.predict(x, batch_size=BATCH, verbose=0)
    model.train_on_batch(x[:BATCH], y[:BATCH])
    step = model.get_weights()
    history = model.fit(x, y, batch_size=BATCH, epochs=EPOCHS, shuffle=False, verbose=0)
    return pred, step, model.get_weights(), history.history["loss"]


def main(out):
    os.makedirs(out, exist_ok=True)
    index = []
    for name, (sample, body) in CASES.items():
        keras.utils.clear_session()
        inp, logits = body("float32")
        # Glorot-like scales, so that the logits stay of order one; a
        # moving variance positive, a normalization's scale near one.
        weights = [(rng.uniform(0.5, 1.5, size=w.shape) if "variance" in w.path else
                    1 + rng.normal(scale=0.1, size=w.shape) if "gamma" in w.path else
                    rng.normal(scale=1 / np.sqrt(np.prod(w.shape[:-1])) if len(w.shape) > 1 else 0.1, size=w.shape)).astype("float32")
                   for w in keras.Model(inp, logits).weights]
        x = rng.normal(size=(SAMPLES, *sample)).astype("float32")
        y = rng.integers(0, CLASSES, size=(SAMPLES,)).astype("float32")
        pred, step, final, loss = run(name, body, weights, x, y, "mixed_bfloat16", os.path.join(out, name + ".keras"))
        pred32, step32, final32, loss32 = run(name, body, weights, x, y, "float32")
        record = {"x": as_json(x), "y": as_json(y),
                  "predictions": as_json(pred), "step_weights": [as_json(w) for w in step],
                  "final_weights": [as_json(w) for w in final], "losses": loss,
                  "float32_predictions": as_json(pred32), "float32_step_weights": [as_json(w) for w in step32],
                  "float32_final_weights": [as_json(w) for w in final32], "float32_losses": loss32}
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(record, f)
        index.append(name)
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump({"keras": keras.__version__, "batch_size": BATCH, "epochs": EPOCHS, "cases": index}, f)


if __name__ == "__main__":
    main(sys.argv[1])
