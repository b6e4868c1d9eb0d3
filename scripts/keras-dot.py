"""Run Keras's keras.utils.model_to_dot on models made here, for kerasgo's
plot_model test to compare (keras/utils/model_to_dot_test.go).

    KERAS_BACKEND=jax build/keras-env/bin/python scripts/keras-dot.py OUT_DIR

Writes OUT_DIR/<model>.keras and OUT_DIR/index.json: per model and
setting of model_to_dot, the graph's attributes, its nodes (the layer's
name in place of pydot's id(layer), and its label) and edges (by layer
name), with the nodes of each cluster (expand_nested) listed under it.
"""

import json
import os
import sys

import keras
from keras import layers


def models():
    seq = keras.Sequential([keras.Input((8,)), layers.Dense(4, activation="relu", name="hidden"),
                            layers.Dropout(0.5), layers.Dense(3, activation="softmax", name="probs")], name="mlp")
    a = keras.Input((3,), name="left")
    b = keras.Input((5,), name="right")
    shared = layers.Dense(2, name="shared")
    x = layers.Concatenate(name="joined")([layers.Dense(3, name="proj")(b), a])
    y = shared(x)
    z = shared(layers.Dense(6, name="again")(y))
    out1 = layers.Add(name="sum")([y, z])
    out2 = layers.Activation("tanh", name="squash")(out1)
    branchy = keras.Model([a, b], [out1, out2], name="branchy")
    frozen = layers.Dense(6, name="frozen")
    frozen.trainable = False
    inner = keras.Sequential([keras.Input((6,)), layers.Dense(6, activation="gelu", name="inner_dense"),
                              layers.LayerNormalization(name="norm")], name="inner")
    i = keras.Input((4,), name="features")
    h = frozen(i)
    h = inner(h)
    nested = keras.Model(i, layers.Dense(1, activation="sigmoid", name="score")(h), name="nested")
    conv = keras.Sequential([keras.Input((12, 12, 1)), layers.Conv2D(4, 3, activation="relu", name="conv"),
                             layers.MaxPooling2D(name="pool"), layers.Flatten(name="flat"), layers.Dense(2, name="logits")], name="cnn")
    return [seq, branchy, nested, conv]


SETTINGS = [dict(), dict(show_shapes=True), dict(show_shapes=True, show_dtype=True, show_layer_activations=True, show_trainable=True),
            dict(show_layer_names=False, rankdir="LR", dpi=96, splines="polyline"), dict(expand_nested=True, show_shapes=True, show_trainable=True)]


def graph(dot, names):
    nodes = [{"name": names[n.get_name()], "label": n.get("label")} for n in dot.get_nodes() if n.get_name() in names]
    edges = [[names[e.get_source()], names[e.get_destination()]] for e in dot.get_edges()]
    attrs = {k: str(v) for k, v in dot.get_attributes().items()}
    return {"name": dot.get_name(), "attributes": attrs, "nodes": nodes, "edges": edges,
            "clusters": [graph(s, names) for s in dot.get_subgraphs()]}


def layer_names(model, prefix, out):
    """id(layer) as pydot names it -> the layer's name."""
    for l in (model._operations if isinstance(model, keras.Model) and not isinstance(model, keras.Sequential) else model.layers):
        out[str(id(l))] = l.name
        if isinstance(l, keras.Model):
            layer_names(l, prefix, out)
    return out


def main(out):
    index = []
    for m in models():
        m.save(os.path.join(out, m.name + ".keras"))
        names = layer_names(m, "", {})
        for s in SETTINGS:
            index.append({"model": m.name, "options": s, "graph": graph(keras.utils.model_to_dot(m, **s), names)})
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump({"keras": keras.__version__, "cases": index}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
