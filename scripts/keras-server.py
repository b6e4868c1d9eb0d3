"""A Python Keras model server, the reference of the serving benchmark
(scripts/bench-serving.sh): Keras 3 on JAX behind FastAPI and uvicorn,
speaking the part of TensorFlow Serving's REST API the benchmark uses
(POST /v1/models/<name>:predict with "instances"), as a team would write
one. Each request runs model.predict_on_batch on its instances, in
FastAPI's thread pool, one at a time: Keras's JAX predict_on_batch is not
safe to call from several threads at once (it donates the model's state
buffers: "Invalid buffer passed: buffer has been deleted or donated"), so
a lock serialises the predictions; XLA runs each on every core.

    build/serving-env/bin/python scripts/keras-server.py --port 8602 cnn=build/bench-serving/cnn.keras
"""
import argparse
import json
import os
import threading

os.environ.setdefault("KERAS_BACKEND", "jax")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import uvicorn  # noqa: E402
from fastapi import FastAPI, Request, Response  # noqa: E402
from starlette.concurrency import run_in_threadpool  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=8602)
parser.add_argument("models", nargs="+", help="name=path.keras")
args = parser.parse_args()

models = {}
for spec in args.models:
    name, path = spec.split("=", 1)
    model = keras.saving.load_model(path, compile=False)
    model.predict_on_batch(np.zeros((1,) + tuple(model.input_shape[1:]), "float32"))  # compile before serving
    models[name] = model

app = FastAPI()
lock = threading.Lock()


def predict_locked(model, x):
    with lock:
        return model.predict_on_batch(x)


def error(status, msg):
    return Response(json.dumps({"error": msg}), status_code=status, media_type="application/json")


@app.post("/v1/models/{name}:predict")
async def predict(name: str, request: Request):
    if name not in models:
        return error(404, f"no model {name!r}")
    try:
        x = np.asarray(json.loads(await request.body())["instances"], dtype="float32")
    except (ValueError, KeyError, TypeError) as e:
        return error(400, str(e))
    out = await run_in_threadpool(predict_locked, models[name], x)
    return Response(json.dumps({"predictions": np.asarray(out).tolist()}), media_type="application/json")


if __name__ == "__main__":
    print(f"listening on 127.0.0.1:{args.port}", flush=True)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
