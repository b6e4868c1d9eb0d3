"""Keras's string and lookup layers as references for kerasgo.

Runs Keras 3 on its TensorFlow backend (these layers are TensorFlow's in
every backend, and only the TensorFlow backend runs a model on strings)
and writes, into the folder given as the first argument:

- index.json: cases of TextVectorization, StringLookup, IntegerLookup
  and Hashing: each layer's config (after adapt), the data it was adapted
  on, its vocabulary, an input and Keras's output;
- text_model.keras: a model with an adapted TextVectorization on raw
  strings, with its predictions in index.json's "model" (and the other
  models index.json names, each with its inputs and predictions).

With a second argument, a .keras file kerasgo saved, it instead loads it
and prints its predictions on the strings of the third argument (a JSON
list, or an object of named inputs as index.json writes arrays) as JSON:
Keras reopening kerasgo's file.
"""

import json
import os
import sys

os.environ["KERAS_BACKEND"] = "tensorflow"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402



@keras.saving.register_keras_serializable(package="demo")
def custom_standardization(x):
    """keras.io's kind of own standardize: lower-case, drop "<br />"
    (kerasgo's test registers the same in Go)."""
    return tf.strings.regex_replace(tf.strings.lower(x), "<br />", " ")


if len(sys.argv) == 4:
    m = keras.saving.load_model(sys.argv[2])
    texts = json.loads(open(sys.argv[3]).read())
    if isinstance(texts, dict):  # named inputs, each as arr() writes it
        x = {k: tf.constant(np.array(v["strings"], dtype=object).reshape(v["shape"]) if v.get("strings") is not None
                            else np.array(v["ints"], dtype="int64").reshape(v["shape"])) for k, v in texts.items()}
    else:
        x = tf.constant(np.array(texts, dtype=object).reshape(-1, 1))
    print(json.dumps(m.predict(x, verbose=0).reshape(-1).tolist()))
    sys.exit(0)

out_dir = sys.argv[1]
keras.utils.set_random_seed(1)

CORPUS = [
    "The cat sat on the mat.",
    "the DOG, sat!  on\tthe log",
    "Ünïcode ÉTÉ café\u00a0x and naïve",
    "a-b c_d e'f (g) [h] {i} #j @k 100% $5",
    "",
    "repeat repeat repeat the the",
    "tabs\tand\nnewlines\rand\x0bvertical\x0cfeeds",
    "emoji 🙂 🙂 and 中文 字",
    "MiXeD CaSe mixed case",
    "cat dog cat dog cat",
]
QUERIES = [
    "the cat and the unknownword",
    "",
    "DOG dog Dog dOg",
    "Ünïcode ÉtÉ naïve 🙂",
    "a b c d e f g h i j k l m n o p q r s t",
    "new\twords, Mat; mat",
]

cases = []


def arr(x):
    x = np.asarray(x)
    if x.dtype.kind in "SUO":
        flat = [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in x.reshape(-1)]
        return {"shape": list(x.shape), "strings": flat}
    if x.dtype.kind in "iu":
        return {"shape": list(x.shape), "ints": x.reshape(-1).tolist()}
    return {"shape": list(x.shape), "floats": x.astype(np.float64).reshape(-1).tolist()}


def vocab(layer):
    v = layer.get_vocabulary()
    return [x.decode("utf-8") if isinstance(x, bytes) else (int(x) if isinstance(x, (int, np.integer)) else str(x)) for x in v]


def add(name, layer, adapt, inputs, input_shape=None):
    if adapt is not None:
        layer.adapt(adapt)
    x = np.array(inputs, dtype=object if isinstance(inputs[0], str) or (isinstance(inputs[0], list) and isinstance(inputs[0][0], str)) else None)
    if input_shape is not None:
        x = x.reshape(input_shape)
    y = layer(tf.constant(x) if x.dtype == object else x)
    y = np.asarray(y.numpy() if hasattr(y, "numpy") else y)
    case = {
        "name": name,
        "class": layer.__class__.__name__,
        "config": layer.get_config(),
        "input": arr(x),
        "output": arr(y),
    }
    if adapt is not None:
        case["adapt"] = arr(np.array(adapt, dtype=object if isinstance(np.asarray(adapt).reshape(-1)[0], str) else None))
    if hasattr(layer, "get_vocabulary"):
        case["vocabulary"] = vocab(layer)
    cases.append(case)


TV = keras.layers.TextVectorization
add("tv_default_int", TV(), CORPUS, QUERIES)
add("tv_seq8", TV(max_tokens=12, output_sequence_length=8), CORPUS, QUERIES)
add("tv_seq3_rank2", TV(output_sequence_length=3), np.array(CORPUS).reshape(-1, 1), QUERIES, (-1, 1))
add("tv_lower", TV(standardize="lower", output_sequence_length=10), CORPUS, QUERIES)
add("tv_strip", TV(standardize="strip_punctuation", output_sequence_length=10), CORPUS, QUERIES)
add("tv_none_std", TV(standardize=None, output_sequence_length=10), CORPUS, QUERIES)
add("tv_character", TV(split="character", max_tokens=30, output_sequence_length=16), CORPUS, QUERIES)
add("tv_no_split", TV(split=None, standardize=None), CORPUS, QUERIES, (-1, 1))
add("tv_ngrams2", TV(ngrams=2, output_sequence_length=20), CORPUS, QUERIES)
add("tv_ngrams13", TV(ngrams=(1, 3), max_tokens=25, output_sequence_length=20), CORPUS, QUERIES)
add("tv_multi_hot", TV(max_tokens=15, output_mode="multi_hot"), CORPUS, QUERIES)
add("tv_count", TV(output_mode="count"), CORPUS, QUERIES)
add("tv_count_padded", TV(max_tokens=40, output_mode="count", pad_to_max_tokens=True), CORPUS, QUERIES)
add("tv_tf_idf", TV(max_tokens=20, output_mode="tf_idf"), CORPUS, QUERIES)
add("tv_given_vocab", TV(vocabulary=["cat", "dog", "the", "mat"], output_sequence_length=6), None, QUERIES)
add("tv_given_tf_idf", TV(vocabulary=["cat", "dog", "the"], idf_weights=[0.5, 1.5, 0.25], output_mode="tf_idf"), None, QUERIES)

CATS = [["red", "green", "blue"], ["red", "red", "yellow"], ["green", "", "blue"], ["[UNK]", "blue", "blue"]]
CAT_Q = [["red", "purple", "blue"], ["", "green", "orange"], ["teal", "cyan", "magenta"]]
SL = keras.layers.StringLookup
add("sl_default", SL(), CATS, CAT_Q)
add("sl_oov3_farmhash", SL(num_oov_indices=3), CATS, CAT_Q)
add("sl_oov3_salt", SL(num_oov_indices=3, salt=[7, 11]), CATS, CAT_Q)
add("sl_mask", SL(mask_token=""), CATS, CAT_Q)
add("sl_max3", SL(max_tokens=3), CATS, CAT_Q)
add("sl_multi_hot", SL(output_mode="multi_hot"), CATS, CAT_Q)
add("sl_mask_multi_hot", SL(mask_token="", output_mode="multi_hot"), CATS, CAT_Q)
add("sl_count_pad", SL(output_mode="count", max_tokens=8, pad_to_max_tokens=True), CATS, CAT_Q)
add("sl_one_hot", SL(output_mode="one_hot"), [["red"], ["blue"], ["red"]], [["red"], ["blue"], ["nope"]])
add("sl_tf_idf", SL(output_mode="tf_idf"), CATS, CAT_Q)
add("sl_given", SL(vocabulary=["a", "b", "c"]), None, [["a", "x"], ["c", "b"]])
add("sl_given_special", SL(vocabulary=["", "[UNK]", "a", "b"], mask_token=""), None, [["a", ""], ["zz", "b"]])
add("sl_invert", SL(vocabulary=["a", "b", "c"], invert=True), None, [[0, 1, 2], [3, 9, 1]])
add("sl_invert_mask", SL(vocabulary=["a", "b", "c"], mask_token="", invert=True), None, [[0, 1, 2], [3, 4, 7]])

INTS = [[12, 3, 4], [3, 3, 99], [7, 12, 0], [-1, 5, 5]]
INT_Q = [[12, 8, 3], [0, -7, 1000], [5, 6, 7]]
IL = keras.layers.IntegerLookup
add("il_default", IL(), INTS, INT_Q)
add("il_oov4_floormod", IL(num_oov_indices=4), INTS, INT_Q)
add("il_oov4_farmhash", IL(num_oov_indices=4, oov_method="farmhash"), INTS, INT_Q)
add("il_oov4_salt", IL(num_oov_indices=4, oov_method="farmhash", salt=3), INTS, INT_Q)
add("il_mask0", IL(mask_token=0), INTS, INT_Q)
add("il_multi_hot", IL(output_mode="multi_hot", max_tokens=5), INTS, INT_Q)
add("il_given", IL(vocabulary=[10, 20, 30]), None, [[10, 30], [20, 40]])
add("il_invert", IL(vocabulary=[10, 20, 30], invert=True), None, [[0, 1, 2], [3, 4, 9]])

H = keras.layers.Hashing
WORDS = [["the", "cat", "sat"], ["on", "the", "mat"], ["", "héllo", "🙂"]]
add("hash_strings", H(num_bins=7), None, WORDS)
add("hash_strings_1bin", H(num_bins=1), None, WORDS)
add("hash_strings_salt", H(num_bins=11, salt=[133, 137]), None, WORDS)
add("hash_strings_salt1", H(num_bins=11, salt=42), None, WORDS)
add("hash_strings_mask", H(num_bins=5, mask_value=""), None, WORDS)
add("hash_ints", H(num_bins=13), None, [[1, 2, 3], [-4, 0, 123456789]])
add("hash_ints_mask", H(num_bins=13, mask_value=0), None, [[1, 2, 3], [-4, 0, 123456789]])
add("hash_floats", H(num_bins=9), None, np.array([[1.5, -2.7, 3.0], [0.2, 8.9, -0.5]], dtype="float32"))
add("hash_multi_hot", H(num_bins=6, output_mode="multi_hot"), None, WORDS)
add("hash_count", H(num_bins=6, output_mode="count"), None, WORDS)
add("hash_one_hot", H(num_bins=6, output_mode="one_hot"), None, [["a"], ["b"], ["c"]])


def add_cross(name, layer, features):
    """A HashedCrossing case: features are the inputs, one array each."""
    xs = [np.array(f, dtype=object if isinstance(np.asarray(f).reshape(-1)[0], str) else None) for f in features]
    y = np.asarray(layer(tuple(tf.constant(x) for x in xs)))
    cases.append({
        "name": name,
        "class": layer.__class__.__name__,
        "config": layer.get_config(),
        "input": arr(xs[0]),
        "inputs": [arr(x) for x in xs],
        "output": arr(y),
    })


HC = keras.layers.HashedCrossing
COLORS = ["red", "green", "", "héllo", "🙂", "red"]
SIZES = [3, -1, 0, 2147483647, -2147483648, 3]
add_cross("cross_strings_ints", HC(num_bins=7), [COLORS, SIZES])
add_cross("cross_column", HC(num_bins=1000), [np.array(COLORS).reshape(-1, 1), np.array(SIZES).reshape(-1, 1)])
add_cross("cross_three", HC(num_bins=11), [COLORS, SIZES, ["a", "b", "c", "d", "e", "f"]])
add_cross("cross_ints", HC(num_bins=2**31 - 1), [SIZES, [7, 7, 7, 7, 7, 7]])
add_cross("cross_one_hot", HC(num_bins=5, output_mode="one_hot"), [COLORS, SIZES])
add_cross("cross_one_hot_column", HC(num_bins=4, output_mode="one_hot"), [np.array(COLORS).reshape(-1, 1), np.array(SIZES, dtype="int32").reshape(-1, 1)])

# A model on raw strings, saved by Keras: kerasgo loads it and predicts
# the same from the same strings.
tv = TV(max_tokens=30, output_sequence_length=8)
tv.adapt(CORPUS)
inp = keras.Input(shape=(1,), dtype="string")
h = tv(inp)
h = keras.layers.Embedding(30, 6)(h)
h = keras.layers.GlobalAveragePooling1D()(h)
out = keras.layers.Dense(2, activation="softmax")(h)
model = keras.Model(inp, out)
model.save(os.path.join(out_dir, "text_model.keras"))
texts = CORPUS + QUERIES
pred = model.predict(tf.constant(np.array(texts, dtype=object).reshape(-1, 1)), verbose=0)

# One with an adapted tf_idf TextVectorization, whose weights Keras keeps
# in the weights file (vars/idf_weights) and its vocabulary in assets/.
tf_idf = TV(max_tokens=20, output_mode="tf_idf")
tf_idf.adapt(CORPUS)
inp3 = keras.Input(shape=(1,), dtype="string")
model3 = keras.Model(inp3, keras.layers.Dense(2)(tf_idf(inp3)))
model3.save(os.path.join(out_dir, "tfidf_model.keras"))
pred3 = model3.predict(tf.constant(np.array(texts, dtype=object).reshape(-1, 1)), verbose=0)

# One whose TextVectorization standardizes with a registered function of
# its own, which the file names ("demo>custom_standardization").
custom = TV(max_tokens=30, output_sequence_length=8, standardize=custom_standardization)
custom.adapt(CORPUS + ["A film<br />It was GOOD<br /><br />the end"])
inp4 = keras.Input(shape=(1,), dtype="string")
model4 = keras.Model(inp4, keras.layers.Dense(2)(keras.layers.Flatten()(keras.layers.Embedding(30, 3)(custom(inp4)))))
model4.save(os.path.join(out_dir, "custom_model.keras"))
texts4 = texts + ["GOOD<br />film", "<br />"]
pred4 = model4.predict(tf.constant(np.array(texts4, dtype=object).reshape(-1, 1)), verbose=0)

# And one with a StringLookup and a Hashing on two string inputs, saved
# after adapting, with a multi-hot output into a Dense.
a = keras.Input(shape=(3,), dtype="string", name="colors")
b = keras.Input(shape=(2,), dtype="string", name="words")
sl = SL(output_mode="multi_hot", num_oov_indices=2)
# Not CATS: a vocabulary whose last term is "" loses it in vocabulary.txt,
# and Keras then cannot load its own file.
sl.adapt([["red", "green", "blue"], ["red", "red", "yellow"], ["green", "", "blue"], ["", "", "red"]])
ha = H(num_bins=5, output_mode="count")
merged = keras.layers.Concatenate()([sl(a), ha(b)])
out2 = keras.layers.Dense(3)(merged)
model2 = keras.Model([a, b], out2)
model2.save(os.path.join(out_dir, "lookup_model.keras"))
xa = np.array(CAT_Q + CATS, dtype=object)
xb = np.array([["x", "y"], ["the", "cat"], ["", "z"], ["a", "a"], ["b", "c"], ["q", "r"], ["s", "t"]], dtype=object)
pred2 = model2.predict([tf.constant(xa), tf.constant(xb)], verbose=0)

# And one that crosses a string and an integer feature with a
# HashedCrossing, one-hot, into a Dense (keras.io's structured data).
ca = keras.Input(shape=(1,), dtype="string", name="color")
cb = keras.Input(shape=(1,), dtype="int64", name="size")
crossed = HC(num_bins=8, output_mode="one_hot")((ca, cb))
model5 = keras.Model({"color": ca, "size": cb}, keras.layers.Dense(2)(crossed))
model5.save(os.path.join(out_dir, "cross_model.keras"))
cross_inputs = {"color": np.array(COLORS + ["blue", "red"], dtype=object).reshape(-1, 1),
                "size": np.array(SIZES + [1, 4], dtype="int64").reshape(-1, 1)}
pred5 = model5.predict({k: tf.constant(v) for k, v in cross_inputs.items()}, verbose=0)

# A folder of texts for keras.utils.text_dataset_from_directory: its
# batches without shuffling, and index_directory's file order and split
# with seeds (the order text_dataset_from_directory starts from).
from keras.src.utils import dataset_utils  # noqa: E402

root = os.path.join(out_dir, "texts")
texts_written = []
for cls, words in [("neg", ["bad", "awful", "dull"]), ("pos", ["good", "great", "fine"]), ("zzz", ["meh"])]:
    for i in range(7 if cls != "zzz" else 2):
        sub = os.path.join(root, cls, "deeper") if i % 3 == 2 else os.path.join(root, cls)
        os.makedirs(sub, exist_ok=True)
        name = f"{cls}_{i}.txt" if i != 4 else f"{cls}_{i}.TXT"
        body = f"{words[i % len(words)]} movie number {i}, Ünïcode {'x' * i}\nsecond line"
        with open(os.path.join(sub, name), "w", encoding="utf-8") as f:
            f.write(body)
        texts_written.append(os.path.relpath(os.path.join(sub, name), root))
    with open(os.path.join(root, cls, "notes.md"), "w") as f:
        f.write("not a text file")
folder_sets = []
for s in [dict(batch_size=4), dict(batch_size=5, label_mode="categorical", max_length=9),
          dict(batch_size=3, class_names=["pos", "neg"], label_mode="binary"), dict(batch_size=6, labels=None)]:
    ds = keras.utils.text_dataset_from_directory(root, shuffle=False, verbose=False, **s)
    batches = []
    for b in ds:
        x, y = (b if s.get("labels", "inferred") is not None else (b, None))
        batches.append({"x": arr(x.numpy()), "y": arr(y.numpy()) if y is not None else None})
    folder_sets.append({"options": s, "class_names": getattr(ds, "class_names", None), "batches": batches})
folder_orders = []
for seed in [0, 7, 1337]:
    paths, labels, _ = dataset_utils.index_directory(root, "inferred", formats=(".txt",), shuffle=True, seed=seed, verbose=False)
    for split, subset in [(None, None), (0.3, "training"), (0.3, "validation")]:
        p, l = dataset_utils.get_training_or_validation_split(paths, labels, split, subset)
        folder_orders.append({"seed": seed, "validation_split": split or 0, "subset": subset or "",
                              "file_paths": [os.path.relpath(x, root) for x in p], "labels": [int(v) for v in l]})

with open(os.path.join(out_dir, "index.json"), "w") as f:
    json.dump({
        "keras": keras.__version__,
        "tensorflow": tf.__version__,
        "cases": cases,
        "model": {"file": "text_model.keras", "texts": texts, "predictions": arr(pred)},
        "tfidf_model": {"file": "tfidf_model.keras", "texts": texts, "predictions": arr(pred3)},
        "custom_model": {"file": "custom_model.keras", "texts": texts4, "predictions": arr(pred4)},
        "lookup_model": {"file": "lookup_model.keras", "colors": arr(xa), "words": arr(xb), "predictions": arr(pred2)},
        "cross_model": {"file": "cross_model.keras", "inputs": {k: arr(v) for k, v in cross_inputs.items()}, "predictions": arr(pred5)},
        "folder": {"root": "texts", "datasets": folder_sets, "orders": folder_orders},
    }, f)
