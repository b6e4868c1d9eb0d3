"""Writes internal/npy/testdata: small files in the formats Keras's
dataset loaders read, written by NumPy itself (a numeric .npz, an .npz of
object arrays as IMDB's, a pickled dict of arrays as CIFAR's batches, and
a pickle naming a class Keras refuses).

  build/keras-env/bin/python scripts/npy-fixtures.py
"""
import os
import pickle

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "internal", "npy", "testdata")
os.makedirs(OUT, exist_ok=True)
np.savez(os.path.join(OUT, "numeric.npz"), x=np.array([[1.5, -2.0], [3.25, 4.0], [0.0, -1e-3]]), y=np.array([7, -8, 9], dtype="int64"),
         u=np.array([[0, 255], [3, 4]], dtype="uint8"), f=np.array([0.5, 2.5], dtype=">f4"))
x = np.empty(3, dtype="object")
x[0], x[1], x[2] = [1, 14, 22], [1, 5], list(range(1, 40))
np.savez(os.path.join(OUT, "objects.npz"), x=x, y=np.array([1, 0, 1]))
with open(os.path.join(OUT, "batch.pickle"), "wb") as f:
    pickle.dump({b"data": np.arange(24, dtype="uint8").reshape(2, 12), b"labels": [3, 1], b"batch_label": b"testing batch 1 of 1"}, f, protocol=4)


class Evil:  # a class Keras's RestrictedUnpickler refuses
    pass


with open(os.path.join(OUT, "refused.pickle"), "wb") as f:
    pickle.dump({"x": Evil()}, f, protocol=4)
print("wrote", sorted(os.listdir(OUT)))
