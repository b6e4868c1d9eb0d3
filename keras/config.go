package keras

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/distribution"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/metrics"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// This file turns a model into Keras's config.json and back
// (keras/src/models/sequential.py and functional.py, get_config and
// from_config).

// jsonShape converts a shape with -1 for unknown dimensions to JSON with
// null, as Keras writes it.
func jsonShape(s []int) []any {
	out := make([]any, len(s))
	for i, d := range s {
		if d >= 0 {
			out[i] = d
		}
	}
	return out
}

func inputLayerObject(l layers.Layer, shape []int) map[string]any {
	return map[string]any{
		"module": "keras.layers", "class_name": "InputLayer", "registered_name": nil,
		"config": map[string]any{"batch_shape": jsonShape(shape), "dtype": kerasDType(l), "sparse": false, "ragged": false, "name": l.Common().Name},
	}
}

// kerasDType is the Keras dtype name of a layer's output: an input's
// own ("int32" for token ids), float32 for every other layer.
func kerasDType(l layers.Layer) string {
	if in, ok := l.(*layers.InputLayer); ok {
		return in.DType.String()
	}
	return backend.Float32.String()
}

// tensorDType is the Keras dtype name of a tensor a saved node reads: an
// input's or a host layer's output's own, float32 for the engine's.
func tensorDType(t *layers.KerasTensor) string { return t.DType().String() }

// buildConfig is the build_config Keras records for a layer called on
// inputs of these shapes: the shape of its one input, the list of shapes
// of a layer called on a list (Add([a, b])), or the shapes by build
// argument of one called with several arguments (MultiHeadAttention's
// query_shape, value_shape).
func buildConfig(l layers.Layer, shapes []backend.Shape) map[string]any {
	if len(shapes) == 1 {
		return map[string]any{"input_shape": jsonShape(shapes[0])}
	}
	if p, ok := l.(layers.PositionalInputs); ok {
		names := p.PositionalInputs()
		dict := map[string]any{}
		for i, s := range shapes {
			if i < len(names) {
				dict[names[i]] = jsonShape(s)
			}
		}
		return map[string]any{"shapes_dict": dict}
	}
	list := make([]any, len(shapes))
	for i, s := range shapes {
		list[i] = jsonShape(s)
	}
	return map[string]any{"input_shape": list}
}

func layerObject(l layers.Layer, inputShapes []backend.Shape) (map[string]any, error) {
	if inner, ok := l.(*Model); ok { // a nested model: its own config
		return inner.architecture()
	}
	cfg, err := layers.Config(l)
	if err != nil {
		return nil, err
	}
	obj := map[string]any{"module": "keras.layers", "class_name": l.ClassName(), "config": cfg, "registered_name": nil}
	switch m, hasModule := l.(interface{ KerasModule() string }); {
	case hasModule: // a class of Keras's outside keras.layers (CustomScaleLayer)
		obj["module"], obj["registered_name"] = m.KerasModule(), l.ClassName()
	case layers.IsKerasOperation(l): // as Keras writes keras.ops in a functional config
		obj["module"], obj["registered_name"] = "keras.src.ops.numpy", l.ClassName()
	case !layers.IsKerasClass(l.ClassName()):
		obj["module"], obj["registered_name"] = nil, l.ClassName()
	}
	if layers.HasBuildConfig(l) && len(inputShapes) > 0 {
		obj["build_config"] = buildConfig(l, inputShapes)
	}
	return obj, nil
}

// inputShapes are the shapes of a node's inputs.
func inputShapes(n *layers.KerasTensor) []backend.Shape {
	out := make([]backend.Shape, len(n.Inputs()))
	for i, t := range n.Inputs() {
		out[i] = t.Shape()
	}
	return out
}

// modelConfig returns the model as Keras's config.json holds it: its
// architecture, and how it is compiled.
func (m *Model) modelConfig() (map[string]any, error) {
	top, err := m.architecture()
	if err != nil {
		return nil, err
	}
	if c := m.currentCompiled(); c != nil {
		cc, err := c.compileConfig()
		if err != nil {
			return nil, err
		}
		top["compile_config"] = cc
	}
	return top, nil
}

// architecture returns the model's serialized object without its compile
// settings, as Keras writes a model nested in another.
func (m *Model) architecture() (map[string]any, error) {
	if !m.Built() {
		return nil, m.errNotBuilt()
	}
	var top map[string]any
	if m.sequential {
		inShape := m.inputs[0].Shape()
		ls := []any{inputLayerObject(m.inputs[0].Layer(), inShape)}
		for _, n := range m.nodes {
			obj, err := layerObject(n.Layer(), inputShapes(n))
			if err != nil {
				return nil, err
			}
			ls = append(ls, obj)
		}
		top = map[string]any{
			"module": "keras", "class_name": "Sequential", "registered_name": nil,
			"config":       map[string]any{"name": m.Name, "trainable": true, "dtype": serialization.DTypePolicy(), "layers": ls, "build_input_shape": jsonShape(inShape)},
			"build_config": map[string]any{"input_shape": jsonShape(inShape)},
		}
	} else {
		ls, err := m.functionalLayers()
		if err != nil {
			return nil, err
		}
		top = map[string]any{
			"module": "keras.src.models.functional", "class_name": "Functional", "registered_name": "Functional",
			"config": map[string]any{
				"name": m.Name, "trainable": true, "layers": ls,
				"input_layers":  m.inputEnds(),
				"output_layers": m.historyList(m.outputs),
			},
			"build_config": map[string]any{"input_shape": nil},
		}
	}
	return top, nil
}

// inputEnds is the config's input_layers: the list of the inputs'
// histories, or the dict Keras's model was built on.
func (m *Model) inputEnds() any {
	list := m.historyList(m.inputs)
	if m.inputKeys == nil {
		return list
	}
	named := make(map[string]any, len(list))
	for i, k := range m.inputKeys {
		named[k] = list[i]
	}
	return named
}

// historyList is Keras's list of [layer, node index, tensor index] for
// the model's inputs or outputs.
func (m *Model) historyList(ts []*layers.KerasTensor) []any {
	out := make([]any, len(ts))
	for i, t := range ts {
		out[i] = []any{t.Layer().Common().Name, m.nodeIndex(t), t.OutputIndex()}
	}
	return out
}

// nodeIndex returns which call of its layer produced t (Keras's node index).
func (m *Model) nodeIndex(t *layers.KerasTensor) int {
	t = t.Head()
	i := 0
	for _, n := range m.nodes {
		if n == t {
			return i
		}
		if n.Layer() == t.Layer() {
			i++
		}
	}
	return 0
}

// functionalLayers lists every layer once with its inbound nodes.
func (m *Model) functionalLayers() ([]any, error) {
	var out []any
	for _, t := range m.inputs {
		in := inputLayerObject(t.Layer(), t.Shape())
		in["name"], in["inbound_nodes"] = t.Layer().Common().Name, []any{}
		out = append(out, in)
	}
	objs := map[layers.Layer]map[string]any{}
	for _, n := range m.nodes {
		l := n.Layer()
		obj, seen := objs[l]
		if !seen {
			var err error
			if obj, err = layerObject(l, inputShapes(n)); err != nil {
				return nil, err
			}
			obj["name"], obj["inbound_nodes"] = l.Common().Name, []any{}
			objs[l] = obj
			out = append(out, obj)
		}
		tensorArg := func(t *layers.KerasTensor) map[string]any {
			return map[string]any{"class_name": "__keras_tensor__", "config": map[string]any{
				"shape": jsonShape(t.Shape()), "dtype": tensorDType(t), "keras_history": []any{t.Layer().Common().Name, m.nodeIndex(t), t.OutputIndex()},
			}}
		}
		args := make([]any, len(n.Inputs()))
		for i, t := range n.Inputs() {
			args[i] = tensorArg(t)
		}
		if _, positional := l.(layers.PositionalInputs); len(args) > 1 && !positional {
			args = []any{args}
		}
		if p, ok := l.(interface{ Arguments(tensors []any) []any }); ok { // constants among the tensors
			args = p.Arguments(args)
		} else if c, ok := l.(layers.ConstantOperands); ok {
			args = append(args, c.ConstantOperands()...)
		}
		kwargs := map[string]any{}
		if mk := n.MaskArgument(); mk != nil {
			kwargs["mask"] = tensorArg(mk)
		}
		if mode, fixed := n.Training(); fixed {
			kwargs["training"] = mode
		}
		if c, ok := l.(layers.CallKwargs); ok {
			maps.Copy(kwargs, c.CallKwargs())
		}
		maps.Copy(kwargs, n.CallArguments()) // this call's own (ReversibleEmbedding's reverse)
		obj["inbound_nodes"] = append(obj["inbound_nodes"].([]any), map[string]any{"args": args, "kwargs": kwargs})
	}
	return out, nil
}

// compileConfig is Keras's compile_config. Losses, loss weights and
// metrics keep the form they were given in (one for all outputs, a list,
// a dict by output name).
func (c *compiled) compileConfig() (map[string]any, error) {
	opt, err := optimizers.Serialize(c.opt)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(c.heads))
	perLoss := make([]losses.Loss, len(c.heads))
	perWeight := make([]float64, len(c.heads))
	for i, h := range c.heads {
		names[i], perLoss[i], perWeight[i] = h.name, h.loss, h.weight
	}
	loss, err := c.opts.Loss.encode(names, perLoss, func(l losses.Loss) (any, error) {
		if l == nil {
			return nil, nil
		}
		return losses.Serialize(l)
	})
	if err != nil {
		return nil, err
	}
	weightSpec := c.opts.LossWeights
	if weightSpec.form == oneForAll {
		weightSpec.form = byPosition // a list, one per output, as kerasgo has always written it
	}
	weights, err := weightSpec.encode(names, perWeight, func(w float64) (any, error) { return w, nil })
	if err != nil {
		return nil, err
	}
	// Metrics are written as Keras lists: the one output's, or one list
	// per output (metrics given by name or for all outputs included).
	metricForm := PerOutput[[]metrics.Metric]{form: byPosition}
	if len(c.heads) == 1 {
		metricForm.form = oneForAll
	}
	perMetrics := make([][]metrics.Metric, len(c.heads))
	for i, h := range c.heads {
		perMetrics[i] = h.specs
	}
	ms, err := metricForm.encode(names, perMetrics, func(specs []metrics.Metric) (any, error) {
		out := []any{}
		for _, mt := range specs {
			s, err := metrics.Serialize(mt)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"optimizer": opt, "loss": loss, "loss_weights": weights, "metrics": ms, "weighted_metrics": nil,
		"run_eagerly": false, "steps_per_execution": 1, "jit_compile": false,
	}, nil
}

// savedObject is a serialized Keras object as config.json holds it, with
// the keys models and functional layers add.
type savedObject struct {
	Module        any                  `json:"module"`
	ClassName     string               `json:"class_name"`
	Config        serialization.Config `json:"config"`
	BuildConfig   map[string]any       `json:"build_config"`
	CompileConfig map[string]any       `json:"compile_config"`
	Name          string               `json:"name"`
	InboundNodes  []savedNode          `json:"inbound_nodes"`
}

type savedNode struct {
	Args   []any          `json:"args"`
	Kwargs map[string]any `json:"kwargs"`
}

// inputShape reads an InputLayer's batch_shape (Keras 3) or
// batch_input_shape (Keras 2) and dtype, and returns the input.
func inputShape(obj savedObject) (*layers.KerasTensor, error) {
	r := serialization.NewReader(fmt.Sprintf("layer %q (InputLayer)", obj.Config["name"]), obj.Config)
	r.Ignore("name")
	dtype := backend.Float32
	if v, ok := r.Value("dtype"); ok {
		switch v {
		case "int32", "int64", "string":
			dtype, _ = backend.ParseDType(v.(string))
		default:
			r.DType("dtype")
		}
	}
	r.Expect("sparse", false, "")
	r.Expect("ragged", false, "")
	shape := r.Ints("batch_shape")
	if shape == nil {
		shape = r.Ints("batch_input_shape")
	}
	if err := r.Finish(); err != nil {
		return nil, err
	}
	if len(shape) < 2 && (dtype != backend.String || len(shape) == 0) {
		return nil, fmt.Errorf("layer %q (InputLayer): batch_shape %v: want (None, ...) with at least one more dimension", obj.Config["name"], shape)
	}
	return layers.NewInput(&layers.InputLayer{Shape: shape[1:], DType: dtype}), nil
}

// layerFromConfig builds a layer of a saved model: a registered layer, or
// a nested model.
func layerFromConfig(obj savedObject) (layers.Layer, error) {
	if obj.Module == "keras.src.ops.numpy" {
		// An elementwise keras.ops function (x + table), which may take a
		// constant operand and broadcasts, unlike the merge layer of the
		// same class name.
		if op, ok := layers.NewOperation(obj.ClassName); ok {
			name, _ := obj.Config["name"].(string)
			for k := range obj.Config {
				if k != "name" {
					return nil, fmt.Errorf("layer %q (%s): the operation's config has %q, which kerasgo does not know", name, obj.ClassName, k)
				}
			}
			op.Common().Name = name
			return op, nil
		}
	}
	switch obj.ClassName {
	case "Sequential", "Functional", "Model":
		m, err := fromConfig(obj)
		if err != nil {
			return nil, fmt.Errorf("nested model %q: %w", obj.Config["name"], err)
		}
		return m, nil
	}
	return layers.FromConfig(obj.ClassName, obj.Config)
}

// fromConfig builds a model from config.json (without weights).
func fromConfig(top savedObject) (*Model, error) {
	switch top.ClassName {
	case "Sequential":
		return sequentialFromConfig(top)
	case "Functional", "Model":
		return functionalFromConfig(top)
	}
	return nil, fmt.Errorf("the saved model is a %s: kerasgo loads Sequential and Functional models", top.ClassName)
}

func decodeLayers(cfg serialization.Config) ([]savedObject, error) {
	raw, ok := cfg["layers"].([]any)
	if !ok {
		return nil, fmt.Errorf("the model config has no layers list")
	}
	out := make([]savedObject, len(raw))
	for i, r := range raw {
		obj, isObject := r.(map[string]any)
		if !isObject {
			return nil, fmt.Errorf("layer %d of the model config is %s: want an object with class_name and config, as Keras writes", i, describeJSON(r))
		}
		if name, ok := obj["class_name"].(string); !ok || name == "" {
			return nil, fmt.Errorf("layer %d of the model config has the class_name %s: want the layer's class name (\"Dense\", \"Conv2D\"), as Keras writes", i, describeJSON(obj["class_name"]))
		}
		if err := remarshal(r, &out[i]); err != nil {
			return nil, fmt.Errorf("layer %d of the model config: %v", i, err)
		}
		if out[i].Config == nil {
			out[i].Config = serialization.Config{}
		}
	}
	return out, nil
}

func sequentialFromConfig(top savedObject) (*Model, error) {
	objs, err := decodeLayers(top.Config)
	if err != nil {
		return nil, err
	}
	var args []layers.Layer
	for i, obj := range objs {
		if obj.ClassName == "InputLayer" {
			if i != 0 {
				return nil, fmt.Errorf("the Sequential model has an InputLayer at position %d: only the first layer may be one", i)
			}
			in, err := inputShape(obj)
			if err != nil {
				return nil, err
			}
			in.Layer().Common().Name, _ = obj.Config["name"].(string)
			args = append(args, in.Layer())
			continue
		}
		l, err := layerFromConfig(obj)
		if err != nil {
			return nil, err
		}
		args = append(args, l)
	}
	m, err := NewSequential(args...)
	if err != nil {
		return nil, err
	}
	if name, ok := top.Config["name"].(string); ok {
		m.Name = name
	}
	if !m.Built() {
		r := serialization.NewReader("the Sequential model", top.Config)
		shape := r.Ints("build_input_shape")
		if len(shape) >= 2 {
			if err := m.BuildInput(shape[1:]...); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

// isConstantArgument reports whether a call argument is a constant: a
// number, or a tensor Keras writes whole ("__tensor__").
func isConstantArgument(a any) bool {
	if _, isNumber := a.(float64); isNumber {
		return true
	}
	obj, _ := a.(map[string]any)
	return obj["class_name"] == "__tensor__"
}

// kerasHistory reads a functional argument: a __keras_tensor__ with its
// keras_history [layer, node index, tensor index].
func kerasHistory(arg any) (layer string, node, tensor int, err error) {
	obj, _ := arg.(map[string]any)
	cfg, _ := obj["config"].(map[string]any)
	h, _ := cfg["keras_history"].([]any)
	if obj["class_name"] != "__keras_tensor__" || len(h) != 3 {
		return "", 0, 0, fmt.Errorf("cannot read the layer input %v", arg)
	}
	layer, _ = h[0].(string)
	n, ok1 := h[1].(float64)
	t, ok2 := h[2].(float64)
	if layer == "" || !ok1 || !ok2 {
		return "", 0, 0, fmt.Errorf("cannot read keras_history %v", h)
	}
	return layer, int(n), int(t), nil
}

func functionalFromConfig(top savedObject) (*Model, error) {
	objs, err := decodeLayers(top.Config)
	if err != nil {
		return nil, err
	}
	outputs := map[string][]*layers.KerasTensor{} // each layer's outputs, by node
	lookup := func(arg any) (*layers.KerasTensor, error) {
		name, node, tensor, err := kerasHistory(arg)
		if err != nil {
			return nil, err
		}
		outs := outputs[name]
		if node < 0 || node >= len(outs) || tensor < 0 || tensor >= len(outs[node].Outputs()) {
			return nil, fmt.Errorf("input [%q, %d, %d] refers to a layer call not defined before it", name, node, tensor)
		}
		return outs[node].Outputs()[tensor], nil
	}
	// Keras's functional_from_config: every layer first, then the calls,
	// each layer's in order, in passes over the layers until every call
	// has its inputs: a layer listed before another may take that
	// layer's output in a later call (a shared layer called again).
	type pending struct {
		obj   savedObject
		name  string
		layer layers.Layer
		next  int // its first call not yet made
	}
	var todo []*pending
	for _, obj := range objs {
		name := obj.Name
		if name == "" {
			name, _ = obj.Config["name"].(string)
		}
		if obj.ClassName == "InputLayer" {
			in, err := inputShape(obj)
			if err != nil {
				return nil, err
			}
			in.Layer().Common().Name = name
			outputs[name] = []*layers.KerasTensor{in}
			continue
		}
		l, err := layerFromConfig(obj)
		if err != nil {
			return nil, err
		}
		todo = append(todo, &pending{obj: obj, name: name, layer: l})
	}
	// ready reports whether every tensor a call takes has been made.
	ready := func(node savedNode) bool {
		args := node.Args
		if len(args) == 1 {
			if list, ok := args[0].([]any); ok {
				args = list
			}
		}
		if m, ok := node.Kwargs["mask"].(map[string]any); ok {
			args = append(slices.Clip(args), any(m))
		}
		for _, a := range args {
			if isConstantArgument(a) {
				continue
			}
			name, n, _, err := kerasHistory(a)
			if err == nil && n >= len(outputs[name]) {
				return false
			}
		}
		return true
	}
	call := func(p *pending, node savedNode) error {
		obj, name, l := p.obj, p.name, p.layer
		var err error
		var mode *bool
		var mask *layers.KerasTensor
		var callArgs map[string]any // this call's own arguments (layers.PerCallArguments)
		for k, v := range node.Kwargs {
			if b, isBool := v.(bool); k == "training" && isBool {
				// Keras records the call's training argument, even a
				// default: a random image layer's training=True and
				// SpectralNormalization's training=False are their
				// defaults, which the model's own mode overrides.
				if !layers.IsTrainingDefault(l, b) {
					mode = &b
				}
			} else if _, isTensor := v.(map[string]any); k == "mask" && isTensor {
				// A mask Keras computed explicitly (NotEqual, Any) and passes on.
				if mask, err = lookup(v); err != nil {
					return fmt.Errorf("layer %q (%s): mask: %v", name, obj.ClassName, err)
				}
			} else if c, ok := l.(layers.CallKwargs); ok && c.SetCallKwarg(k, v) {
				continue
			} else if _, ok := l.(layers.PerCallArguments); ok && v != nil {
				if callArgs == nil {
					callArgs = map[string]any{}
				}
				callArgs[k] = v // the layer's BuildCall checks them
			} else if v != nil {
				return fmt.Errorf("layer %q (%s): call argument %s=%v is not supported by kerasgo", name, obj.ClassName, k, v)
			}
		}
		args := node.Args
		if len(args) == 1 {
			if list, ok := args[0].([]any); ok {
				args = list
			}
		}
		var ins []*layers.KerasTensor
		for i, a := range args {
			if isConstantArgument(a) { // an operation's operand (NotEqual(x, 0), x + table)
				c, ok := l.(layers.ConstantOperands)
				if !ok {
					return fmt.Errorf("layer %q (%s): argument %d is the constant %s: kerasgo's %s takes tensors only", name, obj.ClassName, i, describeJSON(a), obj.ClassName)
				}
				if err := c.SetConstantOperand(i, a); err != nil {
					return fmt.Errorf("layer %q (%s): %w", name, obj.ClassName, err)
				}
				continue
			}
			in, err := lookup(a)
			if err != nil {
				return fmt.Errorf("layer %q (%s): %v", name, obj.ClassName, err)
			}
			ins = append(ins, in)
		}
		var out *layers.KerasTensor
		switch {
		case callArgs != nil && mode != nil:
			return fmt.Errorf("layer %q (%s): a call with training=%v and the call arguments %v: kerasgo fixes a call's training mode or gives it arguments, not both yet", name, obj.ClassName, *mode, callArgs)
		case callArgs != nil:
			out = layers.ApplyWithArguments(l, callArgs, ins...)
		case mode != nil:
			out = layers.ApplyInMode(l, *mode, ins...)
		default:
			out = layers.Apply(l, ins...)
		}
		if out.Err() != nil {
			return out.Err()
		}
		if mask != nil {
			out.SetMaskArgument(mask)
		}
		outputs[name] = append(outputs[name], out)
		return nil
	}
	for progress := true; progress; {
		progress = false
		for _, p := range todo {
			for p.next < len(p.obj.InboundNodes) && ready(p.obj.InboundNodes[p.next]) {
				if err := call(p, p.obj.InboundNodes[p.next]); err != nil {
					return nil, err
				}
				p.next++
				progress = true
			}
		}
	}
	for _, p := range todo {
		if p.next < len(p.obj.InboundNodes) {
			if err := call(p, p.obj.InboundNodes[p.next]); err != nil { // names the input it lacks
				return nil, err
			}
		}
	}
	var inputKeys []string
	ends := func(key string) ([]*layers.KerasTensor, error) {
		raw := top.Config[key]
		list, _ := raw.([]any)
		if named, ok := raw.(map[string]any); ok && key == "input_layers" {
			// A dict of inputs: Keras flattens it in the keys' sorted order.
			inputKeys = slices.Sorted(maps.Keys(named))
			for _, k := range inputKeys {
				list = append(list, named[k])
			}
		}
		if len(list) == 3 { // a single [name, node, tensor]
			if _, isName := list[0].(string); isName {
				list = []any{list}
			}
		}
		if len(list) == 0 {
			return nil, fmt.Errorf("the Functional model's config has no %s (got %s): want the [layer name, node index, tensor index] of each of the model's ends, as Keras writes them", key, describeJSON(raw))
		}
		var out []*layers.KerasTensor
		for _, e := range list {
			h, _ := e.([]any)
			if len(h) != 3 {
				return nil, fmt.Errorf("cannot read %s %v", key, raw)
			}
			t, err := lookup(map[string]any{"class_name": "__keras_tensor__", "config": map[string]any{"keras_history": h}})
			if err != nil {
				return nil, fmt.Errorf("%s: %v", key, err)
			}
			out = append(out, t)
		}
		return out, nil
	}
	ins, err := ends("input_layers")
	if err != nil {
		return nil, err
	}
	outs, err := ends("output_layers")
	if err != nil {
		return nil, err
	}
	m, err := NewFunctional(ins, outs)
	if err != nil {
		return nil, err
	}
	m.inputKeys = inputKeys
	if name, ok := top.Config["name"].(string); ok {
		m.Name = name
	}
	return m, nil
}

// compileFromConfig compiles m as compile_config says, on engine; the
// learning rate saved with the optimizer's state, when found, replaces
// the configured one (a callback may have changed it), unless the
// optimizer follows a schedule.
func (m *Model) compileFromConfig(cc map[string]any, engine string, dp *distribution.DataParallel, learningRate float64, found bool) error {
	var opt optimizers.Optimizer = &optimizers.RMSprop{} // Keras's default
	var err error
	if cc["optimizer"] != nil {
		opt, err = optimizers.Deserialize(cc["optimizer"])
	}
	if err != nil {
		return fmt.Errorf("compile_config: %w", err)
	}
	if _, ok := optimizers.AsLossScale(opt); !ok && m.lossScaled(cc) {
		// Keras compiles a mixed_float16 model with its optimizer inside a
		// LossScaleOptimizer, and saves the state so.
		opt = &optimizers.LossScaleOptimizer{Inner: opt}
	}
	if lr := optimizers.LearningRate(opt); found && lr != nil && optimizers.Schedule(opt) == nil {
		*lr = learningRate
	}
	opts := CompileOptions{Optimizer: opt, Backend: engine, Distribution: dp}
	isObject := func(m map[string]any) bool { _, ok := m["class_name"]; return ok }
	opts.Loss, err = decodePerOutput(cc["loss"], isObject, func(v any) (losses.Loss, error) {
		if v == nil {
			return nil, nil // an output without a loss
		}
		return losses.Deserialize(v)
	})
	if err != nil {
		return fmt.Errorf("compile_config: loss: %w", err)
	}
	opts.LossWeights, err = decodePerOutput(cc["loss_weights"], func(map[string]any) bool { return false }, func(v any) (float64, error) {
		f, ok := v.(float64)
		if !ok {
			return 0, fmt.Errorf("cannot read loss weight %v", v)
		}
		return f, nil
	})
	if err != nil {
		return fmt.Errorf("compile_config: loss_weights: %w", err)
	}
	if cc["weighted_metrics"] != nil {
		return fmt.Errorf("compile_config: weighted_metrics is not supported by kerasgo yet: load with LoadOptions{NoCompile: true} and compile again")
	}
	metricList := func(v any) ([]metrics.Metric, error) {
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("cannot read metrics %v", v)
		}
		var out []metrics.Metric
		for _, e := range list {
			mt, err := metrics.Deserialize(e)
			if err != nil {
				return nil, fmt.Errorf("%w: load with LoadOptions{NoCompile: true} and compile with metrics kerasgo has", err)
			}
			out = append(out, mt)
		}
		return out, nil
	}
	switch v := cc["metrics"].(type) {
	case nil:
	case map[string]any:
		named := map[string][]metrics.Metric{}
		for k, e := range v {
			if named[k], err = metricList(e); err != nil {
				return fmt.Errorf("compile_config: metrics for %q: %w", k, err)
			}
		}
		opts.Metrics = ByName(named)
	case []any:
		nested := len(m.outputs) > 1
		for _, e := range v {
			if _, isList := e.([]any); isList || e == nil {
				nested = true
			}
		}
		if !nested {
			list, err := metricList(v)
			if err != nil {
				return fmt.Errorf("compile_config: %w", err)
			}
			opts.Metrics = ForAll(list)
			break
		}
		perOutput := make([][]metrics.Metric, len(v))
		for i, e := range v {
			if e == nil {
				continue
			}
			if _, isList := e.([]any); !isList {
				e = []any{e}
			}
			if perOutput[i], err = metricList(e); err != nil {
				return fmt.Errorf("compile_config: %w", err)
			}
		}
		opts.Metrics = ByPosition(perOutput...)
	default:
		return fmt.Errorf("compile_config: cannot read metrics %v", v)
	}
	return m.Compile(opts)
}

// describeJSON writes a decoded JSON value for a message: its kind and,
// for a list or a string, its length or the string.
func describeJSON(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case []any:
		return fmt.Sprintf("a list of %d", len(v))
	case map[string]any:
		return "an object"
	case string:
		return fmt.Sprintf("the string %.40q", v)
	case bool:
		return fmt.Sprintf("the boolean %v", v)
	}
	return fmt.Sprintf("the number %v", v)
}

// remarshal decodes a generic JSON value into a typed one.
func remarshal(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}

// decodeSavedModel decodes config.json: an object with class_name and
// config, as Keras writes. Anything else (a list, a string, null, a
// number no float64 holds) is an error that says what the file holds.
func decodeSavedModel(data []byte) (savedObject, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return savedObject{}, fmt.Errorf("%v: the file is damaged or not JSON", err)
	}
	if err := checkJSONNumbers(raw); err != nil {
		return savedObject{}, err
	}
	obj, isObject := raw.(map[string]any)
	if !isObject {
		return savedObject{}, fmt.Errorf("holds %s, not a saved model: want an object with class_name and config, as Keras writes", describeJSON(raw))
	}
	if _, named := obj["class_name"].(string); !named {
		return savedObject{}, fmt.Errorf("its class_name is %s, not a saved model: want an object with class_name (\"Sequential\", \"Functional\") and config, as Keras writes", describeJSON(obj["class_name"]))
	}
	var top savedObject
	if err := json.Unmarshal(data, &top); err != nil {
		return savedObject{}, fmt.Errorf("%v: the model's config does not have Keras's layout", err)
	}
	// A MultiOptimizer's map from paths to optimizers keeps its order,
	// which is that of the optimizers' saved state.
	if top.CompileConfig != nil {
		if err := serialization.KeepKeyOrder(top.CompileConfig, data, "optimizer_map", "default_optimizer"); err != nil {
			return savedObject{}, fmt.Errorf("%v: the model's config is not JSON", err)
		}
	}
	return top, nil
}

// checkJSONNumbers refuses a number no float64 holds (1e999), which Go's
// decoder would report as a field of its own types.
func checkJSONNumbers(v any) error {
	switch v := v.(type) {
	case json.Number:
		if _, err := strconv.ParseFloat(string(v), 64); err != nil {
			return fmt.Errorf("the number %.40s is out of range of a 64-bit float: the file is damaged or was not written by Keras", v)
		}
	case []any:
		for _, e := range v {
			if err := checkJSONNumbers(e); err != nil {
				return err
			}
		}
	case map[string]any:
		for _, e := range v {
			if err := checkJSONNumbers(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// ToJSON returns the model's config as JSON, Keras's model.to_json():
// what a .keras file's config.json holds.
func (m *Model) ToJSON() (string, error) {
	cfg, err := m.modelConfig()
	if err != nil {
		return "", err
	}
	js, err := json.Marshal(cfg)
	if err != nil {
		return "", fmt.Errorf("ToJSON: %w", err)
	}
	return string(js), nil
}

// lossScaled reports whether Keras trains the model with a
// LossScaleOptimizer: one named in its compile config, or the one Keras
// wraps around the optimizer of a model with the mixed_float16 policy.
func (m *Model) lossScaled(cc map[string]any) bool {
	if opt, ok := cc["optimizer"].(map[string]any); ok && opt["class_name"] == "LossScaleOptimizer" {
		return true
	}
	for _, l := range m.Layers() {
		if l.Common().DTypePolicy() == "mixed_float16" {
			return true
		}
	}
	return false
}
