"""Keras's dataset loaders on small files in their formats, for
datasets/datasets_keras_test.go.

  python scripts/keras-datasets.py <keras_home>

writes <keras_home>/datasets as Keras's cache holds each dataset
(boston_housing.npz, california_housing.npz, imdb.npz and its word
index, reuters.npz and its word index, CIFAR-10's and CIFAR-100's
archives of pickled batches), all made up and small, then runs Keras 3's
load_data on them (its hash check skipped: the files are not Keras's
downloads) with several settings, and prints every result as JSON.
(CIFAR-10's loader sizes its batches at 10,000 images, so its batches
go through Keras's own load_batch and are put together as load_data
does.)
"""
import io
import json
import os
import pickle
import sys
import tarfile

home = sys.argv[1]
os.environ["KERAS_HOME"] = home
os.environ.setdefault("KERAS_BACKEND", "jax")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402
import keras  # noqa: E402
from keras.src.utils import file_utils  # noqa: E402

file_utils.validate_file = lambda *a, **k: True  # made-up files: no hash to match
data = os.path.join(home, "datasets")
os.makedirs(data, exist_ok=True)
rng = np.random.default_rng(3)
np.savez(os.path.join(data, "boston_housing.npz"), x=rng.normal(size=(23, 13)), y=rng.uniform(5, 50, size=23))
np.savez(os.path.join(data, "california_housing.npz"), x=rng.normal(size=(610, 8)).astype("float32"), y=rng.uniform(size=610).astype("float32"))


def seqs(n, top):
    a = np.empty(n, dtype="object")
    for i in range(n):
        a[i] = [int(v) for v in rng.integers(1, top, size=int(rng.integers(2, 12)))]
    return a


np.savez(os.path.join(data, "imdb.npz"), x_train=seqs(14, 40), y_train=rng.integers(0, 2, 14), x_test=seqs(9, 40), y_test=rng.integers(0, 2, 9))
np.savez(os.path.join(data, "reuters.npz"), x=seqs(17, 60), y=rng.integers(0, 46, 17))
for name in ["imdb_word_index.json", "reuters_word_index.json"]:
    with open(os.path.join(data, name), "w") as f:
        json.dump({"the": 1, "and": 2, "film": 17}, f)


def batch(n, label_keys):
    d = {b"data": rng.integers(0, 256, size=(n, 3072)).astype("uint8"), b"batch_label": b"made up"}
    for k, top in label_keys:
        d[k] = [int(v) for v in rng.integers(0, top, size=n)]
    return pickle.dumps(d, protocol=3)


def archive(name, members):
    with tarfile.open(os.path.join(data, name + "_archive"), "w:gz") as t:
        for path, blob in members.items():
            info = tarfile.TarInfo(path)
            info.size = len(blob)
            t.addfile(info, io.BytesIO(blob))


archive("cifar-10-batches-py-target", {f"cifar-10-batches-py/data_batch_{i}": batch(3, [(b"labels", 10)]) for i in range(1, 6)}
        | {"cifar-10-batches-py/test_batch": batch(2, [(b"labels", 10)])})
labels100 = [(b"fine_labels", 100), (b"coarse_labels", 20)]
archive("cifar-100-python-target", {"cifar-100-python/train": batch(4, labels100), "cifar-100-python/test": batch(3, labels100)})


def listed(a):
    a = np.asarray(a)
    if a.dtype == object:
        return [[int(v) for v in s] for s in a]
    return {"shape": list(a.shape), "data": [float(v) for v in a.ravel()]}


def both(r):
    (xt, yt), (xs, ys) = r
    return [listed(xt), listed(yt), listed(xs), listed(ys)]


def cifar10():
    """Keras's cifar10.load_data, whose batches it sizes at 10,000 images:
    its own load_batch on each made-up batch, put together as it does."""
    from keras.src.datasets.cifar import load_batch

    path = os.path.join(keras.utils.get_file("cifar-10-batches-py-target", origin="https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz",
                                             extract=True, file_hash="0" * 64), "cifar-10-batches-py")
    parts = [load_batch(os.path.join(path, f"data_batch_{i}")) for i in range(1, 6)]
    x_train = np.concatenate([p[0] for p in parts]).astype("uint8")
    y_train = np.concatenate([np.asarray(p[1]) for p in parts]).astype("uint8")
    x_test, y_test = load_batch(os.path.join(path, "test_batch"))
    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(y_test, (len(y_test), 1))
    return (x_train.transpose(0, 2, 3, 1), y_train), (x_test.transpose(0, 2, 3, 1), y_test)


D = keras.datasets
out = {
    "boston": both(D.boston_housing.load_data()),
    "boston_split": both(D.boston_housing.load_data(test_split=0.3, seed=7)),
    "california": both(D.california_housing.load_data()),
    "california_small": both(D.california_housing.load_data(version="small", test_split=0.1)),
    "imdb": both(D.imdb.load_data()),
    "imdb_words": both(D.imdb.load_data(num_words=20, skip_top=2, maxlen=9, seed=5)),
    "imdb_no_oov": both(D.imdb.load_data(num_words=25, oov_char=None, start_char=None, index_from=0)),
    "reuters": both(D.reuters.load_data()),
    "reuters_split": both(D.reuters.load_data(test_split=0.4, num_words=30, maxlen=8)),
    "cifar10": both(cifar10()),
    "cifar100": both(D.cifar100.load_data()),
    "cifar100_coarse": both(D.cifar100.load_data(label_mode="coarse")),
    "imdb_word_index": D.imdb.get_word_index(),
    "reuters_labels": list(D.reuters.get_label_names()),
}
print(json.dumps(out))
