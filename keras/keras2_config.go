package keras

import (
	"bytes"
	"encoding/json"
	"strings"
)

// keras2Config rewrites a model config in Keras 2's and tf.keras's
// spelling, as their model.save("x.h5") wrote it, into Keras 3's, as
// Keras 3's legacy loader reads it:
//
//   - a layer's inbound nodes as lists of [layer, node, tensor, kwargs]
//     become nodes of {"args": [keras tensors], "kwargs": ...};
//   - batch_input_shape on a layer other than an InputLayer (the first
//     layer of a Sequential model) becomes an InputLayer before it, when
//     the model has none, and leaves the layer's config;
//
// Nested models are rewritten too. A config in Keras 3's spelling comes
// back unchanged.
func keras2Config(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var top any
	if err := dec.Decode(&top); err != nil {
		return data, nil // decodeSavedModel says what is wrong
	}
	obj, ok := top.(map[string]any)
	if !ok {
		return data, nil
	}
	rewriteKeras2Model(obj)
	return json.Marshal(obj)
}

// rewriteKeras2Model rewrites a Sequential or Functional model's config in
// place.
func rewriteKeras2Model(model map[string]any) {
	cfg, _ := model["config"].(map[string]any)
	if cfg == nil {
		return
	}
	list, _ := cfg["layers"].([]any)
	hasInput := false
	for _, l := range list {
		if layer, ok := l.(map[string]any); ok && layer["class_name"] == "InputLayer" {
			hasInput = true
		}
	}
	var out []any
	for i, l := range list {
		layer, ok := l.(map[string]any)
		if !ok {
			out = append(out, l)
			continue
		}
		if nodes, ok := layer["inbound_nodes"].([]any); ok {
			layer["inbound_nodes"] = keras3Nodes(nodes)
		}
		lc, _ := layer["config"].(map[string]any)
		if layer["class_name"] == "Sequential" || layer["class_name"] == "Functional" || layer["class_name"] == "Model" {
			rewriteKeras2Model(layer)
		}
		if lc != nil && layer["class_name"] != "InputLayer" {
			if shape, ok := lc["batch_input_shape"]; ok {
				delete(lc, "batch_input_shape")
				if i == 0 && !hasInput && model["class_name"] == "Sequential" {
					name, _ := lc["name"].(string)
					in := map[string]any{"batch_shape": shape, "name": name + "_input"}
					if dtype, ok := lc["dtype"].(string); ok {
						in["dtype"] = dtype
					}
					out = append(out, map[string]any{"class_name": "InputLayer", "config": in})
				}
			}
		}
		out = append(out, layer)
	}
	if list != nil {
		cfg["layers"] = out
	}
}

// keras3Nodes turns Keras 2's inbound nodes, each a list of
// [layer, node index, tensor index, kwargs] per input, into Keras 3's
// {"args": [tensor or list of tensors], "kwargs": kwargs}, as Keras 3's
// functional deserialization does; nodes already in Keras 3's spelling
// are kept.
func keras3Nodes(nodes []any) []any {
	out := make([]any, len(nodes))
	for i, n := range nodes {
		inputs, ok := n.([]any)
		if !ok {
			out[i] = n
			continue
		}
		var tensors []any
		kwargs := map[string]any{}
		for _, in := range inputs {
			ref, ok := in.([]any)
			if !ok || len(ref) < 3 {
				continue
			}
			tensors = append(tensors, map[string]any{"class_name": "__keras_tensor__", "config": map[string]any{"keras_history": []any{ref[0], ref[1], ref[2]}}})
			if len(ref) > 3 {
				if kw, ok := ref[3].(map[string]any); ok {
					kwargs = kw
				}
			}
		}
		var arg any = tensors
		if len(tensors) == 1 {
			arg = tensors[0]
		}
		out[i] = map[string]any{"args": []any{arg}, "kwargs": kwargs}
	}
	return out
}

// keras2TrainingConfig rewrites the optimizer and metrics of a Keras 2 or
// tf.keras training_config into Keras 3's spelling: tf.keras names its
// optimizers "Custom>Adam" and adds jit_compile and is_legacy_optimizer
// to their config; its metrics are lists per output of
// MeanMetricWrapper objects named by the metric's name.
func keras2TrainingConfig(tc map[string]any) {
	if opt, ok := tc["optimizer_config"].(map[string]any); ok {
		if name, ok := opt["class_name"].(string); ok {
			opt["class_name"] = strings.TrimPrefix(name, "Custom>")
		}
		if c, ok := opt["config"].(map[string]any); ok {
			delete(c, "jit_compile")
			delete(c, "is_legacy_optimizer")
		}
	}
	if ms, ok := tc["metrics"].([]any); ok {
		if len(ms) == 1 {
			if inner, ok := ms[0].([]any); ok {
				ms = inner // one output's list
			}
		}
		for i, m := range ms {
			if obj, ok := m.(map[string]any); ok && obj["class_name"] == "MeanMetricWrapper" {
				if c, ok := obj["config"].(map[string]any); ok {
					if name, ok := c["name"].(string); ok {
						ms[i] = name
					}
				}
			}
		}
		tc["metrics"] = ms
	}
}
