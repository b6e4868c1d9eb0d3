"""Lists Keras's public API per area, from the installed Keras, into
keras/testdata/keras_api.json: the denominator of docs/coverage.md, which
keras/coverage_test.go generates (go test ./keras -run TestKerasCoverage
-update) and checks.

  layers         keras.layers' Layer classes (one name each, not its aliases)
                 outside keras.src.layers.preprocessing,
                 but the wrappers of other frameworks (FlaxLayer, JaxLayer,
                 TorchModuleWrapper, TFSMLayer) and the Layer base class
  preprocessing  keras.layers' classes from keras.src.layers.preprocessing
  losses, metrics, optimizers, callbacks
                 the classes of keras.losses, keras.metrics, keras.optimizers
                 and keras.callbacks, but their base classes
  activations    keras.activations' functions but get, serialize and deserialize
  datasets       keras.datasets' modules
  utils          keras.utils' public names

Run: build/keras-env/bin/python scripts/keras-api.py [--check]
"""
import inspect
import json
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "jax")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import keras  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "keras", "testdata", "keras_api.json")
WRAPPERS = {"FlaxLayer", "JaxLayer", "TorchModuleWrapper", "TFSMLayer"}


def classes(module, base, skip=()):
    return sorted(n for n, c in vars(module).items()
                  if inspect.isclass(c) and issubclass(c, base) and c is not base and n not in skip)


def api():
    L = keras.layers
    # One name per class: Keras also exports aliases (AvgPool2D for
    # AveragePooling2D, Convolution2D for Conv2D), which kerasgo reads as
    # the same class.
    layer_classes = sorted({(c.__name__, c) for n, c in vars(L).items()
                            if inspect.isclass(c) and issubclass(c, L.Layer) and c is not L.Layer and n not in WRAPPERS},
                           key=lambda nc: nc[0])
    return {
        "keras": keras.__version__,
        "areas": {
            "layers": sorted(n for n, c in layer_classes if ".preprocessing." not in c.__module__),
            "preprocessing": sorted(n for n, c in layer_classes if ".preprocessing." in c.__module__),
            "losses": classes(keras.losses, keras.losses.Loss, ("LossFunctionWrapper",)),
            "metrics": classes(keras.metrics, keras.metrics.Metric, ("MeanMetricWrapper",)),
            "optimizers": classes(keras.optimizers, keras.optimizers.Optimizer),
            "callbacks": classes(keras.callbacks, keras.callbacks.Callback, ("CallbackList",)),
            "activations": sorted(n for n, f in vars(keras.activations).items()
                                  if inspect.isfunction(f) and n not in ("get", "serialize", "deserialize")),
            "datasets": sorted(n for n in dir(keras.datasets) if not n.startswith("_")),
            "utils": sorted(n for n in dir(keras.utils) if not n.startswith("_") and n != "legacy"),
        },
    }


if __name__ == "__main__":
    got = api()
    if "--check" in sys.argv:
        with open(OUT) as f:
            stored = json.load(f)
        if stored != got:
            sys.exit("keras/testdata/keras_api.json is not what Keras %s lists: run scripts/keras-api.py" % keras.__version__)
        print("keras/testdata/keras_api.json lists Keras %s's API" % keras.__version__)
    else:
        with open(OUT, "w") as f:
            json.dump(got, f, indent=1)
            f.write("\n")
        print("wrote " + os.path.normpath(OUT))
