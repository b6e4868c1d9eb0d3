"""Keras 3 reference for kerasgo's benchmarks: the same models as
bench/stepbench and bench/torch_step.py (the demo's MLP and CNN, the small
ResNet, Keras's "Text classification with Transformer" model and an
LSTM(64) classifier, compiled with Adam, sparse categorical cross-entropy
and accuracy as kerasgo's bench compiles them; and the six networks of the
2016 benchmark, internal/models.Seed, with plain SGD and the loss alone),
written with Keras itself and trained with train_on_batch on random data:
one line of results.

Run with the Keras that make keras-env installs, on the backend named by
KERAS_BACKEND (jax or tensorflow there), or with make torch-env's on its
PyTorch backend (its default, eager: jit_compile is off on torch):
    KERAS_BACKEND=jax build/keras-env/bin/python bench/keras_step.py --model cnn
    KERAS_BACKEND=torch build/torch-env/bin/python bench/keras_step.py --model cnn
"""
import argparse
import os
import resource
import time

import numpy as np


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="mlp")
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--warmup", type=int, default=3, help="untimed steps first (they compile)")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    return p.parse_args()


a = parse()
if os.environ.get("KERAS_BACKEND") == "tensorflow":
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(a.threads)
    tf.config.threading.set_inter_op_parallelism_threads(a.threads)
elif os.environ.get("KERAS_BACKEND") == "torch":
    import torch

    torch.set_num_threads(a.threads)
import keras  # noqa: E402 (after the thread settings)
from keras import layers  # noqa: E402


class TransformerBlock(layers.Layer):
    """The block of Keras's example: attention, dropout, residual,
    LayerNormalization (eps 1e-6), then the feed-forward network likewise."""

    def __init__(self, embed_dim, num_heads, ff_dim, rate=0.1):
        super().__init__()
        self.att = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
        self.ffn = keras.Sequential([layers.Dense(ff_dim, activation="relu"), layers.Dense(embed_dim)])
        self.layernorm1 = layers.LayerNormalization(epsilon=1e-6)
        self.layernorm2 = layers.LayerNormalization(epsilon=1e-6)
        self.dropout1 = layers.Dropout(rate)
        self.dropout2 = layers.Dropout(rate)

    def call(self, inputs, training=None):
        attn = self.dropout1(self.att(inputs, inputs), training=training)
        out1 = self.layernorm1(inputs + attn)
        ffn = self.dropout2(self.ffn(out1), training=training)
        return self.layernorm2(out1 + ffn)


class TokenAndPositionEmbedding(layers.Layer):
    def __init__(self, maxlen, vocab_size, embed_dim):
        super().__init__()
        self.token_emb = layers.Embedding(input_dim=vocab_size, output_dim=embed_dim)
        self.pos_emb = layers.Embedding(input_dim=maxlen, output_dim=embed_dim)

    def call(self, x):
        positions = keras.ops.arange(0, keras.ops.shape(x)[-1], 1)
        return self.token_emb(x) + self.pos_emb(positions)


def transformer(maxlen=200, vocab=20000, d=32, heads=2, ff=32, classes=2):
    inputs = layers.Input(shape=(maxlen,), dtype="int32")
    x = TokenAndPositionEmbedding(maxlen, vocab, d)(inputs)
    x = TransformerBlock(d, heads, ff)(x)
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dropout(0.1)(x)
    x = layers.Dense(20, activation="relu")(x)
    x = layers.Dropout(0.1)(x)
    return keras.Model(inputs, layers.Dense(classes, activation="softmax")(x))


def resnet():
    """internal/models.ResNet: a Conv2D + BatchNormalization + ReLU stem of
    32 filters, 2x2 max pooling, a residual block, a strided convolution to
    64 filters, another residual block, global average pooling, softmax."""

    def conv_bn(x, filters, stride):
        x = layers.Conv2D(filters, 3, strides=stride, padding="same", use_bias=False)(x)
        return layers.BatchNormalization()(x)

    def block(x, filters):
        y = layers.Activation("relu")(conv_bn(x, filters, 1))
        y = conv_bn(y, filters, 1)
        return layers.Activation("relu")(layers.Add()([x, y]))

    inputs = layers.Input(shape=(28, 28, 1))
    x = layers.Activation("relu")(conv_bn(inputs, 32, 1))
    x = layers.MaxPooling2D(2)(x)
    x = block(x, 32)
    x = layers.Activation("relu")(conv_bn(x, 64, 2))
    x = block(x, 64)
    x = layers.GlobalAveragePooling2D()(x)
    return keras.Model(inputs, layers.Dense(10, activation="softmax")(x))


SEED = ("fcn5", "fcn8", "alexnet", "resnet50", "lstm32", "lstm64")


def seed(name):
    """The 2016 benchmark's networks, as internal/models.Seed builds them."""
    if name in ("fcn5", "fcn8"):
        hidden = [layers.Dense(2048, activation="sigmoid") for _ in range(3 if name == "fcn5" else 6)]
        return keras.Sequential([layers.Input(shape=(26752,))] + hidden + [layers.Dense(26752, activation="softmax")])
    if name == "alexnet":
        conv = lambda f, k, s: layers.Conv2D(f, k, strides=s, padding="same", activation="relu")
        pool = lambda: layers.MaxPooling2D(3, strides=2, padding="same")
        return keras.Sequential([
            layers.Input(shape=(224, 224, 3)),
            conv(96, 11, 4), pool(), conv(256, 5, 1), pool(),
            conv(384, 3, 1), conv(384, 3, 1), conv(256, 3, 1), pool(), layers.Flatten(),
            layers.Dense(4096, activation="relu"), layers.Dense(4096, activation="relu"),
            layers.Dense(1000, activation="softmax"),
        ])
    if name == "resnet50":
        return keras.applications.ResNet50(weights=None)
    steps = 32 if name == "lstm32" else 64
    return keras.Sequential([
        layers.Input(shape=(steps,), dtype="int32"), layers.Embedding(10000, 256),
        layers.LSTM(256, return_sequences=True), layers.LSTM(256, return_sequences=True),
        layers.Dense(10000, activation="softmax"),
    ])


def seed_data(name, n, rng):
    if name in ("fcn5", "fcn8"):
        return rng.random((n, 26752), dtype="float32"), rng.integers(0, 26752, n)
    if name in ("lstm32", "lstm64"):
        steps = 32 if name == "lstm32" else 64
        return rng.integers(0, 10000, (n, steps)).astype("int32"), rng.integers(0, 10000, (n, steps))
    return rng.random((n, 224, 224, 3), dtype="float32"), rng.integers(0, 1000, n)


def build(name):
    if name in SEED:
        return seed(name)
    if name == "transformer":
        return transformer()
    if name == "resnet":
        return resnet()
    if name == "lstm":
        return keras.Sequential([layers.Input(shape=(100, 8)), layers.LSTM(64), layers.Dense(10, activation="softmax")])
    if name == "mlp":
        return keras.Sequential([
            layers.Input(shape=(28, 28, 1)), layers.Flatten(),
            layers.Dense(512, activation="relu"), layers.Dense(512, activation="relu"),
            layers.Dense(10, activation="softmax"),
        ])
    return keras.Sequential([  # the classic Keras MNIST convnet
        layers.Input(shape=(28, 28, 1)),
        layers.Conv2D(32, 3, activation="relu"), layers.Conv2D(64, 3, activation="relu"),
        layers.MaxPooling2D(2), layers.Dropout(0.25), layers.Flatten(),
        layers.Dense(128, activation="relu"), layers.Dropout(0.5),
        layers.Dense(10, activation="softmax"),
    ])


def device():
    """Where the backend runs the step: cpu, or gpu/cuda."""
    b = keras.backend.backend()
    if b == "jax":
        import jax

        return jax.devices()[0].platform
    if b == "torch":
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    if b == "tensorflow":
        return "gpu" if tf.config.list_physical_devices("GPU") else "cpu"
    return "unknown"


def main():
    keras.utils.set_random_seed(1)
    model = build(a.model)
    if a.model in SEED:  # the 2016 benchmark's plain SGD, the loss alone
        model.compile(optimizer=keras.optimizers.SGD(0.01), loss="sparse_categorical_crossentropy")
    else:
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    rng = np.random.default_rng(1)
    n = a.batch * (a.warmup + a.steps)
    if a.model in SEED:
        x, y = seed_data(a.model, n, rng)
    elif a.model == "transformer":
        x, y = rng.integers(0, 20000, (n, 200)).astype("int32"), rng.integers(0, 2, n)
    elif a.model == "lstm":
        x, y = rng.random((n, 100, 8), dtype="float32"), rng.integers(0, 10, n)
    else:
        x, y = rng.random((n, 28, 28, 1), dtype="float32"), rng.integers(0, 10, n)
    y = y.astype("float32")

    def step(i):
        # train_on_batch returns the loss and accuracy as Python floats,
        # so each step ends on the host, as kerasgo's and PyTorch's do.
        return model.train_on_batch(x[i * a.batch:(i + 1) * a.batch], y[i * a.batch:(i + 1) * a.batch])

    for i in range(a.warmup):
        step(i)
    start = time.perf_counter()
    for i in range(a.warmup, a.warmup + a.steps):
        step(i)
    per = (time.perf_counter() - start) / a.steps
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"impl=keras-{keras.__version__}-{keras.backend.backend()} model={a.model} batch={a.batch} steps={a.steps} "
          f"threads={a.threads} ms_per_step={per * 1000:.2f} peak_rss_mb={rss_mb:.0f} device={device()}")


if __name__ == "__main__":
    main()
