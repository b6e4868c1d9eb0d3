"""Reads TensorBoard run directories with TensorBoard's own reader, for
keras/tensorboard_test.go.

  python scripts/tensorboard-check.py read <logdir>
      prints, as JSON, every run (train, validation) of <logdir> as
      TensorBoard's EventAccumulator reads it: per tag, its plugin and
      its events (step and value: a scalar's number, a histogram's bucket
      count and total, an image summary's size and PNG count, the Keras
      model summary's class name).
  python scripts/tensorboard-check.py keras <logdir>
      trains Keras 3's equivalent of the Go test's model with
      keras.callbacks.TensorBoard (histogram_freq=1, write_images=True,
      update_freq="batch") into <logdir>, then reads it as `read` does, so
      that the test compares kerasgo's tags with Keras's.
"""
import json
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "jax")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
from tensorboard.backend.event_processing import event_accumulator  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402


def value_of(plugin, tensor):
    a = tensor_util.make_ndarray(tensor)
    if plugin == "scalars":
        return float(a)
    if plugin == "histograms":
        return {"buckets": int(a.shape[0]), "total": float(a[:, 2].sum()), "low": float(a[0, 0]), "high": float(a[-1, 1])}
    if plugin == "images":
        blobs = list(a.ravel())
        return {"width": int(blobs[0]), "height": int(blobs[1]), "pngs": sum(1 for b in blobs[2:] if b.startswith(b"\x89PNG"))}
    if plugin == "graph_keras_model":
        return {"class_name": json.loads(a.item().decode())["class_name"]}
    return None


def read(logdir):
    out = {}
    for run in sorted(os.listdir(logdir)):
        path = os.path.join(logdir, run)
        if not os.path.isdir(path):
            continue
        acc = event_accumulator.EventAccumulator(path, size_guidance={event_accumulator.TENSORS: 0})
        acc.Reload()
        tags = {}
        for tag in acc.Tags()["tensors"]:
            plugin = acc.SummaryMetadata(tag).plugin_data.plugin_name
            tags[tag] = {"plugin": plugin, "events": [[e.step, value_of(plugin, e.tensor_proto)] for e in acc.Tensors(tag)]}
        out[run] = tags
    return out


def keras_run(logdir):
    import keras

    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 3)).astype("float32")
    y = (x[:, 0] > 0).astype("int32")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu", name="dense"),
                              keras.layers.Dense(2, activation="softmax", name="dense_1")])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    tb = keras.callbacks.TensorBoard(logdir, histogram_freq=1, write_images=True, update_freq="batch")
    model.fit(x, y, batch_size=8, epochs=3, validation_data=(x[:16], y[:16]), callbacks=[tb], verbose=0)


if __name__ == "__main__":
    mode, logdir = sys.argv[1], sys.argv[2]
    if mode == "keras":
        keras_run(logdir)
    print(json.dumps(read(logdir)))
