"""Runs ONNX models kerasgo exported with onnxruntime, for the export tests.

Usage: onnx-check.py DIR

DIR/index.json lists the cases: {"cases": [{"name": ..., "inputs": [{"name",
"dtype" ("float32" or "int32"), "shape", "data"}]}]}. For each case the
script validates DIR/<name>.onnx with the onnx package's full checker
(types and shapes inferred through the whole graph), runs it with
onnxruntime on the inputs, and runs it again on the inputs stacked twice
along the batch axis (an exported graph's batch is free), then writes
DIR/<name>.ort.json: {"outputs": [...], "doubled": [...]} or {"error": ...}.

Exits with status 3, saying so, when onnx or onnxruntime is missing (the
tests skip then): `make keras-env` installs both.
"""

import json
import os
import sys

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
except ImportError as e:
    print(f"onnx-check: {e}: make keras-env installs onnx and onnxruntime")
    sys.exit(3)


def array(a):
    return {"shape": list(a.shape), "data": a.astype(np.float64).ravel().tolist()}


def check(path, inputs):
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    feeds = {}
    for i in inputs:
        dtype = np.int32 if i["dtype"] == "int32" else np.float32
        feeds[i["name"]] = np.asarray(i["data"], dtype=dtype).reshape(i["shape"])
    outputs = session.run(None, feeds)
    doubled = session.run(None, {k: np.concatenate([v, v]) for k, v in feeds.items()})
    return {"outputs": [array(o) for o in outputs], "doubled": [array(o) for o in doubled],
            "opset": model.opset_import[0].version}


def main():
    root = sys.argv[1]
    with open(os.path.join(root, "index.json")) as f:
        index = json.load(f)
    for case in index["cases"]:
        try:
            result = check(os.path.join(root, case["name"] + ".onnx"), case["inputs"])
        except Exception as e:  # reported per case by the Go test
            result = {"error": f"{type(e).__name__}: {e}"}
        with open(os.path.join(root, case["name"] + ".ort.json"), "w") as f:
            json.dump(result, f)
    print(f"onnx {onnx.__version__}, onnxruntime {ort.__version__}: {len(index['cases'])} models run")


if __name__ == "__main__":
    main()
