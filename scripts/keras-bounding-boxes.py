"""Run Keras's keras.utils.bounding_boxes functions on boxes made here,
for kerasgo's tests to compare (keras/utils/boundingboxes/keras_reference_test.go).

    KERAS_BACKEND=jax build/keras-env/bin/python scripts/keras-bounding-boxes.py OUT_DIR

Writes OUT_DIR/index.json: {"keras": version, "cases": [{"name", "inputs",
"outputs"}]}, arrays as {"shape", "data"}. Keras computes these in
float32 (convert_format's default dtype, which the others call with).
"""
import itertools
import json
import os
import sys

import numpy as np

import keras
from keras.utils import bounding_boxes as bb

rng = np.random.default_rng(20261203)
H, W = 200.0, 300.0
FORMATS = ["xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy", "rel_yxyx", "rel_xywh", "rel_center_xywh"]
CASES = []


def listed(a):
    a = np.asarray(a, dtype="float64")
    return {"shape": list(a.shape), "data": [float(v) for v in a.ravel()]}


def C(name, fn, *inputs):
    out = fn(*inputs)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    CASES.append({"name": name, "inputs": [listed(i) for i in inputs], "outputs": [listed(np.asarray(o)) for o in outs]})


def xyxy(*lead, lo=-20.0):
    """Boxes with x1 < x2 and y1 < y2, some reaching outside a 300x200 image."""
    x1 = rng.uniform(lo, 250, lead)
    y1 = rng.uniform(lo, 160, lead)
    return np.stack([x1, y1, x1 + rng.uniform(5, 90, lead), y1 + rng.uniform(5, 70, lead)], -1).astype("float32")


def in_format(boxes, fmt):
    return np.asarray(bb.convert_format(boxes, "xyxy", fmt, height=H, width=W))


boxes = xyxy(2, 3)
for s, t in itertools.product(FORMATS, FORMATS):
    C(f"convert_format/{s}/{t}", lambda x, s=s, t=t: bb.convert_format(x, s, t, height=H, width=W), in_format(boxes, s))

labels = np.array([[1, 2, 3], [4, 5, 6]], "float32")
outside = boxes.copy()
outside[0, 1] = [310, 10, 350, 40]  # wholly right of the image: no area once clipped
C("clip_to_image_size", lambda x, l: (lambda r: (r["boxes"], r["labels"]))(bb.clip_to_image_size({"boxes": x, "labels": l}, height=H, width=W)), outside, labels)
C("clip_to_image_size/rel", lambda x: bb.clip_to_image_size({"boxes": x}, bounding_box_format="rel_xyxy")["boxes"], in_format(outside, "rel_xyxy"))
C("crop", lambda x: bb.crop(x, top=10, left=20, height=120, width=150), boxes)
C("pad", lambda x: bb.pad(x, top=7, left=11), boxes)
angle = np.array([15.0, -40.0], "float32")
tx, ty = np.array([0.1, -0.05], "float32"), np.array([0.0, 0.2], "float32")
scale = np.array([1.2, 0.8], "float32")
shx, shy = np.array([5.0, 0.0], "float32"), np.array([0.0, -10.0], "float32")
C("affine_transform", lambda x, a, tx, ty, s, sx, sy: bb.affine_transform(x, a, tx, ty, s, sx, sy, H, W), boxes, angle, tx, ty, scale, shx, shy)
C("affine_transform/center", lambda x, a, tx, ty, s, sx, sy: bb.affine_transform(x, a, tx, ty, s, sx, sy, H, W, center_x=0.3, center_y=0.6), boxes, angle, tx, ty, scale, shx, shy)

b1, b2 = xyxy(2, 3, lo=0), xyxy(2, 4, lo=0)
b2[0, :2] = boxes[0, :2] + 3  # overlapping pairs
C("compute_iou", lambda a, b: bb.compute_iou(a, b, "xyxy"), b1[0], b2[0])
C("compute_iou/batched", lambda a, b: bb.compute_iou(a, b, "xyxy"), b1, b2)
C("compute_iou/batched_unbatched", lambda a, b: bb.compute_iou(a, b, "xyxy"), b1, b2[0])
C("compute_iou/unbatched_batched", lambda a, b: bb.compute_iou(a, b, "xyxy"), b1[0], b2)
C("compute_iou/yxyx", lambda a, b: bb.compute_iou(a, b, "yxyx"), in_format(b1, "yxyx"), in_format(b2, "yxyx"))
C("compute_iou/rel", lambda a, b: bb.compute_iou(a, b, "rel_xyxy", image_shape=(H, W, 3)), in_format(b1, "rel_xyxy"), in_format(b2, "rel_xyxy"))
padded = b2.copy()
padded[1, 3] = -1
C("compute_iou/masking", lambda a, b: bb.compute_iou(a, b, "xyxy", use_masking=True, mask_val=-2), b1, padded)
b3 = xyxy(2, 3, lo=0)
C("compute_ciou", lambda a, b: bb.compute_ciou(a, b, "xyxy"), b1, b3)
C("compute_ciou/center_xywh", lambda a, b: bb.compute_ciou(a, b, "center_xywh"), in_format(b1, "center_xywh"), in_format(b3, "center_xywh"))
anchors = xyxy(3, lo=0)
C("encode_box_to_deltas", lambda a, x: bb.encode_box_to_deltas(a, x, "xyxy", "xyxy"), anchors, b1)
C("encode_box_to_deltas/variance", lambda a, x: bb.encode_box_to_deltas(a, x, "xyxy", "xywh", encoding_format="center_xywh", variance=[0.1, 0.1, 0.2, 0.2]), anchors, in_format(b1, "xywh"))
deltas = rng.normal(0, 0.3, (2, 3, 4)).astype("float32")
C("decode_deltas_to_boxes", lambda a, d: bb.decode_deltas_to_boxes(a, d, "xyxy", "xyxy"), anchors, deltas)
C("decode_deltas_to_boxes/variance", lambda a, d: bb.decode_deltas_to_boxes(a, d, "xyxy", "rel_yxyx", encoded_format="center_xywh", variance=[0.1, 0.1, 0.2, 0.2], image_shape=(H, W, 3)), anchors, deltas)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump({"keras": keras.__version__, "height": H, "width": W, "cases": CASES}, f)
    print(f"wrote {len(CASES)} cases to {out}")


if __name__ == "__main__":
    main()
