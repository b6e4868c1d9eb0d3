"""Write models in Keras's legacy HDF5 layout (model.save("x.h5")) with
Keras 3 and with tf_keras (Keras 2 on TensorFlow, as tf.keras users have
them), for keras/h5_format_keras_test.go to load in kerasgo.

    KERAS_BACKEND=jax build/keras-env/bin/python scripts/keras-legacy-h5.py DIR

Each model is a Sequential one and a Functional one (a convolution, batch
normalization, pooling, a dense layer, two branches joined by Concatenate)
trained for one epoch on fixed data, so that the weights, the moving
statistics and the optimizer's state are not the initial ones. Writes
DIR/<keras3|tf_keras>_<sequential|functional>.h5 and DIR/index.json:
{FILE: {"x": [...], "x_shape": [...], "predictions": [...],
"predictions_shape": [...], "optimizer": CLASS, "learning_rate": LR,
"loss": LOSS, "step_x", "step_y", "step_loss", "after_step", "iterations"}}:
one more train_on_batch step of the saved model, the loss it logged and
the predictions after it.
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np


def build(k, functional):
    if functional:
        i = k.Input((6, 6, 2), name="image")
        h = k.layers.Conv2D(4, 3, activation="relu", name="conv")(i)
        h = k.layers.BatchNormalization(name="bn")(h)
        h = k.layers.MaxPooling2D(2, name="pool")(h)
        h = k.layers.Flatten(name="flat")(h)
        a = k.layers.Dense(5, activation="tanh", name="left")(h)
        b = k.layers.Dense(3, activation="relu", name="right")(h)
        h = k.layers.Concatenate(name="join")([a, b])
        o = k.layers.Dense(3, activation="softmax", name="out")(h)
        return k.Model(i, o, name="legacy_functional")
    return k.Sequential([
        k.Input((6, 6, 2)),
        k.layers.Conv2D(4, 3, activation="relu", name="conv"),
        k.layers.BatchNormalization(name="bn"),
        k.layers.Flatten(name="flat"),
        k.layers.Dense(3, activation="softmax", name="out"),
    ], name="legacy_sequential")


def main(out):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(16, 6, 6, 2)).astype("float32")
    y = rng.integers(0, 3, size=16)
    index = {}
    makers = {}
    import keras
    makers["keras3"] = keras
    try:
        import tf_keras
        makers["tf_keras"] = tf_keras
    except ImportError:
        print("keras-legacy-h5: tf_keras is not installed; writing Keras 3's files only", file=sys.stderr)
    for name, k in makers.items():
        k.utils.set_random_seed(5)
        for functional in (False, True):
            m = build(k, functional)
            m.compile(optimizer=k.optimizers.Adam(learning_rate=0.01), loss="sparse_categorical_crossentropy", metrics=["accuracy"])
            m.fit(x, y, epochs=1, batch_size=8, verbose=0)
            file = f"{name}_{'functional' if functional else 'sequential'}.h5"
            m.save(os.path.join(out, file))
            p = m.predict(x[:4], verbose=0)
            # One more step of the model as it was saved (weights and
            # optimizer state): its loss, and the predictions after it,
            # which depend on the optimizer's moments and step count. (Keras
            # 3.15's load_model of the .h5 cannot take that step on JAX: its
            # optimizer is built with no variables.)
            iterations = int(np.asarray(m.optimizer.iterations))
            step_loss = m.train_on_batch(x[:8], y[:8], return_dict=True)["loss"]
            after = m.predict(x[:4], verbose=0)
            index[file] = {
                "step_x": x[:8].ravel().tolist(), "step_x_shape": list(x[:8].shape), "step_y": y[:8].astype("float64").tolist(),
                "step_loss": float(step_loss), "after_step": after.astype("float64").ravel().tolist(),
                "iterations": iterations,
                "x": x[:4].ravel().tolist(), "x_shape": list(x[:4].shape),
                "predictions": p.astype("float64").ravel().tolist(), "predictions_shape": list(p.shape),
                "optimizer": type(m.optimizer).__name__, "learning_rate": float(np.asarray(m.optimizer.learning_rate)),
                "loss": "sparse_categorical_crossentropy",
            }
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(index, f)


if __name__ == "__main__":
    main(sys.argv[1])
