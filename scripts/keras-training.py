"""Train, with Keras itself, one small model per optimizer setting and per
loss for 20 steps, and record what kerasgo must reproduce
(keras/keras_training_test.go): the model as saved before training
(.keras, compiled, with its initial weights), the data, after every
epoch the weights and the logs, and the trained model with its
optimizer state (.trained.keras) with the losses of two more steps.

    KERAS_BACKEND=jax build/keras-env/bin/python scripts/keras-training.py OUT_DIR

Writes OUT_DIR/<name>.keras, <name>.trained.keras, <name>.json and
index.json.
Every case trains 2 epochs of 10 batches of 8 samples, unshuffled, so
that the same 20 steps can be taken in kerasgo.
"""

import json
import os
import sys

import numpy as np

import keras
from keras import constraints, layers, losses, metrics, optimizers, regularizers
from keras.optimizers import schedules

rng = np.random.default_rng(2026112318)

SAMPLES, BATCH, EPOCHS, FEATURES = 80, 8, 2, 6


def targets(kind, n):
    """Targets for a model kind, and the output layer it ends with."""
    if kind == "regression":
        return rng.normal(size=(n, 3)), layers.Dense(3)
    if kind == "positive":
        return rng.uniform(0.5, 2.0, size=(n, 3)), layers.Dense(3, activation="softplus")
    if kind == "distribution":
        return rng.dirichlet(np.ones(4), size=n), layers.Dense(4, activation="softmax")
    if kind == "binary":
        return rng.integers(0, 2, size=(n, 1)).astype("float64"), layers.Dense(1, activation="sigmoid")
    if kind == "binary_logits":
        return rng.integers(0, 2, size=(n, 1)).astype("float64"), layers.Dense(1)
    if kind == "categorical":
        return np.eye(4)[rng.integers(0, 4, size=n)], layers.Dense(4, activation="softmax")
    if kind == "categorical_logits":
        return np.eye(4)[rng.integers(0, 4, size=n)], layers.Dense(4)
    if kind == "sparse":
        return rng.integers(0, 4, size=(n,)).astype("float64"), layers.Dense(4, activation="softmax")
    if kind == "sparse_logits":
        return rng.integers(0, 4, size=(n,)).astype("float64"), layers.Dense(4)
    if kind == "binary_multi":  # several 0/1 targets per sample, as a segmentation mask's pixels
        return rng.integers(0, 2, size=(n, 3)).astype("float64"), layers.Dense(3, activation="sigmoid")
    if kind == "embedding":  # class labels, one per sample, for a metric-learning loss over embeddings
        return rng.integers(0, 4, size=(n,)).astype("float64"), layers.Dense(4)
    if kind == "ctc":  # label sequences of 1 to 3 labels in [1, 5), padded with CTC's blank 0; logits per step
        y = rng.integers(1, 5, size=(n, 3))
        for i, length in enumerate(rng.integers(1, 4, size=n)):
            y[i, length:] = 0
        return y.astype("float64"), layers.Dense(5)
    if kind == "signs":
        return rng.choice([-1.0, 1.0], size=(n, 3)), layers.Dense(3, activation="tanh")
    # Sequences: one target per step, the head applied to every step.
    if kind == "seq_sparse":
        return rng.integers(0, 4, size=(n, STEPS)).astype("float64"), layers.Dense(4, activation="softmax")
    if kind == "seq_categorical":
        return np.eye(4)[rng.integers(0, 4, size=(n, STEPS))], layers.Dense(4, activation="softmax")
    if kind == "seq_binary":
        return rng.integers(0, 2, size=(n, STEPS, 1)).astype("float64"), layers.Dense(1, activation="sigmoid")
    if kind == "seq_regression":
        return rng.normal(size=(n, STEPS, 2)), layers.Dense(2)
    raise ValueError(kind)


# Sequence inputs: token ids padded with 0 after a length of 1 to STEPS
# (an Embedding with mask_zero masks the padding), or feature vectors
# zeroed there (for Masking).
STEPS, VOCAB = 6, 9


def padded_ids(n):
    ids = rng.integers(1, VOCAB, size=(n, STEPS))
    for i, length in enumerate(rng.integers(1, STEPS + 1, size=n)):
        ids[i, length:] = 0
    return ids.astype("int32")


def padded_vectors(n):
    x = rng.normal(size=(n, STEPS, 3))
    for i, length in enumerate(rng.integers(1, STEPS + 1, size=n)):
        x[i, length:] = 0
    return x.astype("float32")


REGRESSION_METRICS = lambda: ["mae", metrics.RootMeanSquaredError()]
BINARY_METRICS = lambda: ["accuracy", metrics.AUC(), metrics.Precision(), metrics.Recall()]
CATEGORICAL_METRICS = lambda: ["accuracy", metrics.F1Score(average="macro"), metrics.TopKCategoricalAccuracy(k=2)]
SPARSE_METRICS = lambda: ["accuracy", metrics.MeanIoU(num_classes=4, sparse_y_pred=False), metrics.SparseTopKCategoricalAccuracy(k=2)]
SEQ_SPARSE_METRICS = lambda: ["accuracy", metrics.SparseTopKCategoricalAccuracy(k=2), metrics.MeanIoU(num_classes=4, sparse_y_pred=False)]
SEQ_CATEGORICAL_METRICS = lambda: ["accuracy", metrics.TopKCategoricalAccuracy(k=2), "mae", "mse", metrics.Precision(), metrics.Recall(), metrics.AUC()]
SEQ_BINARY_METRICS = lambda: ["accuracy", metrics.Precision(), metrics.Recall(), metrics.AUC()]
SEQ_REGRESSION_METRICS = lambda: ["mae", "mse", metrics.RootMeanSquaredError()]
NO_METRICS = lambda: []
# The rest of keras.metrics, each beside the models whose outputs suit it.
MORE_REGRESSION_METRICS = lambda: [metrics.R2Score(), metrics.R2Score(class_aggregation="variance_weighted_average", name="r2_weighted"),
                                   metrics.PearsonCorrelation(), metrics.ConcordanceCorrelation(), metrics.LogCoshError(),
                                   metrics.MeanAbsolutePercentageError(), metrics.CosineSimilarity()]
MORE_BINARY_METRICS = lambda: [metrics.BinaryCrossentropy(), metrics.TruePositives(), metrics.FalsePositives(thresholds=0.3),
                               metrics.TrueNegatives(), metrics.FalseNegatives(), metrics.PrecisionAtRecall(0.5),
                               metrics.RecallAtPrecision(0.5), metrics.SensitivityAtSpecificity(0.5), metrics.SpecificityAtSensitivity(0.5),
                               metrics.BinaryIoU(), metrics.Hinge(), metrics.SquaredHinge()]
MORE_CATEGORICAL_METRICS = lambda: [metrics.CategoricalCrossentropy(), metrics.KLDivergence(), metrics.CategoricalHinge(),
                                    metrics.FBetaScore(average="weighted", beta=2.0), metrics.OneHotIoU(num_classes=4, target_class_ids=[0, 2]),
                                    metrics.OneHotMeanIoU(num_classes=4), metrics.Accuracy()]
MORE_SPARSE_METRICS = lambda: [metrics.SparseCategoricalCrossentropy(), metrics.IoU(num_classes=4, target_class_ids=[1, 3], sparse_y_pred=False)]
MORE_POSITIVE_METRICS = lambda: [metrics.Poisson(), metrics.MeanSquaredLogarithmicError()]

CASES = []


def case(name, kind, optimizer, loss, metric_list=NO_METRICS, weighting=None, validation=False, arch="dense"):
    """weighting: None, "sample" or "class"; arch: the model's body (ARCHS)."""
    CASES.append(dict(name=name, kind=kind, optimizer=optimizer, loss=loss, metrics=metric_list, weighting=weighting,
                      validation=validation, arch=arch))


# The models' bodies before the head, by the shape of one sample: Dense;
# a convolution with BatchNormalization (its moving statistics are
# weights compared after each epoch too) and pooling; recurrent layers.
ARCHS = {
    "dense": ((FEATURES,), lambda x: layers.Dense(8, activation="tanh")(x)),
    "conv_batchnorm": ((6, 6, 2), lambda x: layers.Dense(8, activation="tanh")(layers.Flatten()(layers.MaxPooling2D()(
        layers.BatchNormalization()(layers.Conv2D(4, 3, padding="same", activation="relu")(x)))))),
    "lstm": ((5, 3), lambda x: layers.Dense(8, activation="tanh")(layers.LSTM(6)(x))),
    "lstm_steps": ((STEPS, 3), lambda x: layers.LSTM(6, return_sequences=True)(x)),
    "gru_sequence": ((5, 3), lambda x: layers.GlobalAveragePooling1D()(layers.GRU(8, return_sequences=True)(x))),
    # Regularizers (weight and activity penalties in the loss) and
    # constraints (applied after each update). No L1 penalty meets a
    # weight NonNeg clipped to exactly 0: there Keras on JAX takes |x|'s
    # gradient as 1, on TensorFlow and PyTorch (and kerasgo) as 0.
    "regularized": ((FEATURES,), lambda x: layers.ActivityRegularization(l1=0.01, l2=0.005)(
        layers.Dense(6, activation="tanh", kernel_regularizer=regularizers.OrthogonalRegularizer(0.1, mode="columns"),
                     kernel_constraint=constraints.UnitNorm(axis=0), bias_constraint=constraints.NonNeg())(
            layers.Dense(8, activation="tanh", kernel_regularizer=regularizers.L1L2(l1=0.01, l2=0.02),
                         bias_regularizer=regularizers.L1(0.05), activity_regularizer=regularizers.L2(0.01),
                         kernel_constraint=constraints.MaxNorm(1.0))(x)))),
    "conv_regularized": ((6, 6, 2), lambda x: layers.Dense(8, activation="tanh", kernel_regularizer="l2")(layers.Flatten()(
        layers.Conv2D(4, 3, activation="relu", kernel_regularizer=regularizers.L2(0.01), bias_regularizer="l1",
                      activity_regularizer=regularizers.L1(0.001),
                      kernel_constraint=constraints.MinMaxNorm(0.5, 1.5, rate=0.5, axis=[0, 1, 2]))(x)))),
    "lstm_regularized": ((5, 3), lambda x: layers.LSTM(6, kernel_regularizer=regularizers.L2(0.01), recurrent_regularizer=regularizers.L1(0.01),
                                                       bias_regularizer=regularizers.L2(0.1), recurrent_constraint=constraints.MaxNorm(1.5, axis=1))(x)),
    "separable_regularized": ((6, 6, 2), lambda x: layers.Dense(8, activation="tanh")(layers.Flatten()(
        layers.PReLU(alpha_regularizer=regularizers.L2(0.1), alpha_constraint=constraints.MaxNorm(0.5, axis=[0, 1, 2]))(
            layers.SeparableConv2D(4, 3, padding="same", depthwise_regularizer=regularizers.L2(0.01),
                                   pointwise_regularizer=regularizers.L1L2(l1=0.01, l2=0.01), bias_regularizer=regularizers.L2(0.1),
                                   pointwise_constraint=constraints.UnitNorm(axis=[0, 1, 2]))(
                layers.BatchNormalization(gamma_regularizer=regularizers.L2(0.05), beta_regularizer=regularizers.L2(0.02),
                                          gamma_constraint=constraints.MinMaxNorm(0.5, 1.5, axis=0))(
                    layers.DepthwiseConv2D(3, depthwise_regularizer=regularizers.L2(0.02), bias_regularizer=regularizers.L2(0.01),
                                           depthwise_constraint=constraints.MaxNorm(1.0, axis=[0, 1]))(x))))))),
    # SpectralNormalization: the wrapped kernel divided by its spectral
    # norm in each training step, vector_u carried from step to step.
    "spectral_normalization": ((FEATURES,), lambda x: layers.SpectralNormalization(layers.Dense(8, activation="tanh"), power_iterations=2)(x)),
    "spectral_normalization_conv": ((6, 6, 2), lambda x: layers.Dense(8, activation="tanh")(layers.Flatten()(
        layers.SpectralNormalization(layers.Conv2D(4, 3, activation="relu"))(x)))),
    "attention_regularized": ((5, 4), lambda x: layers.GlobalAveragePooling1D()(
        layers.LayerNormalization(gamma_regularizer=regularizers.L2(0.1), beta_regularizer=regularizers.L2(0.1))(
            layers.MultiHeadAttention(2, 3, kernel_regularizer=regularizers.L2(0.01), bias_regularizer=regularizers.L2(0.05),
                                      activity_regularizer=regularizers.L2(0.001), kernel_constraint=constraints.MaxNorm(2.0))(x, x)))),
    "bidirectional_regularized": ((5, 3), lambda x: layers.GlobalAveragePooling1D()(
        layers.GroupNormalization(groups=2, gamma_regularizer=regularizers.L2(0.1), beta_constraint=constraints.MaxNorm(1.0))(
            layers.Bidirectional(layers.LSTM(4, return_sequences=True, activity_regularizer=regularizers.L2(0.01),
                                             kernel_regularizer=regularizers.L2(0.01)))(x)))),
}


# Sequence bodies, whose input is not normal noise: (sample shape, body,
# the inputs' maker); the head (Dense) is applied to every step and keeps
# the mask, so that the loss and the metrics are masked as Keras 3 masks
# them.
SEQUENCE_ARCHS = {
    "embedding_masked": ((STEPS,), lambda x: layers.Dense(8, activation="tanh")(layers.Embedding(VOCAB, 5, mask_zero=True)(x)), padded_ids),
    "embedding_unmasked": ((STEPS,), lambda x: layers.Dense(8, activation="tanh")(layers.Embedding(VOCAB, 5)(x)), padded_ids),
    "masking": ((STEPS, 3), lambda x: layers.Dense(8, activation="tanh")(layers.Masking()(x)), padded_vectors),
    "embedding_lstm_masked": ((STEPS,), lambda x: layers.LSTM(6, return_sequences=True)(layers.Embedding(VOCAB, 5, mask_zero=True)(x)), padded_ids),
    "embedding_attention_masked": ((STEPS,), lambda x: (lambda e: layers.MultiHeadAttention(2, 3)(e, e))(layers.Embedding(VOCAB, 6, mask_zero=True)(x)), padded_ids),
    # A language model's tied embeddings: the ids embedded, and the
    # hidden states projected back by the same matrix (soft-capped).
    "reversible_embedding_tied": ((STEPS,), lambda x: (lambda e: e(layers.Dense(5, activation="tanh")(e(x)), reverse=True))(
        layers.ReversibleEmbedding(VOCAB, 5, mask_zero=True, logit_soft_cap=3.0)), padded_ids),
}


def seq2seq_body(inputs):
    """A Transformer-style encoder-decoder of built-in layers: the encoder
    attends over its own data steps; the decoder attends causally over
    its own data steps, then to the encoder's (the query's mask from the
    decoder, the value's from the encoder), with residual sums (Add joins
    the masks) and LayerNormalization."""
    source, target = inputs
    enc = layers.Embedding(VOCAB, 6, mask_zero=True)(source)
    enc = layers.LayerNormalization()(layers.Add()([enc, layers.MultiHeadAttention(2, 3)(enc, enc)]))
    dec = layers.Embedding(VOCAB, 6, mask_zero=True)(target)
    dec = layers.LayerNormalization()(layers.Add()([dec, layers.MultiHeadAttention(2, 3)(dec, dec, use_causal_mask=True)]))
    return layers.Add()([dec, layers.MultiHeadAttention(2, 3)(dec, enc)])


# Models of several inputs: (each input's sample shape, body, the inputs'
# maker), as SEQUENCE_ARCHS.
MULTI_INPUT_ARCHS = {
    "seq2seq_masked": ([(STEPS,), (STEPS,)], seq2seq_body, lambda n: [padded_ids(n), padded_ids(n)]),
}


def rows(x, lo, hi):
    """Samples lo to hi of an input, or of each of several."""
    return [a[lo:hi] for a in x] if isinstance(x, list) else x[lo:hi]


# Every optimizer with its defaults, on one regression model.
for opt in [optimizers.SGD, optimizers.Adam, optimizers.AdamW, optimizers.RMSprop, optimizers.Adadelta, optimizers.Adagrad,
            optimizers.Adamax, optimizers.Nadam, optimizers.Lion, optimizers.Ftrl, optimizers.Lamb, optimizers.Adafactor, optimizers.ScheduleFreeAdamW]:
    case(f"optimizer_{opt.__name__.lower()}", "regression", lambda opt=opt: opt(), "mse", REGRESSION_METRICS)
# Their settings: momentum, clipping, weight decay, EMA, accumulation, schedules.
case("optimizer_sgd_momentum_nesterov", "regression", lambda: optimizers.SGD(0.05, momentum=0.9, nesterov=True), "mse")
case("optimizer_sgd_momentum", "regression", lambda: optimizers.SGD(0.05, momentum=0.5), "mse")
case("optimizer_adam_clipnorm", "regression", lambda: optimizers.Adam(0.01, clipnorm=0.05), "mse")
case("optimizer_sgd_global_clipnorm", "regression", lambda: optimizers.SGD(0.1, global_clipnorm=0.2), "mse")
case("optimizer_rmsprop_clipvalue", "regression", lambda: optimizers.RMSprop(0.01, clipvalue=0.01), "mse")
case("optimizer_sgd_weight_decay", "regression", lambda: optimizers.SGD(0.05, weight_decay=0.1), "mse")
case("optimizer_adam_weight_decay", "regression", lambda: optimizers.Adam(0.01, weight_decay=0.05), "mse")
case("optimizer_adamw_weight_decay", "regression", lambda: optimizers.AdamW(0.01, weight_decay=0.1), "mse")
case("optimizer_adam_ema", "regression", lambda: optimizers.Adam(0.01, use_ema=True, ema_momentum=0.9), "mse")
case("optimizer_sgd_ema_overwrite", "regression", lambda: optimizers.SGD(0.05, use_ema=True, ema_momentum=0.8, ema_overwrite_frequency=5), "mse")
case("optimizer_adam_accumulation", "regression", lambda: optimizers.Adam(0.01, gradient_accumulation_steps=3), "mse")
case("optimizer_sgd_ema_accumulation", "regression", lambda: optimizers.SGD(0.05, use_ema=True, ema_momentum=0.8, ema_overwrite_frequency=2, gradient_accumulation_steps=2), "mse")
case("optimizer_lamb_weight_decay", "regression", lambda: optimizers.Lamb(0.01, beta_1=0.8, weight_decay=0.05), "mse")
case("optimizer_adafactor_fixed_step", "regression", lambda: optimizers.Adafactor(0.05, relative_step=False, clip_threshold=0.5, beta_2_decay=-0.6), "mse")
case("optimizer_schedule_free_adamw_warmup", "regression", lambda: optimizers.ScheduleFreeAdamW(0.01, warmup_steps=5, weight_decay=0.05), "mse")
case("optimizer_adafactor_conv", "regression", lambda: optimizers.Adafactor(0.02), "mse", arch="conv_batchnorm")
case("optimizer_adam_amsgrad", "regression", lambda: optimizers.Adam(0.01, amsgrad=True), "mse")
case("optimizer_rmsprop_centered_momentum", "regression", lambda: optimizers.RMSprop(0.01, momentum=0.5, centered=True), "mse")
case("schedule_exponential_decay", "regression", lambda: optimizers.Adam(schedules.ExponentialDecay(0.01, decay_steps=5, decay_rate=0.5)), "mse")
case("schedule_exponential_decay_staircase", "regression", lambda: optimizers.SGD(schedules.ExponentialDecay(0.1, 4, 0.7, staircase=True)), "mse")
case("schedule_cosine_decay", "regression", lambda: optimizers.SGD(schedules.CosineDecay(0.1, decay_steps=20, alpha=0.1)), "mse")
case("schedule_cosine_decay_warmup", "regression", lambda: optimizers.SGD(schedules.CosineDecay(0.0, 15, warmup_target=0.1, warmup_steps=5)), "mse")
case("schedule_piecewise_constant", "regression", lambda: optimizers.SGD(schedules.PiecewiseConstantDecay([5, 12], [0.1, 0.05, 0.01])), "mse")
case("schedule_inverse_time", "regression", lambda: optimizers.SGD(schedules.InverseTimeDecay(0.1, 5, 0.5)), "mse")
case("schedule_polynomial", "regression", lambda: optimizers.SGD(schedules.PolynomialDecay(0.1, 20, 0.01, power=2.0)), "mse")
case("schedule_cosine_restarts", "regression", lambda: optimizers.SGD(schedules.CosineDecayRestarts(0.1, 6)), "mse")

# Every loss, each on a model whose outputs suit it.
ADAM = lambda: optimizers.Adam(0.01)
for name, kind, loss, ms in [
    ("mean_squared_error", "regression", "mean_squared_error", REGRESSION_METRICS),
    ("mean_absolute_error", "regression", "mean_absolute_error", REGRESSION_METRICS),
    ("mean_absolute_percentage_error", "positive", "mean_absolute_percentage_error", NO_METRICS),
    ("mean_squared_logarithmic_error", "positive", "mean_squared_logarithmic_error", NO_METRICS),
    ("huber", "regression", lambda: losses.Huber(delta=0.5), NO_METRICS),
    ("log_cosh", "regression", "log_cosh", NO_METRICS),
    ("cosine_similarity", "regression", "cosine_similarity", NO_METRICS),
    ("kl_divergence", "distribution", "kl_divergence", NO_METRICS),
    ("poisson", "positive", "poisson", NO_METRICS),
    ("hinge", "signs", "hinge", NO_METRICS),
    ("squared_hinge", "signs", "squared_hinge", NO_METRICS),
    ("categorical_hinge", "categorical", "categorical_hinge", NO_METRICS),
    ("binary_crossentropy", "binary", "binary_crossentropy", BINARY_METRICS),
    ("binary_crossentropy_logits_smoothing", "binary_logits", lambda: losses.BinaryCrossentropy(from_logits=True, label_smoothing=0.1), NO_METRICS),
    ("binary_focal_crossentropy", "binary", lambda: losses.BinaryFocalCrossentropy(gamma=1.5), NO_METRICS),
    ("binary_focal_crossentropy_balanced", "binary_logits", lambda: losses.BinaryFocalCrossentropy(apply_class_balancing=True, alpha=0.3, from_logits=True), NO_METRICS),
    ("categorical_crossentropy", "categorical", "categorical_crossentropy", CATEGORICAL_METRICS),
    ("categorical_crossentropy_logits_smoothing", "categorical_logits", lambda: losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.2), NO_METRICS),
    ("categorical_focal_crossentropy", "categorical", lambda: losses.CategoricalFocalCrossentropy(), NO_METRICS),
    ("sparse_categorical_crossentropy", "sparse", "sparse_categorical_crossentropy", SPARSE_METRICS),
    ("sparse_categorical_crossentropy_logits", "sparse_logits", lambda: losses.SparseCategoricalCrossentropy(from_logits=True), NO_METRICS),
    ("loss_reduction_sum", "regression", lambda: losses.MeanSquaredError(reduction="sum"), NO_METRICS),
    ("dice", "binary_multi", "dice", NO_METRICS),
    ("dice_per_sample", "binary_multi", lambda: losses.Dice(axis=(1,)), NO_METRICS),
    ("tversky", "binary_multi", lambda: losses.Tversky(alpha=0.3, beta=0.7, axis=(1,)), NO_METRICS),
    ("circle", "embedding", lambda: losses.Circle(gamma=16.0, margin=0.25), NO_METRICS),
]:
    case(f"loss_{name}", kind, ADAM, loss, ms)
# CTC: logits per step of a recurrent layer against shorter label sequences.
# (CategoricalGeneralizedCrossEntropy is not here: Keras 3.15 cannot load
# a model compiled with it, its deserialization table lacks the class.)
case("loss_ctc", "ctc", ADAM, "ctc", arch="lstm_steps")

# The rest of Keras's metrics, accumulated over each epoch, with validation.
case("metrics_regression", "regression", ADAM, "mse", MORE_REGRESSION_METRICS, validation=True)
case("metrics_binary", "binary", ADAM, "binary_crossentropy", MORE_BINARY_METRICS, validation=True)
case("metrics_categorical", "categorical", ADAM, "categorical_crossentropy", MORE_CATEGORICAL_METRICS)
case("metrics_sparse", "sparse", ADAM, "sparse_categorical_crossentropy", MORE_SPARSE_METRICS)
case("metrics_positive", "positive", ADAM, "poisson", MORE_POSITIVE_METRICS)

# Sample and class weights (they weigh the metrics too), with validation.
case("weights_sample_regression", "regression", ADAM, "mse", REGRESSION_METRICS, weighting="sample", validation=True)
case("weights_sample_categorical", "categorical", ADAM, "categorical_crossentropy", CATEGORICAL_METRICS, weighting="sample", validation=True)
case("weights_class_binary", "binary", ADAM, "binary_crossentropy", BINARY_METRICS, weighting="class", validation=True)
case("weights_class_sparse", "sparse", ADAM, "sparse_categorical_crossentropy", SPARSE_METRICS, weighting="class", validation=True)

# Convolution, BatchNormalization and recurrent layers trained as Keras trains them.
case("arch_conv_batchnorm", "categorical", ADAM, "categorical_crossentropy", CATEGORICAL_METRICS, arch="conv_batchnorm")
case("arch_conv_batchnorm_sgd", "regression", lambda: optimizers.SGD(0.05, momentum=0.9), "mse", arch="conv_batchnorm", validation=True)
case("arch_lstm", "sparse", ADAM, "sparse_categorical_crossentropy", SPARSE_METRICS, arch="lstm")
case("regularizers_dense_sgd", "regression", lambda: optimizers.SGD(0.05), "mse", REGRESSION_METRICS, arch="regularized", validation=True)
case("regularizers_dense_adam", "sparse", ADAM, "sparse_categorical_crossentropy", SPARSE_METRICS, arch="regularized")
case("regularizers_conv", "regression", lambda: optimizers.SGD(0.05, momentum=0.9), "mse", arch="conv_regularized")
case("regularizers_lstm", "regression", ADAM, "mse", arch="lstm_regularized")
case("regularizers_separable", "regression", ADAM, "mse", arch="separable_regularized")
case("regularizers_attention", "regression", ADAM, "mse", arch="attention_regularized")
case("regularizers_bidirectional", "regression", ADAM, "mse", arch="bidirectional_regularized")
case("arch_gru_sequence", "regression", lambda: optimizers.RMSprop(0.01), "mse", REGRESSION_METRICS, arch="gru_sequence")

# Sequence outputs, one target per step: the loss and the metrics over
# the data steps of masked outputs (Embedding mask_zero, Masking, carried
# through Dense, LSTM and MultiHeadAttention), over every step otherwise;
# Keras's temporal sample weights (samples, steps); a summed loss.
case("seq_masked_sparse", "seq_sparse", ADAM, "sparse_categorical_crossentropy", SEQ_SPARSE_METRICS, arch="embedding_masked", validation=True)
case("seq_masked_categorical", "seq_categorical", ADAM, "categorical_crossentropy", SEQ_CATEGORICAL_METRICS, arch="embedding_masked")
case("seq_masked_binary", "seq_binary", ADAM, "binary_crossentropy", SEQ_BINARY_METRICS, arch="embedding_masked")
case("seq_masking_regression", "seq_regression", ADAM, "mse", SEQ_REGRESSION_METRICS, arch="masking", validation=True)
case("seq_unmasked_sparse", "seq_sparse", ADAM, "sparse_categorical_crossentropy", SEQ_SPARSE_METRICS, arch="embedding_unmasked")
case("seq_unmasked_categorical", "seq_categorical", ADAM, "categorical_crossentropy", SEQ_CATEGORICAL_METRICS, arch="embedding_unmasked")
case("seq_masked_lstm", "seq_sparse", ADAM, "sparse_categorical_crossentropy", SEQ_SPARSE_METRICS, arch="embedding_lstm_masked")
case("seq_masked_attention", "seq_sparse", lambda: optimizers.SGD(0.05), "sparse_categorical_crossentropy", SEQ_SPARSE_METRICS, arch="embedding_attention_masked")
case("seq_masked_temporal_weights", "seq_sparse", ADAM, "sparse_categorical_crossentropy", SEQ_SPARSE_METRICS, weighting="temporal",
     arch="embedding_masked", validation=True)
case("seq_unmasked_temporal_weights", "seq_regression", ADAM, "mae", SEQ_REGRESSION_METRICS, weighting="temporal", arch="embedding_unmasked")
case("seq_masked_loss_sum", "seq_sparse", lambda: optimizers.SGD(0.01), lambda: losses.SparseCategoricalCrossentropy(reduction="sum"),
     SEQ_SPARSE_METRICS, arch="embedding_masked")
case("seq_masked_loss_mean_with_sample_weight", "seq_binary", ADAM, lambda: losses.BinaryCrossentropy(reduction="mean_with_sample_weight"),
     SEQ_BINARY_METRICS, weighting="temporal", arch="embedding_masked")
# A masked encoder-decoder of two inputs: self, causal and cross
# attention over each side's data steps, the loss over the decoder's.
# SGD, as for seq_masked_attention: the key biases' gradient is 0 up to
# rounding, which Adam would scale up into steps of noise.
case("seq2seq_masked", "seq_sparse", lambda: optimizers.SGD(0.05), "sparse_categorical_crossentropy", SEQ_SPARSE_METRICS, arch="seq2seq_masked", validation=True)
# Appended last, so that the cases before them draw the same numbers.
case("optimizer_muon", "regression", lambda: optimizers.Muon(0.01), "mse")
case("optimizer_muon_options", "regression", lambda: optimizers.Muon(0.02, exclude_layers=["dense_1"], nesterov=False, rms_rate=None, adam_lr_ratio=0.5,
                                                                     weight_decay=0.01, adam_weight_decay=0.02, ns_steps=3), "mse")
case("optimizer_muon_embedding", "seq_sparse", lambda: optimizers.Muon(0.01), "sparse_categorical_crossentropy", arch="embedding_unmasked")
# Loss scaling in float32 (kerasgo's): Adam's training, the scale
# doubling every 3 steps, saved with the state.
case("optimizer_loss_scale", "regression", lambda: optimizers.LossScaleOptimizer(optimizers.Adam(0.01), initial_scale=8.0, dynamic_growth_steps=3), "mse")
case("seq_reversible_embedding", "seq_sparse", ADAM, "sparse_categorical_crossentropy", arch="reversible_embedding_tied")
case("arch_spectral_normalization", "regression", ADAM, "mse", arch="spectral_normalization")
case("arch_spectral_normalization_conv", "regression", lambda: optimizers.SGD(0.05), "mse", arch="spectral_normalization_conv")
# MultiOptimizer: the body's variables (paths "dense/...") by Adam, the
# head's by the default SGD; an optimizer no path selects is never built.
case("optimizer_multi", "regression", lambda: optimizers.MultiOptimizer(optimizers.OptimizerMap(
    optimizers.SGD(0.05, momentum=0.5), {"dense/.*": optimizers.Adam(0.01), "nothing": optimizers.RMSprop()})), "mse", REGRESSION_METRICS)


def as_json(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "data": a.astype("float64").ravel().tolist()}


class Record(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.weights = []

    def on_epoch_end(self, epoch, logs=None):
        self.weights.append([as_json(w) for w in self.model.get_weights()])


def masked_train_metrics(path, x, y, sw, final_weights):
    """The training metrics of a masked model, per epoch, as Keras's
    metrics compute them with the output's mask.

    On JAX, Keras's fit computes the training metrics from the
    predictions its gradient transformation returns, which lose the mask
    the loss used (its TensorFlow and PyTorch trainers keep it, and its
    evaluate masks on every backend); kerasgo masks them everywhere. So
    the same 20 steps are taken again with train_on_batch, and before each
    step the compiled metrics of a second copy of the model, holding the
    same weights, are updated with the step's predictions, mask and all.
    """
    trained, metered = keras.saving.load_model(path), keras.saving.load_model(path)
    out = {}
    for _ in range(EPOCHS):
        metered.reset_metrics()
        for i in range(0, SAMPLES, BATCH):
            xb, yb = rows(x, i, i + BATCH), y[i:i + BATCH]
            metered.set_weights(trained.get_weights())
            logs = metered.compute_metrics(xb, yb, metered(xb, training=True), sample_weight=None)
            trained.train_on_batch(xb, yb, sample_weight=None if sw is None else sw[i:i + BATCH])
        for k, v in logs.items():
            if k != "loss":
                out.setdefault(k, []).append(float(v))
    for got, want in zip(trained.get_weights(), final_weights):
        assert np.allclose(got.ravel(), want["data"], atol=1e-6), "train_on_batch did not take fit's steps"
    return out


def build(c, out):
    keras.utils.clear_session()
    if c["arch"] in MULTI_INPUT_ARCHS:
        sample, body, make = MULTI_INPUT_ARCHS[c["arch"]]
    elif c["arch"] in SEQUENCE_ARCHS:
        sample, body, make = SEQUENCE_ARCHS[c["arch"]]
    else:
        sample, body = ARCHS[c["arch"]]
        make = lambda n: rng.normal(size=(n, *sample)).astype("float32")
    x = make(SAMPLES)
    y, head = targets(c["kind"], SAMPLES)
    val = None
    if c["validation"]:
        vx = make(16)
        vy, _ = targets(c["kind"], 16)
        val = (vx, vy.astype("float32"))
    if isinstance(x, list):
        inp = [keras.Input(shape, dtype=a.dtype.name) for shape, a in zip(sample, x)]
    else:
        inp = keras.Input(sample, dtype=x.dtype.name)
    model = keras.Model(inp, head(body(inp)), name=c["name"])
    for w in model.weights:
        v = rng.normal(scale=0.5, size=w.shape)
        if "variance" in w.path:  # BatchNormalization's moving variance stays positive
            v = rng.uniform(0.5, 1.5, size=w.shape)
        w.assign(v.astype("float32"))
    loss = c["loss"]() if callable(c["loss"]) else c["loss"]
    model.compile(optimizer=c["optimizer"](), loss=loss, metrics=c["metrics"]())
    path = os.path.join(out, c["name"] + ".keras")
    model.save(path)
    # Train what the file holds, as kerasgo does: Keras 3.15 writes no
    # delta for Huber (its get_config drops it), so a Huber(delta=0.5)
    # trains with delta 1 once reloaded, in Keras as in kerasgo.
    model = keras.saving.load_model(path)
    if isinstance(model.optimizer, optimizers.ScheduleFreeAdamW) and model.optimizer.built:
        # Keras 3.15 builds the optimizer while it loads the compile
        # config, before the weights: ScheduleFreeAdamW's momentum starts
        # as the fresh layers' random weights, not the file's. Start it as
        # a model compiled and trained without the reload starts it.
        for momentum, variable in zip(model.optimizer._momentums, model.trainable_variables):
            momentum.assign(np.array(variable))  # a copy: JAX refuses two variables sharing a buffer
    fit = dict(batch_size=BATCH, epochs=EPOCHS, shuffle=False, verbose=0)
    record = {"y": as_json(y)}
    if isinstance(x, list):
        record["xs"] = [as_json(a) for a in x]
    else:
        record["x"] = as_json(x)
    if c["weighting"] == "sample":
        sw = rng.uniform(0.2, 2.0, size=(SAMPLES,)).astype("float32")
        fit["sample_weight"] = sw
        record["sample_weight"] = as_json(sw)
    if c["weighting"] == "temporal":  # one weight per sample and step
        sw = rng.uniform(0.2, 2.0, size=(SAMPLES, STEPS)).astype("float32")
        fit["sample_weight"] = sw
        record["sample_weight"] = as_json(sw)
    if c["weighting"] == "class":
        classes = 2 if c["kind"] == "binary" else 4
        cw = {k: float(v) for k, v in enumerate(rng.uniform(0.3, 3.0, size=classes))}
        fit["class_weight"] = cw
        record["class_weight"] = {str(k): v for k, v in cw.items()}
    if val is not None:
        fit["validation_data"] = val
        if isinstance(vx, list):
            record["val_xs"] = [as_json(a) for a in vx]
        else:
            record["val_x"] = as_json(vx)
        record["val_y"] = as_json(val[1])
    rec = Record()
    history = model.fit(x, y.astype("float32"), callbacks=[rec], **fit)
    record["history"] = {k: [float(v) for v in vs] for k, vs in history.history.items()}
    record["epoch_weights"] = rec.weights
    record["final_weights"] = [as_json(w) for w in model.get_weights()]
    if "mask" in c["arch"]:
        record["masked_train_metrics"] = masked_train_metrics(path, x, y.astype("float32"), fit.get("sample_weight"), record["final_weights"])
    # The trained model with its optimizer state, and the losses of two
    # more steps from it, for kerasgo to continue from Keras's state.
    trained = os.path.join(out, c["name"] + ".trained.keras")
    model.save(trained)
    model = keras.saving.load_model(trained)
    ys = y[:2 * BATCH].astype("float32")
    record["next_losses"] = [float(model.train_on_batch(rows(x, i * BATCH, (i + 1) * BATCH), ys[i * BATCH:(i + 1) * BATCH], return_dict=True)["loss"])
                             for i in range(2)]
    with open(os.path.join(out, c["name"] + ".json"), "w") as f:
        json.dump(record, f)


def main(out):
    os.makedirs(out, exist_ok=True)
    only = set(sys.argv[2:])
    index = []
    for c in CASES:
        if only and c["name"] not in only:
            continue
        build(c, out)
        index.append({"name": c["name"], "kind": c["kind"], "weighting": c["weighting"]})
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump({"keras": keras.__version__, "samples": SAMPLES, "batch_size": BATCH, "epochs": EPOCHS, "cases": index}, f)


if __name__ == "__main__":
    main(sys.argv[1])
