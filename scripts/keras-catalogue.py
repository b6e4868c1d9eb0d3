"""Build, with Keras itself, one small model per layer setting kerasgo
has, save each as .keras with its outputs on fixed inputs, for kerasgo's
tests to load and compare (keras/keras_catalogue_test.go).

    KERAS_BACKEND=jax build/keras-env/bin/python scripts/keras-catalogue.py OUT_DIR

Writes OUT_DIR/<name>.keras and OUT_DIR/<name>.json ({"inputs": [...],
"outputs": [...]}, arrays as {"shape", "data"}), and OUT_DIR/index.json
(the names, in order, each with the layer classes it uses). Every weight
is set to random values (variances positive) so that biases and moving
statistics are exercised too; the configs keep the settings written here.
"""

import json
import os
import sys

import numpy as np

import keras
from keras import layers

rng = np.random.default_rng(20261123)


def normal(*shape):
    return rng.normal(size=shape).astype("float32")


def ids(*shape, high=20):
    return rng.integers(1, high, size=shape).astype("int32")


CASES = []
ADAPT = {}


def case(name, inputs, build, adapt=None):
    """inputs: list of (shape without batch, dtype); build: KerasTensors -> output(s);
    adapt: (model, data) -> None, run after the weights are set and before
    predicting (a preprocessing layer adapted on the case's own inputs)."""
    CASES.append((name, inputs, build))
    if adapt is not None:
        ADAPT[name] = adapt


def one(layer):
    return lambda xs: layer(xs[0])


F = "float32"

# Core.
for act in ["linear", "relu", "tanh", "sigmoid", "softmax", "gelu", "elu", "selu", "softplus", "softsign", "swish", "exponential", "hard_sigmoid", "leaky_relu", "relu6", "mish", "log_softmax",
            "celu", "hard_shrink", "hard_tanh", "log_sigmoid", "soft_shrink", "sparse_plus", "sparse_sigmoid", "sparsemax", "squareplus", "tanh_shrink"]:
    case(f"dense_{act}", [((7,), F)], one(layers.Dense(5, activation=act)))
case("dense_glu", [((7,), F)], one(layers.Dense(6, activation="glu")))  # glu halves the units
case("dense_no_bias", [((7,), F)], one(layers.Dense(4, use_bias=False)))
case("dense_3d", [((3, 7), F)], one(layers.Dense(4, activation="relu")))
for init in [keras.initializers.RandomNormal(stddev=0.02), keras.initializers.TruncatedNormal(stddev=0.5),
             keras.initializers.VarianceScaling(scale=2.0, mode="fan_out", distribution="uniform"),
             keras.initializers.Constant(0.3), "lecun_normal", "lecun_uniform", "he_normal", "orthogonal"]:
    label = init if isinstance(init, str) else type(init).__name__.lower()
    case(f"dense_init_{label}", [((6,), F)], one(layers.Dense(3, kernel_initializer=init, bias_initializer="random_uniform")))
case("activation_layer", [((6,), F)], one(layers.Activation("tanh")))
case("relu_layer", [((6,), F)], one(layers.ReLU(max_value=1.0, negative_slope=0.1, threshold=0.2)))
case("leaky_relu_layer", [((6,), F)], one(layers.LeakyReLU(negative_slope=0.2)))
case("prelu", [((6,), F)], one(layers.PReLU()))
case("elu_layer", [((6,), F)], one(layers.ELU(alpha=0.5)))
case("softmax_layer", [((6,), F)], one(layers.Softmax()))
case("dropout", [((6,), F)], one(layers.Dropout(0.5)))
case("flatten", [((3, 4, 2), F)], one(layers.Flatten()))
case("reshape", [((12,), F)], one(layers.Reshape((3, 4))))
case("reshape_inferred", [((12,), F)], one(layers.Reshape((2, -1, 3))))
# keras.ops on KerasTensors, which Keras writes as operation layers
# (module keras.src.ops.numpy): a constant tensor operand ("__tensor__",
# on either side), a number, and two values that broadcast.
TABLE = np.linspace(-1, 1, 12).astype("float32").reshape(3, 4)
case("op_constant_tensor", [((3, 4), F)], lambda xs: layers.Dense(4)(xs[0]) + keras.ops.convert_to_tensor(TABLE))
case("op_constant_first", [((3, 4), F)], lambda xs: keras.ops.multiply(keras.ops.convert_to_tensor(TABLE[0]), layers.Dense(4)(xs[0])))
case("op_numbers", [((5,), F)], lambda xs: keras.ops.maximum(layers.Dense(3)(xs[0]) - 0.25, 0.0) / 2.0)
case("op_broadcast", [((3, 4), F)], lambda xs: keras.ops.subtract(layers.Dense(4)(xs[0]), layers.Reshape((1, 4))(layers.Dense(4)(layers.Flatten()(xs[0])))))
case("permute", [((3, 4, 2), F)], one(layers.Permute((2, 1, 3))))
case("repeat_vector", [((5,), F)], one(layers.RepeatVector(3)))
case("rescaling", [((5,), F)], one(layers.Rescaling(1 / 255.0, offset=-0.5)))
case("gaussian_noise", [((5,), F)], one(layers.GaussianNoise(0.3)))
case("activity_regularization", [((5,), F)], one(layers.ActivityRegularization(l1=0.01, l2=0.02)))
case("dense_regularized", [((7,), F)], one(layers.Dense(4, kernel_regularizer=keras.regularizers.L1L2(l1=0.01, l2=0.02), bias_regularizer="l2",
                                                     activity_regularizer=keras.regularizers.L1(0.001), kernel_constraint=keras.constraints.MaxNorm(2.0),
                                                     bias_constraint="non_neg")))
case("conv2d_regularized", [((6, 6, 2), F)], one(layers.Conv2D(3, 3, kernel_regularizer=keras.regularizers.L2(0.01),
                                                            kernel_constraint=keras.constraints.UnitNorm(axis=[0, 1, 2]))))
case("embedding_regularized", [((4,), "int32")], one(layers.Embedding(20, 3, embeddings_regularizer="l2", embeddings_constraint="unit_norm")))
case("identity", [((5,), F)], one(layers.Identity()))
case("gaussian_dropout", [((5,), F)], one(layers.GaussianDropout(0.3)))

# Convolution and pooling.
case("conv2d_valid", [((8, 8, 3), F)], one(layers.Conv2D(4, 3, activation="relu")))
case("conv2d_same_stride2", [((9, 9, 3), F)], one(layers.Conv2D(4, (3, 2), strides=2, padding="same")))
case("conv2d_dilated", [((9, 9, 2), F)], one(layers.Conv2D(3, 3, dilation_rate=2)))
case("conv2d_groups", [((6, 6, 4), F)], one(layers.Conv2D(6, 3, groups=2)))
case("conv1d", [((10, 3), F)], one(layers.Conv1D(4, 3, padding="same", activation="tanh")))
case("conv1d_causal", [((10, 3), F)], one(layers.Conv1D(4, 3, padding="causal")))
case("conv2d_transpose", [((4, 4, 3), F)], one(layers.Conv2DTranspose(2, 3, strides=2, padding="same")))
case("conv2d_transpose_valid", [((4, 5, 3), F)], one(layers.Conv2DTranspose(2, (3, 2), strides=(2, 1))))
case("depthwise_conv2d", [((7, 7, 3), F)], one(layers.DepthwiseConv2D(3, depth_multiplier=2)))
case("separable_conv2d", [((7, 7, 3), F)], one(layers.SeparableConv2D(4, 3, padding="same")))
case("max_pooling2d", [((8, 8, 2), F)], one(layers.MaxPooling2D()))
case("max_pooling2d_same", [((7, 7, 2), F)], one(layers.MaxPooling2D(3, strides=2, padding="same")))
case("average_pooling2d", [((8, 8, 2), F)], one(layers.AveragePooling2D(2)))
case("average_pooling2d_same", [((7, 7, 2), F)], one(layers.AveragePooling2D(3, strides=2, padding="same")))
case("global_average_pooling2d", [((5, 5, 3), F)], one(layers.GlobalAveragePooling2D()))
case("global_max_pooling2d", [((5, 5, 3), F)], one(layers.GlobalMaxPooling2D()))
case("max_pooling1d", [((8, 3), F)], one(layers.MaxPooling1D()))
case("average_pooling1d", [((8, 3), F)], one(layers.AveragePooling1D(3, strides=1, padding="same")))
case("global_average_pooling1d", [((6, 3), F)], one(layers.GlobalAveragePooling1D()))
case("global_max_pooling1d", [((6, 3), F)], one(layers.GlobalMaxPooling1D()))
case("adaptive_average_pooling1d", [((7, 3), F)], one(layers.AdaptiveAveragePooling1D(3)))
case("adaptive_max_pooling1d", [((7, 3), F)], one(layers.AdaptiveMaxPooling1D(4)))
case("adaptive_average_pooling2d", [((7, 5, 2), F)], one(layers.AdaptiveAveragePooling2D((3, 2))))
case("adaptive_max_pooling2d", [((6, 6, 2), F)], one(layers.AdaptiveMaxPooling2D(4)))
case("up_sampling2d", [((3, 3, 2), F)], one(layers.UpSampling2D(2)))
case("up_sampling1d", [((4, 2), F)], one(layers.UpSampling1D(2)))
case("zero_padding2d", [((3, 3, 2), F)], one(layers.ZeroPadding2D(((1, 2), (0, 1)))))
case("zero_padding1d", [((4, 2), F)], one(layers.ZeroPadding1D(2)))
case("cropping2d", [((6, 6, 2), F)], one(layers.Cropping2D(((1, 2), (2, 1)))))
case("cropping1d", [((6, 2), F)], one(layers.Cropping1D((1, 2))))
case("spatial_dropout2d", [((4, 4, 3), F)], one(layers.SpatialDropout2D(0.3)))
case("spatial_dropout1d", [((5, 3), F)], one(layers.SpatialDropout1D(0.3)))
case("spatial_dropout3d", [((3, 3, 3, 2), F)], one(layers.SpatialDropout3D(0.3)))
case("alpha_dropout", [((6,), F)], lambda xs: layers.AlphaDropout(0.2)(layers.Dense(4, activation="selu")(xs[0])))

# Normalisation.
case("batch_normalization", [((6,), F)], one(layers.BatchNormalization()))
case("batch_normalization_axis3", [((4, 4, 3), F)], one(layers.BatchNormalization(axis=3, momentum=0.9, epsilon=1e-3)))
case("batch_normalization_no_scale", [((5,), F)], one(layers.BatchNormalization(center=False, scale=False)))
case("layer_normalization", [((3, 6), F)], one(layers.LayerNormalization(epsilon=1e-6)))
case("group_normalization", [((4, 4, 6), F)], one(layers.GroupNormalization(groups=3)))
case("unit_normalization", [((3, 5), F)], one(layers.UnitNormalization()))
case("unit_normalization_axes", [((3, 4, 2), F)], one(layers.UnitNormalization(axis=[1, 2])))
# SpectralNormalization: Keras's inference uses the kernel as stored (the
# normalization is a training-step computation); these check the files.
case("spectral_normalization_dense", [((6,), F)], one(layers.SpectralNormalization(layers.Dense(4, activation="tanh"), power_iterations=2)))
case("spectral_normalization_conv2d", [((5, 5, 2), F)], one(layers.SpectralNormalization(layers.Conv2D(3, 3))))
case("rms_normalization", [((3, 6), F)], one(layers.RMSNormalization(epsilon=1e-5)))
case("rms_normalization_axes", [((3, 4, 2), F)], one(layers.RMSNormalization(axis=[2, 3])))

# Embedding, masking, recurrent.
case("embedding", [((6,), "int32")], one(layers.Embedding(20, 4)))
case("embedding_lstm_mask", [((6,), "int32")], lambda xs: layers.LSTM(3)(layers.Embedding(20, 4, mask_zero=True)(xs[0])))
# ReversibleEmbedding called twice: embedding the ids, then projecting
# back to the vocabulary (reverse=True) by the tied matrix, or by its own
# with tie_weights=False, the logits soft-capped.
case("reversible_embedding_tied", [((6,), "int32")],
     lambda xs: (lambda e: e(layers.Dense(4, activation="tanh")(e(xs[0])), reverse=True))(layers.ReversibleEmbedding(20, 4)))
case("reversible_embedding_untied_soft_cap", [((5,), "int32")],
     lambda xs: (lambda e: e(e(xs[0]), reverse=True))(layers.ReversibleEmbedding(
         20, 3, tie_weights=False, logit_soft_cap=0.5, mask_zero=True, embeddings_initializer=keras.initializers.RandomNormal(stddev=1.0))))
case("lstm", [((5, 3), F)], one(layers.LSTM(4)))
case("lstm_sequences", [((5, 3), F)], one(layers.LSTM(4, return_sequences=True, unit_forget_bias=False)))
case("lstm_backwards", [((5, 3), F)], one(layers.LSTM(4, go_backwards=True, activation="relu")))
case("gru", [((5, 3), F)], one(layers.GRU(4)))
case("gru_not_reset_after", [((5, 3), F)], one(layers.GRU(4, reset_after=False, return_sequences=True)))
case("simple_rnn", [((5, 3), F)], one(layers.SimpleRNN(4, activation="relu")))
for mode in ["concat", "sum", "ave", "mul"]:
    case(f"bidirectional_{mode}", [((5, 3), F)], one(layers.Bidirectional(layers.LSTM(3, return_sequences=True), merge_mode=mode)))
case("time_distributed", [((4, 5), F)], one(layers.TimeDistributed(layers.Dense(3))))
case("masking_lstm", [((5, 3), F)], lambda xs: layers.GRU(3)(layers.Masking(0.0)(xs[0])))

# Attention.
case("multi_head_attention", [((4, 6), F), ((5, 6), F)], lambda xs: layers.MultiHeadAttention(num_heads=2, key_dim=3)(xs[0], xs[1]))
case("attention", [((4, 6), F), ((5, 6), F)], lambda xs: layers.Attention()([xs[0], xs[1]]))
case("attention_scaled", [((4, 6), F), ((5, 6), F)], lambda xs: layers.Attention(use_scale=True, score_mode="concat")([xs[0], xs[1]]))
case("additive_attention", [((4, 6), F), ((5, 6), F)], lambda xs: layers.AdditiveAttention()([xs[0], xs[1]]))

# Merging.
for cls in [layers.Add, layers.Subtract, layers.Multiply, layers.Average, layers.Maximum, layers.Minimum]:
    case(f"merge_{cls.__name__.lower()}", [((5,), F), ((5,), F)], lambda xs, cls=cls: cls()([xs[0], xs[1]]))
case("concatenate", [((3, 4), F), ((3, 2), F)], lambda xs: layers.Concatenate()([xs[0], xs[1]]))
case("dot", [((5,), F), ((5,), F)], lambda xs: layers.Dot(axes=1, normalize=True)([xs[0], xs[1]]))

# None dimensions besides the batch, several outputs.
case("lstm_none_time", [((None, 3), F)], one(layers.LSTM(4, return_sequences=True)))
# Keras 3 records Masking's mask on an unknown length as NotEqual and Any
# nodes in the graph.
case("masking_none_time", [((None, 3), F)], lambda xs: layers.GRU(3)(layers.Masking(0.0)(xs[0])))
case("conv_fully_convolutional", [((None, None, 3), F)], lambda xs: layers.GlobalAveragePooling2D()(layers.Conv2D(4, 3, padding="same")(xs[0])))
case("bidirectional_merge_none", [((5, 3), F)], lambda xs: layers.Bidirectional(layers.GRU(3, return_sequences=True), merge_mode=None)(xs[0]))
case("multi_head_attention_scores", [((4, 6), F), ((5, 6), F)],
     lambda xs: list(layers.MultiHeadAttention(num_heads=2, key_dim=3)(xs[0], xs[1], return_attention_scores=True)))

# Preprocessing (the random layers predict their input: they act in
# training only; kerasgo's tests check their training statistics).
case("rescaling_per_channel", [((4, 4, 3), F)], one(layers.Rescaling([0.5, 2.0, -1.0], offset=[0.1, 0.2, 0.3])))
case("normalization", [((6,), F)], one(layers.Normalization()))
case("normalization_images", [((4, 4, 3), F)], one(layers.Normalization(axis=-1)))
case("normalization_axes", [((3, 4, 2), F)], one(layers.Normalization(axis=(1, 2))))
case("normalization_given", [((3,), F)], one(layers.Normalization(mean=[1.0, -2.0, 0.5], variance=[1.0, 4.0, 0.25])))
case("normalization_given_scalar", [((3,), F)], one(layers.Normalization(axis=None, mean=2.0, variance=3.0)))
case("normalization_invert", [((3,), F)], one(layers.Normalization(mean=[1.0, -2.0, 0.5], variance=[1.0, 4.0, 0.25], invert=True)))
case("adapt_normalization", [((6,), F)], one(layers.Normalization()), adapt=lambda m, d: m.layers[1].adapt(d[0]))
case("adapt_normalization_axis_none", [((3, 2), F)], one(layers.Normalization(axis=None)), adapt=lambda m, d: m.layers[1].adapt(d[0]))
case("adapt_normalization_axes", [((3, 4, 2), F)], one(layers.Normalization(axis=(1, 3))), adapt=lambda m, d: m.layers[1].adapt(d[0]))


def adapt_discretization(model, data):
    """Discretization.adapt on an array, without TensorFlow: Keras's adapt
    imports TensorFlow to ask whether data is a tf.data.Dataset, then runs
    these three steps."""
    layer = model.layers[1]
    layer.reset_state()
    layer.update_state(data[0])
    layer.finalize_state()


case("adapt_discretization", [((25,), F)], one(layers.Discretization(num_bins=4)), adapt=adapt_discretization)
case("adapt_discretization_fine", [((200,), F)], one(layers.Discretization(num_bins=7, epsilon=0.05)), adapt=adapt_discretization)
case("discretization_one_hot", [((1,), F)], one(layers.Discretization(bin_boundaries=[-0.5, 0.0, 0.5], output_mode="one_hot")))
case("discretization_multi_hot", [((6,), F)], one(layers.Discretization(bin_boundaries=[-0.5, 0.0, 0.5], output_mode="multi_hot")))
case("discretization_count", [((6,), F)], one(layers.Discretization(bin_boundaries=[-0.5, 0.0, 0.5], output_mode="count")))
case("category_encoding_multi_hot", [((5,), "int32")], one(layers.CategoryEncoding(num_tokens=20)))
case("category_encoding_count", [((5,), "int32")], one(layers.CategoryEncoding(num_tokens=20, output_mode="count")))
case("category_encoding_one_hot", [((1,), "int32")], one(layers.CategoryEncoding(num_tokens=20, output_mode="one_hot")))
for interp in ["bilinear", "nearest", "bicubic", "lanczos3", "lanczos5"]:
    case(f"resizing_{interp}_down", [((7, 9, 2), F)], one(layers.Resizing(4, 5, interpolation=interp)))
    case(f"resizing_{interp}_up", [((4, 3, 2), F)], one(layers.Resizing(7, 8, interpolation=interp)))
case("resizing_antialias", [((9, 8, 2), F)], one(layers.Resizing(4, 3, antialias=True)))
case("resizing_crop_to_aspect_ratio", [((6, 9, 2), F)], one(layers.Resizing(4, 4, crop_to_aspect_ratio=True)))
case("resizing_pad_to_aspect_ratio", [((6, 9, 2), F)], one(layers.Resizing(4, 4, pad_to_aspect_ratio=True, fill_value=0.5)))
case("resizing_any_size", [((None, None, 2), F)], one(layers.Resizing(3, 4)))
case("center_crop", [((6, 9, 2), F)], one(layers.CenterCrop(4, 5)))
case("center_crop_small", [((4, 5, 2), F)], one(layers.CenterCrop(6, 3)))
case("random_flip", [((4, 5, 3), F)], one(layers.RandomFlip("horizontal", seed=1)))
case("random_contrast", [((4, 5, 3), F)], one(layers.RandomContrast(0.3)))
case("random_brightness", [((4, 5, 3), F)], one(layers.RandomBrightness((-0.1, 0.2), value_range=(0, 1))))
case("random_rotation", [((4, 5, 3), F)], one(layers.RandomRotation(0.2, fill_mode="constant", fill_value=0.5)))
case("random_zoom", [((4, 5, 3), F)], one(layers.RandomZoom((-0.2, 0.3), width_factor=0.1, interpolation="nearest")))
case("random_zoom_keep_aspect", [((4, 5, 3), F)], one(layers.RandomZoom(0.2, fill_mode="wrap")))
case("random_translation", [((4, 5, 3), F)], one(layers.RandomTranslation(0.1, (-0.2, 0.3), fill_mode="nearest")))
# Keras 3.15's RandomCrop passes an image through at inference (whatever
# its size): with the target size, kerasgo's centred crop agrees.
case("random_crop", [((4, 5, 3), F)], one(layers.RandomCrop(4, 5)))
# The colour augmentation layers pass an image through at inference,
# except AutoContrast, which applies always.
case("random_grayscale", [((4, 5, 3), F)], one(layers.RandomGrayscale(0.4)))
case("random_invert", [((4, 5, 3), F)], one(layers.RandomInvert(0.7, value_range=(0, 1))))
case("random_posterization", [((4, 5, 3), F)], one(layers.RandomPosterization((2, 6))))
case("random_color_degeneration", [((4, 5, 3), F)], one(layers.RandomColorDegeneration(0.5)))
case("random_saturation", [((4, 5, 3), F)], one(layers.RandomSaturation((0.2, 0.8))))
case("random_hue", [((4, 5, 3), F)], one(layers.RandomHue(0.3, value_range=(0, 1))))
case("solarization", [((4, 5, 3), F)], one(layers.Solarization(addition_factor=0.2, threshold_factor=(0.4, 0.6))))
case("auto_contrast", [((4, 5, 3), F)], one(layers.AutoContrast(value_range=(-1, 1))))
case("auto_contrast_any_size", [((None, None, 2), F)], one(layers.AutoContrast()))
# CLAHE applies always, as AutoContrast: tiles that divide the image and
# tiles that need its edges mirrored, with and without clipping.
case("clahe_mirrored_edges", [((9, 10, 2), F)], one(layers.ContrastLimitedAdaptiveHistogramEqualization(value_range=(-2, 2), tile_grid_size=(2, 3))))
case("clahe_no_clip", [((8, 8, 1), F)], one(layers.ContrastLimitedAdaptiveHistogramEqualization(value_range=(-3, 3), clip_limit=0, tile_grid_size=(2, 2))))
case("clahe_default_grid", [((16, 16, 3), F)], one(layers.ContrastLimitedAdaptiveHistogramEqualization(value_range=(-2, 2), clip_limit=2.0)))
# RandAugment and AugMix pass their input through at inference; the cases
# check their configs and the layout of their augmentations in the file.
case("rand_augment", [((6, 6, 3), F)], one(layers.RandAugment(value_range=(-1, 1), num_ops=3, factor=0.3, interpolation="nearest")))
case("aug_mix", [((6, 6, 3), F)], one(layers.AugMix(value_range=(-1, 1), num_chains=2, chain_depth=2, factor=0.4, alpha=0.5, all_ops=False)))
case("random_sharpness", [((4, 5, 3), F)], one(layers.RandomSharpness(0.4)))
case("random_gaussian_blur", [((4, 5, 3), F)], one(layers.RandomGaussianBlur(0.5, kernel_size=(3, 5), sigma=(0.2, 0.8))))
# Keras 3.15 writes RandomShear(0.2)'s factor as (-0.2, 0.2), which its
# own from_config refuses; kerasgo loads it (and writes the number back).
case("random_shear", [((4, 5, 3), F)], one(layers.RandomShear(x_factor=0.2, y_factor=(0.1, 0.3), fill_mode="constant")))
case("random_erasing", [((6, 6, 3), F)], one(layers.RandomErasing(0.5, scale=(0.1, 0.3), fill_value=0.5)))
# (No Equalization: Keras 3.15 cannot build a model with one, its
# compute_output_spec returns its input, "part of a cycle".)
case("mix_up", [((4, 5, 3), F)], one(layers.MixUp(alpha=0.4)))
case("cut_mix", [((4, 5, 3), F)], one(layers.CutMix((0.2, 0.8))))
case("pipeline", [((4, 5, 3), F)], one(layers.Pipeline([layers.RandomFlip(), layers.RandomGrayscale(0.3), layers.AutoContrast()])))
case("pipeline_dense", [((6,), F)], one(layers.Pipeline([layers.Dense(4, activation="relu"), layers.Dense(3)])))
# bounding_box_format, which every image layer takes (it changes nothing
# for images alone), and MaxNumBoundingBoxes, which passes images.
case("max_num_bounding_boxes", [((4, 5, 3), F)], one(layers.MaxNumBoundingBoxes(3, bounding_box_format="xyxy")))
case("pipeline_bounding_box_format", [((6, 9, 3), F)], one(layers.Pipeline([
    layers.RandomFlip("horizontal", bounding_box_format="rel_xyxy"),
    layers.RandomContrast(0.2, bounding_box_format="rel_xyxy"),
    layers.Resizing(4, 4, pad_to_aspect_ratio=True, bounding_box_format="rel_xyxy"),
    layers.MaxNumBoundingBoxes(5, bounding_box_format="rel_xyxy"),
])))
case("random_perspective", [((5, 6, 3), F)], one(layers.RandomPerspective(0.5, scale=0.4, fill_value=0.2)))
case("stft_spectrogram", [((40, 2), F)], one(layers.STFTSpectrogram(frame_length=16, frame_step=8)))
case("stft_spectrogram_psd_same", [((30, 1), F)], one(layers.STFTSpectrogram(mode="psd", frame_length=8, frame_step=3, padding="same", expand_dims=True,
                                                                            window="hamming", periodic=True, scaling="spectrum")))
case("stft_spectrogram_angle", [((24, 2), F)], one(layers.STFTSpectrogram(mode="angle", frame_length=8, fft_length=16, window=None, scaling=None)))
# ref_power 1e-3 puts the dB values near 30: float32's spectra (Keras's
# FFT, kerasgo's DFT) differ by about 1e-5 dB, whatever the level, which
# near 0 dB is above the catalogue's relative 1e-5.
case("mel_spectrogram", [((256,), F)], one(layers.MelSpectrogram(fft_length=64, sequence_stride=32, sampling_rate=8000, num_mel_bins=10, ref_power=1e-3)))
case("mel_spectrogram_linear", [((200,), F)], one(layers.MelSpectrogram(fft_length=32, sequence_stride=16, sequence_length=24, num_mel_bins=6,
                                                                       min_freq=0.0, max_freq=6000, power_to_db=False, mag_exp=1.0)))
case("random_elastic_transform", [((8, 8, 3), F)], one(layers.RandomElasticTransform(0.5, scale=(0.2, 0.6), fill_mode="nearest", value_range=(-1, 1))))
case("random_color_jitter", [((4, 5, 3), F)], one(layers.RandomColorJitter(value_range=(0, 1), brightness_factor=0.2, contrast_factor=(0.1, 0.3),
                                                                           saturation_factor=(0.3, 0.6), hue_factor=0.1)))


def augmented(xs):
    x = layers.RandomFlip()(xs[0])
    x = layers.RandomContrast(0.2)(x)
    x = layers.RandomBrightness(0.1)(x)
    x = layers.Resizing(6, 6)(x)
    x = layers.Normalization()(x)
    x = layers.Conv2D(3, 3, kernel_regularizer=keras.regularizers.L2(0.01))(x)
    return layers.Dense(2)(layers.Flatten()(x))


case("augmented_cnn", [((8, 7, 3), F)], augmented, adapt=lambda m, d: m.get_layer("normalization").adapt(
    keras.layers.Resizing(6, 6)(d[0])))

# Lambda layers: kerasgo's tests register Go functions under these names
# (a named function by its name, a Python lambda by the layer's name).
def double_plus_one(x):
    return x * 2.0 + 1.0


case("lambda_named", [((5,), F)], lambda xs: layers.Dense(3)(layers.Lambda(double_plus_one)(xs[0])))
# (the lambda uses no globals: Keras reloads a lambda's code without its
# module's globals, so one calling keras.ops cannot be reopened by Keras)
case("lambda_anonymous", [((4, 3), F)],
     lambda xs: layers.Lambda(lambda t: t[:, :, 0] * t[:, :, 1], name="first_times_second")(xs[0]))

# Dtype policies kerasgo computes in float32 (the .json's float32_outputs
# are the same model's outputs with every policy float32).
for policy in ["mixed_float16", "mixed_bfloat16"]:
    case(f"policy_{policy}", [((6,), F)],
         lambda xs, p=policy: layers.Dense(3, dtype=p)(layers.Dense(5, activation="relu", dtype=p)(xs[0])))
case("policy_float16", [((6,), F)], lambda xs: layers.Dense(3, activation="tanh", dtype="float16")(xs[0]))
case("policy_bfloat16_conv", [((6, 6, 2), F)],
     lambda xs: layers.GlobalAveragePooling2D(dtype="bfloat16")(layers.Conv2D(3, 3, dtype="bfloat16")(xs[0])))

# Models inside models.
def nested(xs):
    inner = keras.Sequential([keras.Input((6,)), layers.Dense(4, activation="relu"), layers.Dense(2)], name="inner")
    return layers.Dense(3)(inner(xs[0]))
case("nested_sequential", [((6,), F)], nested)

# 3-D layers and the 1-D depthwise, separable and transposed convolutions.
case("conv3d", [((5, 6, 5, 2), F)], one(layers.Conv3D(3, (2, 3, 2), activation="relu")))
case("conv3d_same_strides", [((5, 6, 5, 2), F)], one(layers.Conv3D(2, 3, strides=(2, 1, 2), padding="same")))
case("conv3d_dilated_groups", [((6, 5, 6, 4), F)], one(layers.Conv3D(4, 2, dilation_rate=(2, 1, 2), groups=2)))
case("conv3d_transpose", [((3, 4, 3, 2), F)], one(layers.Conv3DTranspose(2, 3, strides=2, padding="same")))
case("conv3d_transpose_output_padding", [((2, 3, 2, 2), F)], one(layers.Conv3DTranspose(3, (3, 2, 3), strides=(2, 2, 3), output_padding=(1, 0, 2))))
case("conv2d_transpose_output_padding", [((3, 4, 2), F)], one(layers.Conv2DTranspose(2, 3, strides=2, output_padding=1)))
case("conv2d_transpose_dilated", [((4, 4, 2), F)], one(layers.Conv2DTranspose(3, 2, dilation_rate=2)))
case("conv1d_transpose", [((6, 3), F)], one(layers.Conv1DTranspose(4, 3, strides=2, padding="same", activation="tanh")))
case("conv1d_transpose_valid_output_padding", [((5, 2), F)], one(layers.Conv1DTranspose(2, 4, strides=3, output_padding=2)))
case("depthwise_conv1d", [((9, 3), F)], one(layers.DepthwiseConv1D(3, depth_multiplier=2, padding="same")))
case("separable_conv1d", [((9, 3), F)], one(layers.SeparableConv1D(4, 3, strides=2)))
case("max_pooling3d", [((4, 6, 5, 2), F)], one(layers.MaxPooling3D()))
case("max_pooling3d_same", [((5, 5, 4, 2), F)], one(layers.MaxPooling3D(3, strides=(2, 1, 2), padding="same")))
case("average_pooling3d", [((4, 6, 5, 2), F)], one(layers.AveragePooling3D((2, 3, 2))))
case("average_pooling3d_same", [((5, 5, 4, 2), F)], one(layers.AveragePooling3D(3, strides=2, padding="same")))
case("global_average_pooling3d", [((3, 4, 3, 2), F)], one(layers.GlobalAveragePooling3D()))
case("global_max_pooling3d_keepdims", [((3, 4, 3, 2), F)], one(layers.GlobalMaxPooling3D(keepdims=True)))
case("up_sampling3d", [((2, 3, 2, 2), F)], one(layers.UpSampling3D((2, 1, 3))))
case("zero_padding3d", [((2, 3, 2, 2), F)], one(layers.ZeroPadding3D(((1, 0), (2, 1), (0, 1)))))
case("cropping3d", [((5, 6, 5, 2), F)], one(layers.Cropping3D()))
case("adaptive_average_pooling3d", [((5, 7, 4, 2), F)], one(layers.AdaptiveAveragePooling3D((2, 3, 2))))
case("adaptive_max_pooling3d", [((5, 6, 7, 2), F)], one(layers.AdaptiveMaxPooling3D(3)))
case("einsum_dense", [((6,), F)], one(layers.EinsumDense("ab,bc->ac", 4, bias_axes="c", activation="relu")))
case("einsum_dense_heads", [((5, 6), F)], one(layers.EinsumDense("abc,cde->abde", (None, 2, 3), bias_axes="de")))
case("conv_lstm2d", [((3, 5, 5, 2), F)], one(layers.ConvLSTM2D(3, 3, padding="same", return_sequences=True)))
case("conv_lstm2d_strides_backwards", [((3, 6, 5, 1), F)], one(layers.ConvLSTM2D(2, (2, 3), strides=(2, 1), go_backwards=True, dropout=0.3, recurrent_dropout=0.2)))
case("conv_lstm1d", [((4, 7, 2), F)], one(layers.ConvLSTM1D(2, 3, dilation_rate=2, activation="relu", unit_forget_bias=False)))
case("conv_lstm3d", [((2, 3, 4, 3, 1), F)], one(layers.ConvLSTM3D(2, 2, padding="same")))
case("rnn_lstm_cell", [((6, 3), F)], one(layers.RNN(layers.LSTMCell(4), return_sequences=True)))
case("rnn_gru_cell_backwards", [((6, 3), F)], one(layers.RNN(layers.GRUCell(3, reset_after=False), go_backwards=True)))
case("rnn_simple_cell", [((5, 2), F)], one(layers.RNN(layers.SimpleRNNCell(3, activation="relu", dropout=0.2))))
case("rnn_stacked_cells", [((6, 3), F)], one(layers.RNN(layers.StackedRNNCells([layers.LSTMCell(4), layers.GRUCell(3), layers.LSTMCell(2)]), return_sequences=True)))
case("group_query_attention", [((4, 6), F), ((5, 6), F)], lambda xs: layers.GroupQueryAttention(3, 4, 2)(xs[0], xs[1]))
case("group_query_attention_gate_causal", [((5, 6), F)], lambda xs: layers.GroupQueryAttention(2, 2, 1, use_gate=True)(xs[0], xs[0], use_causal_mask=True))
case("einsum_dense_ellipsis", [((3, 4, 6), F)], one(layers.EinsumDense("...b,bc->...c", 5, kernel_initializer="he_normal")))


# A shared layer whose second call takes the output of a layer listed
# after it in the config: the loader makes the calls in passes, as
# Keras's functional_from_config does.
def shared_called_later(xs):
    shared = layers.Dense(2, name="shared")
    y = shared(layers.Concatenate()([layers.Dense(3)(xs[1]), xs[0]]))
    z = shared(layers.Dense(6, name="again")(y))
    return layers.Add()([y, z])
case("shared_called_after_a_later_layer", [((3,), F), ((5,), F)], shared_called_later)


def as_json(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "data": a.astype("float64").ravel().tolist()}


def float32_twin(model, data):
    """The model's outputs with every dtype policy float32, same weights."""
    config = json.loads(json.dumps(model.get_config()).replace('"mixed_float16"', '"float32"')
                        .replace('"mixed_bfloat16"', '"float32"').replace('"bfloat16"', '"float32"')
                        .replace('"float16"', '"float32"'))
    twin = keras.Model.from_config(config)
    twin.set_weights([np.asarray(w, dtype="float32") for w in model.get_weights()])
    pred = twin.predict(data if len(data) > 1 else data[0], verbose=0)
    return list(pred) if isinstance(pred, (list, tuple)) else [pred]


def main(out):
    os.makedirs(out, exist_ok=True)
    index = []
    for name, inputs, build in CASES:
        keras.utils.clear_session()
        xs = [keras.Input(shape, dtype=dt) for shape, dt in inputs]
        y = build(xs)
        model = keras.Model(xs, y, name=name)
        for w in model.weights:
            v = rng.normal(scale=0.5, size=w.shape)
            if "variance" in w.path:
                v = rng.uniform(0.5, 1.5, size=w.shape)
            w.assign(v.astype("float32"))
        for layer in model._flatten_layers(include_self=False):
            if isinstance(layer, layers.Normalization):
                layer.finalize_state()  # it computes from copies of its weights, made when they change by adapt or loading
        data = []
        for shape, dt in inputs:
            shape = [5 if d is None else d for d in shape]  # a None dimension gets a length
            data.append(ids(4, *shape) if dt == "int32" else normal(4, *shape))
        if name in ADAPT:
            ADAPT[name](model, data)
        pred = model.predict(data if len(data) > 1 else data[0], verbose=0)
        outs = list(pred) if isinstance(pred, (list, tuple)) else [pred]  # a tuple for a layer with two outputs
        model.save(os.path.join(out, name + ".keras"))
        record = {"inputs": [as_json(d) for d in data], "outputs": [as_json(o) for o in outs]}
        if name.startswith("policy_"):
            record["float32_outputs"] = [as_json(o) for o in float32_twin(model, data)]
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(record, f)
        classes = {type(l).__name__ for l in model._flatten_layers(include_self=False)}
        classes |= {type(op).__name__ for op in model.operations}  # keras.ops in the graph: NotEqual, Any
        classes = sorted(classes - {"InputLayer"})
        index.append({"name": name, "classes": classes})
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump({"keras": keras.__version__, "cases": index}, f)


if __name__ == "__main__":
    main(sys.argv[1])
