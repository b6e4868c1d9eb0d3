package export

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Param is a variable the exported graph holds as a constant (an ONNX
// initializer): a layer's weight, at its current value.
type Param struct {
	Name  string
	Shape backend.Shape
	Value []float32
}

// Input is an input of the exported graph. A dimension of -1 is free: the
// graph takes any length there (Keras's None). The first dimension is the
// batch, which all inputs share.
type Input struct {
	Name  string
	Shape backend.Shape
	DType backend.DType // Float32 (or the graph's dtype), or Int32 for token ids
}

// Options configure [ONNX].
type Options struct {
	// Opset is the ONNX operator set the graph is written for; 0 means 17
	// (ONNX 1.12, which onnxruntime reads from 1.12 on). kerasgo writes
	// opsets 17 to 21.
	Opset int
	// DType is the float dtype the graph computes in (Float32 unless the
	// model computes in Float64).
	DType backend.DType
	// Name names the graph (the model's name).
	Name string
}

// symbol is a free dimension of the graph: the batch, shared by every
// input, or another dimension of one input. The two traces give it the
// lengths a and b; a dimension that has these lengths in the two traces
// is this symbol.
type symbol struct {
	name  string
	a, b  int
	input string
	axis  int
}

// The lengths of the free dimensions in the two traces: for the batch,
// small, unequal, and not 1 (which some layers treat apart); for other
// dimensions (a sequence's steps, an image's side) long enough for
// convolutions and pooling to leave something, and a pair no other free
// dimension has.
const (
	batchA, batchB = 2, 3
	otherA, otherB = 24, 32
)

// symbols lists the inputs' free dimensions, the batch first; each of
// the other free dimensions is its own symbol.
func symbols(inputs []Input) []symbol {
	syms := []symbol{{name: "batch", a: batchA, b: batchB, input: inputs[0].Name}}
	for _, in := range inputs {
		for axis, d := range in.Shape[1:] {
			if d < 0 {
				k := len(syms) - 1
				syms = append(syms, symbol{name: in.Name + "_dim" + strconv.Itoa(axis+1), a: otherA + k, b: otherB + k, input: in.Name, axis: axis + 1})
			}
		}
	}
	return syms
}

// shapeIn is an input's shape in one trace (second: the peer's).
func shapeIn(in Input, syms []symbol, second bool) backend.Shape {
	s := slices.Clone(in.Shape)
	for axis, d := range s {
		if d >= 0 {
			continue
		}
		for _, sym := range syms {
			if (axis == 0 && sym.name == "batch") || (sym.input == in.Name && sym.axis == axis && axis > 0) {
				s[axis] = sym.a
				if second {
					s[axis] = sym.b
				}
			}
		}
	}
	return s
}

// ONNX writes fn, a model's prediction, as an ONNX model to w. fn takes
// the params' values, then the inputs', and returns one value per output
// name. An op that ONNX cannot express is refused with an error naming
// the layer that asked for it (its Builder scope).
func ONNX(w io.Writer, fn backend.Func, params []Param, inputs []Input, outputs []string, o Options) error {
	if o.Opset == 0 {
		o.Opset = onnxDefaultOpset
	}
	if o.Opset < 17 || o.Opset > 21 {
		return fmt.Errorf("ONNX opset %d: kerasgo writes opsets 17 to 21 (0 means 17)", o.Opset)
	}
	if len(inputs) == 0 {
		return errors.New("ONNX: the graph has no input")
	}
	free := false
	for _, in := range inputs {
		if len(in.Shape) == 0 {
			return fmt.Errorf("ONNX: input %q is a scalar: inputs have a batch dimension first", in.Name)
		}
		for _, d := range in.Shape {
			free = free || d < 0
		}
	}
	syms := symbols(inputs)
	var peer *recorder
	if free {
		var err error
		if peer, _, err = trace(fn, params, inputs, len(outputs), o, syms, nil, true); err != nil {
			return err
		}
	}
	var peerShapes []shapeRecord
	if peer != nil {
		peerShapes = peer.shapes
	}
	r, outs, err := trace(fn, params, inputs, len(outputs), o, syms, peerShapes, false)
	if err != nil {
		return err
	}
	model := modelProto{graphName: o.Name, opset: o.Opset, initializers: r.initializers}
	if model.graphName == "" {
		model.graphName = "kerasgo"
	}
	for _, in := range inputs {
		dims := make([]dimension, len(in.Shape))
		for axis, d := range in.Shape {
			dims[axis] = dimension{length: d}
			if d < 0 {
				dims[axis].name = r.symbolOf(shapeIn(in, syms, false)[axis], shapeIn(in, syms, true)[axis]).name
			}
		}
		model.inputs = append(model.inputs, valueInfo{name: in.Name, elemType: r.elemType(in.DType), dims: dims})
	}
	for i, out := range outs {
		dims := make([]dimension, len(out.shape))
		for axis, d := range out.shape {
			dims[axis] = dimension{length: d}
			if peer != nil && peer.outputShapes[i][axis] != d {
				dims[axis].name = outputs[i] + "_dim" + strconv.Itoa(axis)
				if sym := r.symbolOf(d, peer.outputShapes[i][axis]); sym != nil {
					dims[axis].name = sym.name
				}
			}
		}
		r.nodes = append(r.nodes, nodeProto{opType: "Identity", name: "output/" + outputs[i], inputs: []string{out.name}, outputs: []string{outputs[i]}})
		model.outputs = append(model.outputs, valueInfo{name: outputs[i], elemType: r.elemType(o.DType), dims: dims})
	}
	model.nodes = r.nodes
	size := 0
	for _, t := range model.initializers {
		size += len(t.raw)
	}
	if size > maxONNXBytes {
		return fmt.Errorf("ONNX: the weights take %.2f GB, more than the 2 GB a protobuf file holds; kerasgo does not write ONNX's external data files yet", float64(size)/1e9)
	}
	_, err = w.Write(model.encode())
	return err
}

// maxONNXBytes is what one ONNX file can hold: protobuf messages are
// limited to 2 GiB, and the graph needs some room beside the weights (a
// variable for the test).
var maxONNXBytes = 2<<30 - 64<<20

// trace runs fn on a recorder with the inputs' free dimensions at their
// lengths in one trace (second: the peer's), comparing its shapes with
// the peer trace's (nil: none). The trace that writes the graph is the
// first, which holds the weights' values.
func trace(fn backend.Func, params []Param, inputs []Input, nOut int, o Options, syms []symbol,
	peer []shapeRecord, second bool) (*recorder, []value, error) {
	dtype := o.DType
	r := newRecorder(dtype, o.Opset, peer, syms)
	vals := make([]backend.Value, 0, len(params)+len(inputs))
	names := map[string]bool{}
	for _, p := range params {
		if names[p.Name] {
			return nil, nil, fmt.Errorf("ONNX: two weights are named %q", p.Name)
		}
		names[p.Name] = true
		if !second {
			r.initializers = append(r.initializers, r.paramTensor(p))
		}
		vals = append(vals, value{name: p.Name, shape: p.Shape, dtype: dtype})
	}
	for _, in := range inputs {
		if names[in.Name] {
			return nil, nil, fmt.Errorf("ONNX: input %q has the name of a weight or another input", in.Name)
		}
		names[in.Name] = true
		dt := in.DType
		if dt != backend.Int32 {
			dt = dtype
		}
		vals = append(vals, value{name: in.Name, shape: shapeIn(in, syms, second), dtype: dt})
	}
	b := backend.NewBuilder(r)
	outs, err := call(fn, b, vals)
	if r.refusal != nil {
		return nil, nil, fmt.Errorf("ONNX: %w", r.refusal)
	}
	if err == nil {
		err = b.Err()
	}
	if err != nil {
		if len(syms) > 1 {
			return nil, nil, fmt.Errorf("ONNX: tracing the model with its free dimensions %s: %w (fix their lengths: ExportOptions.InputSignature)", symbolLengths(syms, second), err)
		}
		return nil, nil, fmt.Errorf("ONNX: tracing the model: %w", err)
	}
	if peer != nil && len(r.shapes) < len(peer) { // the peer computed more: name who
		r.scope = peer[len(r.shapes)].scope
		return nil, nil, fmt.Errorf("ONNX: %w", r.batchDependent("the ops it computes depend on the length of a free dimension"))
	}
	if len(outs) != nOut {
		return nil, nil, fmt.Errorf("ONNX: the model gave %d outputs for %d names", len(outs), nOut)
	}
	vs := make([]value, len(outs))
	for i, o := range outs {
		v, ok := o.(value)
		if !ok {
			return nil, nil, fmt.Errorf("ONNX: output %d is not a traced value (%T)", i, o)
		}
		vs[i] = v
		r.outputShapes = append(r.outputShapes, v.shape)
	}
	return r, vs, nil
}

// symbolLengths says what length each free dimension had in a trace.
func symbolLengths(syms []symbol, second bool) string {
	out := ""
	for i, s := range syms {
		if i > 0 {
			out += ", "
		}
		n := s.a
		if second {
			n = s.b
		}
		out += fmt.Sprintf("%s=%d", s.name, n)
	}
	return out
}

// call runs fn, turning a panic into an error: layer code that reads the
// placeholder an op returned after a refusal (a shape it did not expect)
// may panic, and the refusal is then what to report.
func call(fn backend.Func, b backend.Builder, vals []backend.Value) (outs []backend.Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			if err = b.Err(); err == nil {
				err = fmt.Errorf("panic: %v", p)
			}
		}
	}()
	return fn(b, vals)
}
