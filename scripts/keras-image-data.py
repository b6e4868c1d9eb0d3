"""Run Keras's image preprocessing layers on images with bounding boxes
and labels (Keras's {"images", "bounding_boxes": {"boxes", "labels"}}
dicts), for kerasgo's tests to compare
(keras/image_augmenter_reference_test.go).

    KERAS_BACKEND=jax build/keras-env/bin/python scripts/keras-image-data.py OUT_DIR

Writes OUT_DIR/index.json: {"keras": version, "cases": [{"name", "layer"
(keras.layers.serialize of the layer), "inputs": [images, boxes,
labels], "outputs": [images, boxes, labels]}]}, arrays as {"shape",
"data"}. The random layers get ranges of one value (a translation of
exactly 3 pixels), so that Keras's draw is kerasgo's; RandomFlip's two
outcomes come from Keras's own transform_bounding_boxes with every
image flipped and with none ("outputs" and "unflipped").
"""
import json
import os
import sys

import numpy as np

import keras
from keras import layers
from keras.utils import bounding_boxes as bb

rng = np.random.default_rng(20261204)
CASES = []


def listed(a):
    a = np.asarray(a, dtype="float64")
    return {"shape": list(a.shape), "data": [float(v) for v in a.ravel()]}


def data(n=3, h=24, w=32, boxes=4):
    """Images, xyxy boxes (some reaching outside, one padding box of -1s)
    and integer labels."""
    images = rng.uniform(0, 255, (n, h, w, 3)).astype("float32")
    x1 = rng.uniform(-4, w - 6, (n, boxes))
    y1 = rng.uniform(-4, h - 6, (n, boxes))
    xyxy = np.stack([x1, y1, x1 + rng.uniform(2, 14, (n, boxes)), y1 + rng.uniform(2, 10, (n, boxes))], -1).astype("float32")
    labels = rng.integers(0, 5, (n, boxes)).astype("float32")
    xyxy[-1, -1] = -1
    labels[-1, -1] = -1
    return images, xyxy, labels


def run(layer, images, boxes, labels, training=True):
    out = layer({"images": images, "bounding_boxes": {"boxes": boxes, "labels": labels}}, training=training)
    return [out["images"], out["bounding_boxes"]["boxes"], out["bounding_boxes"]["labels"]]


def C(name, layer, images, xyxy, labels, fmt, **extra):
    h, w = images.shape[1], images.shape[2]
    boxes = np.asarray(bb.convert_format(xyxy, "xyxy", fmt, height=h, width=w)) if fmt != "xyxy" else xyxy
    case = {"name": name, "layer": keras.layers.serialize(layer), "inputs": [listed(images), listed(boxes), listed(labels)]}
    case["outputs"] = [listed(np.asarray(o)) for o in run(layer, images, boxes.copy(), labels.copy())]
    case.update(extra)
    CASES.append(case)


images, xyxy, labels = data()
for fmt in ["xyxy", "rel_xyxy", "center_xywh", "yxyx"]:
    C(f"RandomTranslation/{fmt}", layers.RandomTranslation((0.125, 0.125), (-0.0625, -0.0625), fill_mode="constant", bounding_box_format=fmt), images, xyxy, labels, fmt)
for f in [0.25, 0.1, -0.05]:
    C(f"RandomRotation/{f}", layers.RandomRotation((f, f), bounding_box_format="xyxy"), images, xyxy, labels, "xyxy")
for z, fmt in [((-0.25, -0.25), "xyxy"), ((0.5, 0.5), "xyxy"), ((-0.2, -0.2), "center_xywh")]:
    C(f"RandomZoom/{z[0]}/{fmt}", layers.RandomZoom(z, (0.125, 0.125), fill_mode="constant", bounding_box_format=fmt), images, xyxy, labels, fmt)
C("RandomZoom/keep_aspect", layers.RandomZoom((0.3, 0.3), fill_mode="constant", bounding_box_format="xyxy"), images, xyxy, labels, "xyxy")
# RandomShear draws a sign per image as well: the shears are the range's one
# value times it. A batch of one image per sign is run until each is seen.
square = data(n=1, h=24, w=24)
for sx, sy, fmt in [(0.2, 0.0, "xyxy"), (0.0, 0.3, "xyxy"), (0.15, 0.25, "rel_xywh")]:
    shear = layers.RandomShear((sx, sx), (sy, sy), fill_mode="constant", bounding_box_format=fmt)
    h, w = 24, 24
    boxes = np.asarray(bb.convert_format(square[1], "xyxy", fmt, height=h, width=w)) if fmt != "xyxy" else square[1]
    outcome = {}
    for sign in [1.0, -1.0]:
        t = {"shear_factor": np.array([[sx * sign, sy * sign]], "float32"), "input_shape": square[0].shape}
        r = shear.transform_bounding_boxes({"boxes": boxes.copy(), "labels": square[2].copy()}, t, training=True)
        outcome[sign] = [listed(np.asarray(shear.transform_images(square[0], t, training=True))), listed(np.asarray(r["boxes"])), listed(np.asarray(r["labels"]))]
    CASES.append({"name": f"RandomShear/{sx}/{sy}/{fmt}", "layer": keras.layers.serialize(shear),
                  "inputs": [listed(square[0]), listed(boxes), listed(square[2])], "outputs": outcome[1.0], "unflipped": outcome[-1.0]})
for fmt in ["xyxy", "rel_xywh"]:
    C(f"CenterCrop/smaller/{fmt}", layers.CenterCrop(16, 20, bounding_box_format=fmt), images, xyxy, labels, fmt)
    C(f"CenterCrop/larger/{fmt}", layers.CenterCrop(30, 28, bounding_box_format=fmt), images, xyxy, labels, fmt)
    C(f"Resizing/{fmt}", layers.Resizing(20, 40, bounding_box_format=fmt), images, xyxy, labels, fmt)
    C(f"Resizing/crop/{fmt}", layers.Resizing(20, 20, crop_to_aspect_ratio=True, bounding_box_format=fmt), images, xyxy, labels, fmt)
    C(f"Resizing/pad/{fmt}", layers.Resizing(30, 30, pad_to_aspect_ratio=True, bounding_box_format=fmt), images, xyxy, labels, fmt)
tall = data(h=40, w=18)
C("Resizing/crop/tall", layers.Resizing(20, 20, crop_to_aspect_ratio=True, bounding_box_format="xyxy"), *tall, "xyxy")
C("Resizing/pad/tall", layers.Resizing(24, 30, pad_to_aspect_ratio=True, bounding_box_format="xyxy"), *tall, "xyxy")
for m in [2, 6]:
    C(f"MaxNumBoundingBoxes/{m}", layers.MaxNumBoundingBoxes(m, bounding_box_format="xyxy"), images, xyxy, labels, "xyxy")
C("RandomContrast/boxes pass", layers.RandomContrast((0.0, 0.0), bounding_box_format="xyxy"), images, xyxy, labels, "xyxy")
C("Pipeline", layers.Pipeline([
    layers.RandomTranslation((0.125, 0.125), (0.0625, 0.0625), fill_mode="constant", bounding_box_format="rel_xyxy"),
    layers.Resizing(16, 16, bounding_box_format="rel_xyxy"),
    layers.MaxNumBoundingBoxes(3, bounding_box_format="rel_xyxy"),
]), images, xyxy, labels, "rel_xyxy")

# RandomFlip draws which images it flips: Keras's transform_bounding_boxes
# with every image flipped, and with none.
for mode in ["horizontal", "vertical", "horizontal_and_vertical"]:
    for fmt in ["xyxy", "center_yxhw"]:
        flip = layers.RandomFlip(mode, bounding_box_format=fmt)
        h, w = images.shape[1], images.shape[2]
        boxes = np.asarray(bb.convert_format(xyxy, "xyxy", fmt, height=h, width=w)) if fmt != "xyxy" else xyxy
        outcome = {}
        for flipped in [True, False]:
            t = {"flips": np.full((images.shape[0], 1, 1, 1), flipped), "input_shape": images.shape}
            r = flip.transform_bounding_boxes({"boxes": boxes.copy(), "labels": labels.copy()}, t, training=True)
            outcome[flipped] = [listed(np.asarray(flip.transform_images(images, t, training=True))), listed(np.asarray(r["boxes"])), listed(np.asarray(r["labels"]))]
        CASES.append({"name": f"RandomFlip/{mode}/{fmt}", "layer": keras.layers.serialize(flip),
                      "inputs": [listed(images), listed(boxes), listed(labels)], "outputs": outcome[True], "unflipped": outcome[False]})


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump({"keras": keras.__version__, "cases": CASES}, f)
    print(f"wrote {len(CASES)} cases to {out}")


if __name__ == "__main__":
    main()
