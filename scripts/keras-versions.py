"""Save, with the Keras release on PYTHONPATH (numpy backend), a few
models that use the settings whose saved form changed between Keras 3
releases (the dtype policy object, compile configs with and without an
optimizer or a loss, schedules, initializers with settings, recurrent
and normalisation layers), with their outputs on fixed inputs, for
keras/keras_versions_test.go to load.

    KERAS_BACKEND=numpy PYTHONPATH=build/keras-env/versions/3.4.1 \\
        build/keras-env/bin/python scripts/keras-versions.py OUT_DIR

Writes OUT_DIR/<name>.keras, <name>.json ({"inputs", "outputs"}) and
index.json ({"keras": version, "cases": [names]}).
"""

import json
import os
import sys

import numpy as np

import keras
from keras import layers

rng = np.random.default_rng(31)


def as_json(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "data": a.astype("float64").ravel().tolist()}


def mlp():
    m = keras.Sequential([keras.Input((6,)), layers.Dense(8, activation="relu", kernel_initializer=keras.initializers.RandomNormal(stddev=0.02)),
                          layers.BatchNormalization(), layers.Dropout(0.2), layers.Dense(3, activation="softmax")], name="mlp")
    m.compile(optimizer=keras.optimizers.Adam(keras.optimizers.schedules.ExponentialDecay(0.01, 10, 0.9)),
              loss="categorical_crossentropy", metrics=["accuracy"])
    return m, [rng.normal(size=(4, 6))]


def cnn():
    i = keras.Input((8, 8, 2))
    x = layers.Conv2D(4, 3, padding="same", activation="relu")(i)
    x = layers.MaxPooling2D()(x)
    x = layers.Flatten()(x)
    m = keras.Model(i, layers.Dense(2)(x), name="cnn")
    m.compile(optimizer=keras.optimizers.SGD(0.1, momentum=0.9), loss=keras.losses.MeanSquaredError())
    return m, [rng.normal(size=(3, 8, 8, 2))]


def lstm():
    i = keras.Input((5,), dtype="int32")
    x = layers.Embedding(20, 4)(i)
    x = layers.LSTM(3, return_sequences=True)(x)
    x = layers.GRU(2)(x)
    m = keras.Model(i, layers.Dense(1, activation="sigmoid")(x), name="lstm")
    m.compile(loss="binary_crossentropy")  # no optimizer given: Keras's default
    return m, [rng.integers(0, 20, size=(3, 5))]


def attention():
    q, v = keras.Input((4, 6)), keras.Input((5, 6))
    x = layers.MultiHeadAttention(num_heads=2, key_dim=3)(q, v)
    x = layers.LayerNormalization()(layers.Add()([q, x]))
    m = keras.Model([q, v], layers.GlobalAveragePooling1D()(x), name="attention")  # not compiled
    return m, [rng.normal(size=(2, 4, 6)), rng.normal(size=(2, 5, 6))]


def main(out):
    os.makedirs(out, exist_ok=True)
    names = []
    for build in [mlp, cnn, lstm, attention]:
        keras.utils.clear_session()
        model, inputs = build()
        for w in model.weights:
            v = rng.normal(scale=0.5, size=w.shape)
            if "variance" in w.path:
                v = rng.uniform(0.5, 1.5, size=w.shape)
            w.assign(v.astype("float32"))
        inputs = [x.astype("int32" if x.dtype.kind == "i" else "float32") for x in inputs]
        pred = model.predict(inputs if len(inputs) > 1 else inputs[0], verbose=0)
        model.save(os.path.join(out, model.name + ".keras"))
        with open(os.path.join(out, model.name + ".json"), "w") as f:
            json.dump({"inputs": [as_json(x) for x in inputs], "outputs": [as_json(pred)]}, f)
        names.append(model.name)
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump({"keras": keras.__version__, "cases": names}, f)


if __name__ == "__main__":
    main(sys.argv[1])
