"""Build keras.applications networks with Keras itself, for
keras/applications/applications_test.go to compare kerasgo's with.

    KERAS_BACKEND=numpy build/keras-env/bin/python scripts/keras-applications.py DIR [all|NAME,NAME...]

For each network, at Keras's default 224x224x3 input, it records the
architecture: every layer's name and class, and the name and shape of each
of its weights, and count_params(). For the networks in CHECKED it also
builds the network (weights=None) at the input shape given there, redraws
its weights (below), saves them with save_weights to DIR/NAME.weights.h5,
and records what predict returns for two images whose pixels are
((i*7919) % 1000)/500 - 1, i the pixel's index in the batch. ResNet50 is
also saved whole, with model.save, to DIR/resnet50.keras.

Each checked network's weights are also written in Keras's legacy HDF5
layout, the one of the weight files keras.applications downloads, by
Keras's own legacy writer (legacy_h5_format.save_weights_to_hdf5_group),
to DIR/NAME.h5; and its include_top=False network (pooling="avg", the
same weights by layer name) to DIR/NAME_notop.h5, with its predictions
("notop_predictions").

Keras's initial weights make every BatchNormalization an identity and the
softmax nearly uniform (about 1e-3 each), which would hide a wrong layer
within a 1e-4 tolerance. So the moving means, moving variances, gammas and
betas are redrawn around their initial values (EfficientNet's residual
branches' gammas smaller), and the classifier's
kernel is scaled so that the logits' standard deviation on the two images is
2: the softmax is then peaked (its largest values about 0.1 to 0.9) but not
saturated. EfficientNet's Normalization layer gets a mean and variance
other than its initial 0 and 1 too, and ConvNeXt's layer normalizations
and LayerScale weights (1e-6 at first, which would hide every block) are
redrawn.

Writes DIR/index.json: {NAME: {"params", "layers": [{"name", "class",
"weights": [{"name", "shape"}]}], "input_shape", "x_shape", "predictions"}}.
"""

import json
import os
import sys

import h5py
import numpy as np

import keras
from keras import applications
from keras.src.legacy.saving import legacy_h5_format

ARCHITECTURES = {
    "resnet50": applications.ResNet50,
    "resnet101": applications.ResNet101,
    "resnet152": applications.ResNet152,
    "resnet50v2": applications.ResNet50V2,
    "resnet101v2": applications.ResNet101V2,
    "resnet152v2": applications.ResNet152V2,
    "vgg16": applications.VGG16,
    "vgg19": applications.VGG19,
    "densenet121": applications.DenseNet121,
    "densenet169": applications.DenseNet169,
    "densenet201": applications.DenseNet201,
    "xception": applications.Xception,
    "inception_v3": applications.InceptionV3,
    "inception_resnet_v2": applications.InceptionResNetV2,
    "mobilenet": applications.MobileNet,
    "mobilenetv2": applications.MobileNetV2,
    "mobilenetv3small": applications.MobileNetV3Small,
    "mobilenetv3large": applications.MobileNetV3Large,
    "convnext_tiny": applications.ConvNeXtTiny,
    "convnext_small": applications.ConvNeXtSmall,
    "convnext_base": applications.ConvNeXtBase,
    "convnext_large": applications.ConvNeXtLarge,
    "convnext_xlarge": applications.ConvNeXtXLarge,
    "nasnet_mobile": applications.NASNetMobile,
    "nasnet_large": applications.NASNetLarge,
    "efficientnetb0": applications.EfficientNetB0,
    "efficientnetb1": applications.EfficientNetB1,
    "efficientnetb2": applications.EfficientNetB2,
    "efficientnetb3": applications.EfficientNetB3,
    "efficientnetb4": applications.EfficientNetB4,
    "efficientnetb5": applications.EfficientNetB5,
    "efficientnetb6": applications.EfficientNetB6,
    "efficientnetb7": applications.EfficientNetB7,
    "efficientnetv2-b0": applications.EfficientNetV2B0,
    "efficientnetv2-b1": applications.EfficientNetV2B1,
    "efficientnetv2-b2": applications.EfficientNetV2B2,
    "efficientnetv2-b3": applications.EfficientNetV2B3,
    "efficientnetv2-s": applications.EfficientNetV2S,
    "efficientnetv2-m": applications.EfficientNetV2M,
    "efficientnetv2-l": applications.EfficientNetV2L,
}

# The networks whose weights and predictions are checked, and the input
# shape (ResNet50 at ImageNet's, the others smaller to keep the test short).
CHECKED = {
    "resnet50": (224, 224, 3),
    "resnet50v2": (64, 64, 3),
    "vgg16": (64, 64, 3),
    "vgg19": (48, 48, 3),
    "densenet121": (64, 64, 3),
    "mobilenet": (64, 64, 3),
    "xception": (71, 71, 3),
    "inception_v3": (75, 75, 3),
    "mobilenetv2": (96, 96, 3),
    "efficientnetb0": (64, 64, 3),
    "efficientnetv2-b0": (64, 64, 3),
    "efficientnetv2-s": (64, 64, 3),
    "mobilenetv3small": (64, 64, 3),
    "mobilenetv3large": (64, 64, 3),
    "inception_resnet_v2": (75, 75, 3),
    "convnext_tiny": (64, 64, 3),
}

# With "all" as the second argument every network is checked (with
# "name,name,..." those networks), at the
# smallest input Keras takes (resnet50 stays at 224): the weight files of
# the big networks take gigabytes and minutes, so make test checks
# CHECKED and `make test-applications` all of them.
MIN_SHAPES = {"xception": (71, 71, 3), "inception_v3": (75, 75, 3), "inception_resnet_v2": (75, 75, 3)}


def architecture(model):
    # model.operations: model.layers and the keras.ops calls of the graph
    # (MobileNetV3's x + 3), which kerasgo has as layers.
    layers = []
    for layer in model.operations:
        weights = [{"name": w.name, "shape": list(w.shape)} for w in getattr(layer, "weights", [])]
        layers.append({"name": layer.name, "class": type(layer).__name__, "weights": weights})
    return {"model_name": model.name, "params": int(model.count_params()), "layers": layers}


def redraw(model, rng, x):
    for layer in model.layers:
        if isinstance(layer, keras.layers.Normalization) and layer.input_mean is None:
            n = layer.adapt_mean.shape
            layer.adapt_mean.assign(rng.normal(0, 0.5, n).astype("float32"))
            layer.adapt_variance.assign(rng.uniform(0.5, 1.5, n).astype("float32"))
            layer.finalize_state()
        if isinstance(layer, keras.layers.BatchNormalization):
            n = layer.moving_mean.shape[0]
            layer.moving_mean.assign(rng.normal(0, 0.1, n).astype("float32"))
            layer.moving_variance.assign(rng.uniform(0.5, 1.5, n).astype("float32"))
            # EfficientNet's residual branches end in project_bn: scaled
            # down, as a trained network's are, so that 40 or more blocks
            # do not grow the activations to 1e5, where float32 rounding
            # no longer agrees between two implementations.
            low, high = (0.1, 0.3) if layer.name.endswith("project_bn") else (0.5, 1.5)
            # NASNet's cells normalise each cell input's 1x1 projection
            # (adjust_bn, normal_bn_1, reduction_bn_1) by a moving
            # variance near 1 whatever the projection's real variance,
            # and add that input to itself (normal_add_4): drawn as the
            # others, these grow NASNetLarge's features over 18 cells to
            # 180, where float32 rounding alone (libtorch's oneDNN
            # convolutions round up to 3 times further than a BLAS
            # product) exceeds 1e-4 of the small features. Drawn from
            # [0.45, 1), they stay under 3, as a trained network's do,
            # whose moving variances fit its data.
            if model.name.startswith("nasnet") and layer.name.startswith(("adjust_bn", "normal_bn_1", "reduction_bn_1")):
                low, high = 0.45, 1.0
            if layer.gamma is not None:  # none with scale=False (InceptionV3)
                layer.gamma.assign(rng.uniform(low, high, n).astype("float32"))
            if layer.beta is not None:
                layer.beta.assign(rng.normal(0, 0.1, n).astype("float32"))
        if type(layer).__name__ == "LayerScale":  # ConvNeXt's: 1e-6 would hide each block
            layer.gamma.assign(rng.uniform(0.1, 0.3, layer.gamma.shape).astype("float32"))
        if isinstance(layer, keras.layers.LayerNormalization):
            n = layer.gamma.shape
            layer.gamma.assign(rng.uniform(0.5, 1.5, n).astype("float32"))
            layer.beta.assign(rng.normal(0, 0.1, n).astype("float32"))
    names = [l.name for l in model.layers]
    top = model.get_layer("predictions" if "predictions" in names else model.name + "_head_dense")
    if not hasattr(top, "kernel"):  # MobileNets: a 1x1 convolution, then an Activation
        top = model.get_layer("logits" if "conv_preds" not in [l.name for l in model.layers] else "conv_preds")
    features = keras.Model(model.inputs, top.input).predict(x, verbose=0).reshape(len(x), -1)
    kernel = keras.ops.convert_to_numpy(top.kernel)
    logits = features @ kernel.reshape(-1, kernel.shape[-1])
    top.kernel.assign(kernel * (2.0 / max(logits.std(), 1e-6)))


def images(shape):
    n = 2 * shape[0] * shape[1] * shape[2]
    i = np.arange(n, dtype=np.int64)
    return (((i * 7919) % 1000) / 500.0 - 1.0).astype("float32").reshape((2,) + shape)


def main(out, which="checked"):
    keras.utils.set_random_seed(1)
    rng = np.random.default_rng(1)
    index = {}
    for name, build in ARCHITECTURES.items():
        keras.backend.clear_session()
        index[name] = architecture(build(weights=None))
    checked = CHECKED
    if which != "checked":
        names = ARCHITECTURES if which == "all" else which.split(",")
        checked = {name: CHECKED.get(name, MIN_SHAPES.get(name, (32, 32, 3))) for name in names}
        checked.update(CHECKED)  # CHECKED as always, ResNet50 at 224
    for name, shape in checked.items():
        keras.backend.clear_session()
        model = ARCHITECTURES[name](weights=None, input_shape=shape)
        x = images(shape)
        redraw(model, rng, x)
        model.save_weights(os.path.join(out, name + ".weights.h5"))
        if name == "resnet50":
            model.save(os.path.join(out, name + ".keras"))
        y = model.predict(x, verbose=0)
        with h5py.File(os.path.join(out, name + ".h5"), "w") as f:
            legacy_h5_format.save_weights_to_hdf5_group(f, model)
        keras.backend.clear_session()  # the same automatic layer names as the model's
        notop = ARCHITECTURES[name](weights=None, input_shape=shape, include_top=False, pooling="avg")
        top_names = [l.name for l in model.layers]
        for layer in notop.layers:
            if layer.weights:
                # ConvNeXt's notop network ends in a LayerNormalization of
                # its own (automatically named): it takes the head's.
                source = layer.name if layer.name in top_names else model.name + "_head_layernorm"
                layer.set_weights(model.get_layer(source).get_weights())
                if hasattr(layer, "finalize_state"):  # Normalization's mean and variance
                    layer.finalize_state()
        with h5py.File(os.path.join(out, name + "_notop.h5"), "w") as f:
            legacy_h5_format.save_weights_to_hdf5_group(f, notop)
        y_notop = notop.predict(x, verbose=0)
        index[name].update({
            "notop_predictions": {"shape": list(y_notop.shape), "data": y_notop.astype("float64").ravel().tolist()},
        })
        index[name].update({
            "input_shape": list(shape),
            "checked_layers": architecture(model)["layers"],
            "predictions": {"shape": list(y.shape), "data": y.astype("float64").ravel().tolist()},
        })
    # preprocess_input of each module on 2x4x4x3 pixels 0..255, and
    # decode_predictions of ResNet50's predictions with a made-up class
    # index (Keras's is downloaded; its global is set instead), written to
    # DIR/class_index.json for kerasgo to read.
    pixels = (np.arange(2 * 4 * 4 * 3) * 37 % 256).astype("float32").reshape((2, 4, 4, 3))
    from keras.applications import convnext, densenet, efficientnet, efficientnet_v2, inception_resnet_v2, mobilenet, nasnet, mobilenet_v3, mobilenet_v2, resnet, resnet_v2, vgg16, vgg19, xception, inception_v3
    from keras.src.applications import imagenet_utils  # whose CLASS_INDEX decode_predictions reads
    index["preprocess"] = {"x": pixels.ravel().tolist(), "shape": list(pixels.shape)}
    for module_name, module in (("resnet", resnet), ("vgg16", vgg16), ("vgg19", vgg19), ("densenet", densenet), ("resnet_v2", resnet_v2), ("mobilenet", mobilenet), ("mobilenet_v2", mobilenet_v2), ("xception", xception), ("inception_v3", inception_v3), ("efficientnet", efficientnet), ("efficientnet_v2", efficientnet_v2), ("mobilenet_v3", mobilenet_v3), ("inception_resnet_v2", inception_resnet_v2), ("convnext", convnext), ("nasnet", nasnet)):
        index["preprocess"][module_name] = module.preprocess_input(pixels.copy()).astype("float64").ravel().tolist()
    classes = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    with open(os.path.join(out, "class_index.json"), "w") as f:
        json.dump(classes, f)
    imagenet_utils.CLASS_INDEX = classes
    p = np.array(index["resnet50"]["predictions"]["data"], dtype="float32").reshape(index["resnet50"]["predictions"]["shape"])
    index["decoded"] = [[[c, d, float(s)] for c, d, s in row] for row in imagenet_utils.decode_predictions(p, top=3)]
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(index, f)


if __name__ == "__main__":
    main(*sys.argv[1:])
