"""Run Keras's own data loaders (keras.utils) on data made here, for
kerasgo's tests to compare (keras/loaders_reference_test.go).

    KERAS_BACKEND=jax build/keras-env/bin/python scripts/keras-loaders.py OUT_DIR

Writes OUT_DIR/images/<class>/<file> (PNG in RGB, RGBA, grey and palette
modes, GIF, BMP, JPEG without chroma subsampling; several sizes) and
OUT_DIR/index.json:
  datasets: per setting of keras.utils.image_dataset_from_directory
            (format="grain", which reads with PIL and resizes with
            keras.ops.image.resize, no TensorFlow), shuffle=False: the
            options, the class names, the file paths, and every batch's
            images and labels;
  orders:   with shuffle=True and a seed (and a validation split): the
            file paths of each subset, in Keras's order;
  load_img: per file and setting of keras.utils.load_img: the array
            img_to_array gives;
  timeseries: per setting of keras.utils.timeseries_dataset_from_array
            (format="grain", shuffle=False) on one series and targets:
            the options and every batch.
  audio:    per setting of keras.utils.audio_dataset_from_directory
            (shuffle=False) on OUT_DIR/audio/<class>/<file>.wav (16-bit
            PCM, mono, of several lengths): the options and every batch;
  splits:   per setting of keras.utils.split_dataset on (x, y) with y
            the sample ids 0..n-1: the ids of each part, in order.
Arrays are {"shape", "data"}.
"""

import json
import os
import sys

import numpy as np
from PIL import Image
from scipy.io import wavfile

import keras

rng = np.random.default_rng(20261124)


def as_json(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "data": a.astype("float64").ravel().tolist()}


def pixels(h, w, c):
    return rng.integers(0, 256, size=(h, w, c), dtype="uint8")


def make_images(root):
    made = {
        "cats/a_rgb.png": Image.fromarray(pixels(9, 12, 3), "RGB"),
        "cats/b_rgba.png": Image.fromarray(pixels(11, 7, 4), "RGBA"),
        "cats/c_grey.png": Image.fromarray(pixels(8, 8, 1)[:, :, 0], "L"),
        "cats/nested/d_small.bmp": Image.fromarray(pixels(5, 6, 3), "RGB"),
        "dogs/e_palette.png": Image.fromarray(pixels(10, 10, 3), "RGB").quantize(16),
        "dogs/f_anim.gif": Image.fromarray(pixels(7, 9, 3), "RGB").quantize(32),
        "dogs/g_photo.jpg": Image.fromarray(pixels(12, 16, 3), "RGB"),
        "dogs/h_wide.PNG": Image.fromarray(pixels(6, 15, 3), "RGB"),
        "dogs/notes.txt": None,
        "owls/i_tall.png": Image.fromarray(pixels(16, 5, 3), "RGB"),
        "owls/j_rgb.png": Image.fromarray(pixels(10, 11, 3), "RGB"),
    }
    for rel, img in made.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if img is None:
            with open(path, "w") as f:
                f.write("not an image")
        elif rel.endswith(".jpg"):
            img.save(path, quality=95, subsampling=0)
        else:
            img.save(path)
    return [rel for rel, img in made.items() if img is not None]


def main(out):
    root = os.path.join(out, "images")
    files = make_images(root)
    datasets = []
    settings = [
        dict(image_size=(8, 10)),
        dict(image_size=(6, 6), color_mode="grayscale", label_mode="categorical"),
        dict(image_size=(9, 7), color_mode="rgba", interpolation="nearest", batch_size=4),
        dict(image_size=(7, 7), crop_to_aspect_ratio=True, interpolation="bicubic"),
        dict(image_size=(5, 9), pad_to_aspect_ratio=True, interpolation="lanczos3"),
        dict(image_size=(10, 10), class_names=["owls", "cats"], label_mode="int"),
    ]
    for s in settings:
        ds = keras.utils.image_dataset_from_directory(root, format="grain", shuffle=False, verbose=False, **s)
        batches = []
        for x, y in ds:
            batches.append({"x": as_json(x), "y": as_json(y)})
        opts = dict(s)
        opts["image_size"] = list(opts["image_size"])
        datasets.append({"options": opts, "class_names": ds.class_names, "batches": batches})
    orders = []
    for seed in [0, 7, 1337]:
        for split, subset in [(None, None), (0.3, "training"), (0.3, "validation")]:
            ds = keras.utils.image_dataset_from_directory(root, format="grain", seed=seed, validation_split=split,
                                                          subset=subset, verbose=False, image_size=(4, 4))
            orders.append({"seed": seed, "validation_split": split or 0, "subset": subset or "",
                           "file_paths": [os.path.relpath(p, root) for p in ds.file_paths]})
    loads = []
    for rel in files:
        for s in [dict(), dict(color_mode="grayscale"), dict(color_mode="rgba"),
                  dict(target_size=(6, 5)), dict(target_size=(13, 17), interpolation="bilinear"),
                  dict(target_size=(5, 4), interpolation="bicubic"), dict(target_size=(7, 7), interpolation="lanczos"),
                  dict(target_size=(4, 6), interpolation="box"), dict(target_size=(6, 3), interpolation="hamming"),
                  dict(target_size=(5, 5), interpolation="bilinear", keep_aspect_ratio=True),
                  dict(color_mode="rgba", target_size=(6, 7), interpolation="bicubic"),
                  dict(color_mode="grayscale", target_size=(5, 9), interpolation="lanczos")]:
            img = keras.utils.load_img(os.path.join(root, rel), **s)
            opts = dict(s)
            if "target_size" in opts:
                opts["target_size"] = list(opts["target_size"])
            loads.append({"file": rel, "options": opts, "array": as_json(keras.utils.img_to_array(img))})
    series = rng.normal(size=(40, 2)).astype("float32")
    targets = rng.normal(size=(40,)).astype("float32")
    timeseries = []
    for s in [dict(sequence_length=5), dict(sequence_length=4, sequence_stride=3, sampling_rate=2, batch_size=4),
              dict(sequence_length=3, start_index=5, end_index=30, batch_size=7), dict(sequence_length=6, batch_size=5, targets=None)]:
        opts = dict(s)
        t = opts.pop("targets", targets)
        ds = keras.utils.timeseries_dataset_from_array(series, t, format="grain", **opts)
        batches = []
        for b in ds:
            x, y = (b if t is not None else (b, None))
            batches.append({"x": as_json(x), "y": as_json(y) if y is not None else None})
        timeseries.append({"options": opts, "targets": t is not None, "batches": batches})
    audio_root = os.path.join(out, "audio")
    for c, lengths in [("cough", [30, 45, 12]), ("speech", [60, 7, 33, 40])]:
        os.makedirs(os.path.join(audio_root, c))
        for k, n in enumerate(lengths):
            pcm = (rng.uniform(-1, 1, size=(n, 1)) * 32767).astype("int16")
            wavfile.write(os.path.join(audio_root, c, f"{c}_{k}.wav"), 16000, pcm)
    audio = []
    for s in [dict(), dict(batch_size=3), dict(batch_size=2, output_sequence_length=35),
              dict(label_mode="categorical", batch_size=4, output_sequence_length=50), dict(labels=None, batch_size=5)]:
        ds = keras.utils.audio_dataset_from_directory(audio_root, shuffle=False, verbose=False, **s)
        batches = []
        for b in ds.as_numpy_iterator():
            x, y = (b if s.get("labels", "inferred") is not None else (b, None))
            batches.append({"x": as_json(x), "y": as_json(y) if y is not None else None})
        audio.append({"options": s, "no_labels": "labels" in s, "class_names": ds.class_names, "batches": batches})
    splits = []
    for n, s in [(10, dict(left_size=0.8)), (10, dict(right_size=3)), (13, dict(left_size=0.5)),
                 (11, dict(left_size=0.25, right_size=0.5)), (12, dict(left_size=4, right_size=5)),
                 (10, dict(left_size=0.7, shuffle=True, seed=0)), (17, dict(right_size=0.3, shuffle=True, seed=7)),
                 (40, dict(left_size=25, shuffle=True, seed=123456789)), (9, dict(left_size=3, right_size=0.5, shuffle=True, seed=42))]:
        x = np.arange(2 * n, dtype="float32").reshape(n, 2)
        ids = np.arange(n, dtype="float32")
        left, right = keras.utils.split_dataset((x, ids), **s)
        part = lambda ds: [int(y) for _, y in ds.as_numpy_iterator()]
        splits.append({"n": n, "options": s, "left": part(left), "right": part(right)})
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump({"keras": keras.__version__, "datasets": datasets, "orders": orders, "load_img": loads,
                   "series": as_json(series), "targets": as_json(targets), "timeseries": timeseries,
                   "audio": audio, "splits": splits}, f)


if __name__ == "__main__":
    main(sys.argv[1])
