package export

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// recorder is an engine that runs nothing: it implements [backend.Ops] by
// writing each op it is asked for as ONNX nodes. Layers are written over
// the Builder's ops, so a model exports whenever each op it uses has an
// ONNX form, with no exporter code per layer; the Builder's fused ops
// (LSTM, GRU, normalisations) reach a recorder as their reference
// compositions, since it implements none of the optional interfaces.
//
// To leave the batch and the other free lengths free in the graph, the
// model is traced twice, with two lengths for each free dimension: the
// first trace (the peer) only records every op and its shape arguments,
// and the second, which writes the graph, compares its own with them. A
// dimension that differs between the two follows a free length, and is
// written so that ONNX computes it at run time (a Reshape's -1 or a
// shape read from the input, a Slice to the end, a constant expanded to
// the run's length).
type recorder struct {
	dtype backend.DType
	opset int
	scope string // the layer being traced (Scoper), for names and errors

	nodes        []nodeProto
	initializers []tensorProto
	names        int               // values named so far
	scalars      map[uint64]string // the initializer of each scalar constant, by its bits
	int64Consts  map[string]string // the initializer of each int64 vector

	// shapes records every op's shape arguments in order; peer is the
	// other trace's record (nil in the first trace, or when no dimension
	// is free), and syms are the free dimensions.
	shapes []shapeRecord
	peer   []shapeRecord
	syms   []symbol
	// lengths names, per symbol, a 1-D int64 tensor holding its length
	// in the run, read from an input's shape when a constant needs it.
	lengths map[string]string
	// outputShapes are the shapes of the traced function's outputs.
	outputShapes []backend.Shape
	// refusal is the first op that ONNX cannot express; Export reports it.
	refusal error
}

// shapeRecord is one op's kind and the shape arguments that may follow the
// batch.
type shapeRecord struct {
	op    string
	args  [][]int
	scope string
}

// value is a recorder's Value: the name of an ONNX tensor.
type value struct {
	name  string
	shape backend.Shape
	dtype backend.DType
}

func (v value) Shape() backend.Shape { return v.shape }
func (v value) DType() backend.DType { return v.dtype }

func newRecorder(dtype backend.DType, opset int, peer []shapeRecord, syms []symbol) *recorder {
	return &recorder{dtype: dtype, opset: opset, scalars: map[uint64]string{}, int64Consts: map[string]string{},
		peer: peer, syms: syms, lengths: map[string]string{}}
}

// symbolOf returns the free dimension whose lengths in the two traces are
// a and b, or nil.
func (r *recorder) symbolOf(a, b int) *symbol {
	for i, s := range r.syms {
		if s.a == a && s.b == b {
			return &r.syms[i]
		}
	}
	return nil
}

// SetScope implements [backend.Scoper]: the nodes written from now on are
// named after the layer.
func (r *recorder) SetScope(scope string) { r.scope = scope }

var quotedName = regexp.MustCompile(`"([^"]+)"`)

// nodeName names a node after the layer being traced and the op.
func (r *recorder) nodeName(op string) string {
	prefix := ""
	if m := quotedName.FindStringSubmatch(r.scope); m != nil {
		prefix = m[1] + "/"
	}
	return prefix + op + "_" + strconv.Itoa(len(r.nodes))
}

func (r *recorder) newName() string {
	r.names++
	return "t" + strconv.Itoa(r.names)
}

// node writes one node and returns its output.
func (r *recorder) node(op string, inputs []string, s backend.Shape, dt backend.DType, attrs ...attribute) value {
	out := value{name: r.newName(), shape: s, dtype: dt}
	r.nodes = append(r.nodes, nodeProto{opType: op, name: r.nodeName(op), inputs: inputs, outputs: []string{out.name}, attrs: attrs, doc: r.scope})
	return out
}

func (r *recorder) elemType(dt backend.DType) int {
	switch dt {
	case backend.Float64:
		return onnxDouble
	case backend.Int32:
		return onnxInt32
	}
	return onnxFloat
}

// refuse records that an op has no ONNX form and returns a placeholder.
func (r *recorder) refuse(s backend.Shape, format string, args ...any) (backend.Value, error) {
	err := fmt.Errorf(format, args...)
	if r.scope != "" {
		err = fmt.Errorf("%s: %w", r.scope, err)
	}
	if r.refusal == nil {
		r.refusal = err
	}
	return nil, err
}

// record appends an op's shape arguments and returns the peer trace's for
// the same op, or nil when there is no peer.
func (r *recorder) record(op string, args ...[]int) ([][]int, error) {
	i := len(r.shapes)
	r.shapes = append(r.shapes, shapeRecord{op: op, args: args, scope: r.scope})
	if r.peer == nil {
		return nil, nil
	}
	if i >= len(r.peer) || r.peer[i].op != op || len(r.peer[i].args) != len(args) {
		return nil, r.batchDependent("the ops it computes depend on the length of a free dimension")
	}
	return r.peer[i].args, nil
}

func (r *recorder) batchDependent(what string) error {
	_, err := r.refuse(nil, "%s, so it cannot be exported with that dimension free: fix its length (ExportOptions.InputSignature)", what)
	return err
}

// differing returns the positions where a and b differ.
func differing(a, b []int) []int {
	var out []int
	for i := range a {
		if a[i] != b[i] {
			out = append(out, i)
		}
	}
	return out
}

// int64Const returns an initializer holding vs as a 1-D int64 tensor,
// shared by every op that needs the same one.
func (r *recorder) int64Const(vs []int64) string {
	key := fmt.Sprint(vs)
	if name, ok := r.int64Consts[key]; ok {
		return name
	}
	name := r.newName()
	r.initializers = append(r.initializers, tensorProto{name: name, dims: []int64{int64(len(vs))}, dataType: onnxInt64, raw: int64Raw(vs)})
	r.int64Consts[key] = name
	return name
}

func toInt64s(vs []int) []int64 {
	out := make([]int64, len(vs))
	for i, v := range vs {
		out[i] = int64(v)
	}
	return out
}

// floatTensor is an initializer of the graph's float dtype.
func (r *recorder) floatTensor(name string, data []float64, s backend.Shape) tensorProto {
	t := tensorProto{name: name, dims: toInt64s(s), dataType: r.elemType(r.dtype)}
	if r.dtype == backend.Float64 {
		t.raw = float64Raw(data)
	} else {
		f := make([]float32, len(data))
		for i, v := range data {
			f[i] = float32(v)
		}
		t.raw = float32Raw(f)
	}
	return t
}

// paramTensor is the initializer of a weight, in the graph's dtype.
func (r *recorder) paramTensor(p Param) tensorProto {
	if r.dtype != backend.Float32 {
		data := make([]float64, len(p.Value))
		for i, v := range p.Value {
			data[i] = float64(v)
		}
		return r.floatTensor(p.Name, data, p.Shape)
	}
	return tensorProto{name: p.Name, dims: toInt64s(p.Shape), dataType: onnxFloat, raw: float32Raw(p.Value)}
}

func (r *recorder) DType() backend.DType { return r.dtype }

func (r *recorder) Scalar(v float64) (backend.Value, error) {
	if _, err := r.record("Scalar"); err != nil {
		return nil, err
	}
	return value{name: r.scalar(v), dtype: r.dtype}, nil
}

// scalar returns the initializer holding the scalar v, one per value.
func (r *recorder) scalar(v float64) string {
	key := math.Float64bits(v)
	if name, ok := r.scalars[key]; ok {
		return name
	}
	name := r.newName()
	r.initializers = append(r.initializers, r.floatTensor(name, []float64{v}, nil))
	r.scalars[key] = name
	return name
}

func (r *recorder) Constant(data []float64, s backend.Shape) (backend.Value, error) {
	peer, err := r.record("Constant", s)
	if err != nil {
		return nil, err
	}
	var free []int
	if peer != nil {
		free = differing(s, peer[0])
	}
	if len(free) == 0 {
		name := r.newName()
		r.initializers = append(r.initializers, r.floatTensor(name, data, s))
		return value{name: name, shape: s, dtype: r.dtype}, nil
	}
	// A constant as long as a free dimension (an RNN's zero initial
	// state, as long as the batch; the positions 0..n-1 of a sort, the
	// same in every row): the same along each free axis, so one slice
	// of it, expanded to the lengths of the run.
	slice, ok := sliceAlong(data, s, free)
	if !ok && len(free) == 1 {
		if v, ok := r.progression(data, s, free[0], peer[0][free[0]]); ok {
			return v, nil
		}
	}
	if !ok {
		return nil, r.batchDependent(fmt.Sprintf("it makes a constant of shape %v, whose values depend on the length of a free dimension", s))
	}
	var parts []string
	sliceShape := s.Clone()
	for axis, d := range s {
		if !slices.Contains(free, axis) {
			parts = append(parts, r.int64Const([]int64{int64(d)}))
			continue
		}
		sliceShape[axis] = 1
		sym := r.symbolOf(d, peer[0][axis])
		if sym == nil {
			return nil, r.batchDependent(fmt.Sprintf("it makes a constant of shape %v, whose axis %d follows a free dimension but is not one", s, axis))
		}
		parts = append(parts, r.lengthOf(sym))
	}
	name := r.newName()
	r.initializers = append(r.initializers, r.floatTensor(name, slice, sliceShape))
	shape := r.node("Concat", parts, backend.Shape{len(s)}, backend.Int32, intAttr("axis", 0))
	return r.node("Expand", []string{name, shape.name}, s, r.dtype), nil
}

// progression writes a constant that grows by the same step at each index
// of its free axis (the offsets k·n of the rows of a flattened batch),
// as base + k·step, k counting the run's length of that axis. It reports
// false for data of another form.
func (r *recorder) progression(data []float64, s backend.Shape, axis, peerLength int) (backend.Value, bool) {
	sym := r.symbolOf(s[axis], peerLength)
	if sym == nil || s[axis] < 2 {
		return nil, false
	}
	inner := 1
	for _, d := range s[axis+1:] {
		inner *= d
	}
	block := s[axis] * inner
	sliceShape := s.Clone()
	sliceShape[axis] = 1
	base := make([]float64, 0, len(data)/s[axis])
	step := make([]float64, 0, len(data)/s[axis])
	for outer := 0; outer < len(data); outer += block {
		for j := 0; j < inner; j++ {
			b0, b1 := data[outer+j], data[outer+inner+j]
			base, step = append(base, b0), append(step, b1-b0)
			for k := 2; k < s[axis]; k++ {
				if data[outer+k*inner+j] != b0+float64(k)*(b1-b0) {
					return nil, false
				}
			}
		}
	}
	baseName, stepName := r.newName(), r.newName()
	r.initializers = append(r.initializers, r.floatTensor(baseName, base, sliceShape), r.floatTensor(stepName, step, sliceShape))
	limit := r.node("Squeeze", []string{r.lengthOf(sym), r.int64Const([]int64{0})}, nil, backend.Int32)
	zero, one := r.int64Scalar(0), r.int64Scalar(1)
	k := r.node("Range", []string{zero, limit.name, one}, backend.Shape{s[axis]}, backend.Int32)
	kf := r.cast(k, r.dtype)
	along := make([]int64, len(s))
	for i := range along {
		along[i] = 1
	}
	along[axis] = -1
	kShaped := r.node("Reshape", []string{kf.name, r.int64Const(along)}, nil, r.dtype)
	scaled := r.node("Mul", []string{kShaped.name, stepName}, s, r.dtype)
	return r.node("Add", []string{baseName, scaled.name}, s, r.dtype), true
}

// int64Scalar returns an initializer holding the int64 scalar v.
func (r *recorder) int64Scalar(v int64) string {
	key := fmt.Sprintf("scalar %d", v)
	if name, ok := r.int64Consts[key]; ok {
		return name
	}
	name := r.newName()
	r.initializers = append(r.initializers, tensorProto{name: name, dataType: onnxInt64, raw: int64Raw([]int64{v})})
	r.int64Consts[key] = name
	return name
}

// sliceAlong returns data (of shape s) at index 0 of each of the axes
// free, and whether data is the same at every index along them.
func sliceAlong(data []float64, s backend.Shape, free []int) ([]float64, bool) {
	strides := make([]int, len(s))
	stride := 1
	for i := len(s) - 1; i >= 0; i-- {
		strides[i], stride = stride, stride*s[i]
	}
	var out []float64
	for i, v := range data {
		first, rest := i, i // i's index with the free axes at 0
		for _, a := range free {
			first -= (rest / strides[a] % s[a]) * strides[a]
		}
		if first != i {
			if math.Float64bits(data[first]) != math.Float64bits(v) { // NaN as any other value
				return nil, false
			}
			continue
		}
		out = append(out, v)
	}
	return out, true
}

// lengthOf returns a 1-D int64 tensor holding a free dimension's length
// in the run, read from its input's shape.
func (r *recorder) lengthOf(sym *symbol) string {
	if name, ok := r.lengths[sym.name]; ok {
		return name
	}
	name := r.node("Shape", []string{sym.input}, backend.Shape{1}, backend.Int32, intAttr("start", sym.axis), intAttr("end", sym.axis+1)).name
	r.lengths[sym.name] = name
	return name
}

var unaryONNX = map[backend.UnaryOp]string{
	backend.OpNeg: "Neg", backend.OpExp: "Exp", backend.OpLog: "Log", backend.OpSqrt: "Sqrt",
	backend.OpRelu: "Relu", backend.OpSigmoid: "Sigmoid", backend.OpTanh: "Tanh", backend.OpErf: "Erf",
	backend.OpSin: "Sin", backend.OpCos: "Cos", backend.OpFloor: "Floor", backend.OpAbs: "Abs",
	backend.OpAtan: "Atan", backend.OpStopGradient: "Identity",
}

func (r *recorder) Unary(op backend.UnaryOp, x backend.Value) (backend.Value, error) {
	if _, err := r.record(op.String()); err != nil {
		return nil, err
	}
	xv := x.(value)
	s := xv.shape
	if name, ok := unaryONNX[op]; ok {
		return r.node(name, []string{xv.name}, s, r.dtype), nil
	}
	switch op {
	case backend.OpSquare:
		return r.node("Mul", []string{xv.name, xv.name}, s, r.dtype), nil
	case backend.OpSoftmax:
		return r.node("Softmax", []string{xv.name}, s, r.dtype, intAttr("axis", -1)), nil
	case backend.OpLogSoftmax:
		return r.node("LogSoftmax", []string{xv.name}, s, r.dtype, intAttr("axis", -1)), nil
	case backend.OpLog1p:
		sum := r.node("Add", []string{xv.name, r.scalar(1)}, s, r.dtype)
		return r.node("Log", []string{sum.name}, s, r.dtype), nil
	case backend.OpExpm1:
		e := r.node("Exp", []string{xv.name}, s, r.dtype)
		return r.node("Sub", []string{e.name, r.scalar(1)}, s, r.dtype), nil
	}
	return r.refuse(s, "ONNX has no operator for %v", op)
}

var binaryONNX = [...]string{
	backend.OpAdd: "Add", backend.OpSub: "Sub", backend.OpMul: "Mul", backend.OpDiv: "Div",
	backend.OpMaximum: "Max", backend.OpMinimum: "Min", backend.OpEqual: "Equal", backend.OpGreater: "Greater",
}

func (r *recorder) Binary(op backend.BinaryOp, a, b backend.Value, out backend.Shape) (backend.Value, error) {
	if _, err := r.record(op.String()); err != nil {
		return nil, err
	}
	in := []string{a.(value).name, b.(value).name}
	switch op {
	case backend.OpEqual, backend.OpGreater: // booleans, as the float 1 or 0
		t := r.node(binaryONNX[op], in, out, backend.Int32)
		return r.cast(t, r.dtype), nil
	}
	return r.node(binaryONNX[op], in, out, r.dtype), nil
}

// cast converts v to dt (Cast's "to" is an ONNX element type).
func (r *recorder) cast(v value, dt backend.DType) value {
	return r.node("Cast", []string{v.name}, v.shape, dt, intAttr("to", r.elemType(dt)))
}

func (r *recorder) MatMul(a, b backend.Value) (backend.Value, error) {
	if _, err := r.record("MatMul"); err != nil {
		return nil, err
	}
	s := backend.Shape{a.Shape()[0], b.Shape()[1]}
	return r.node("MatMul", []string{a.(value).name, b.(value).name}, s, r.dtype), nil
}

func (r *recorder) BatchMatMul(a, b backend.Value, out backend.Shape) (backend.Value, error) {
	if _, err := r.record("BatchMatMul"); err != nil {
		return nil, err
	}
	return r.node("MatMul", []string{a.(value).name, b.(value).name}, out, r.dtype), nil
}

func (r *recorder) Reduce(op backend.ReduceOp, x backend.Value, axes []int) (backend.Value, error) {
	if _, err := r.record(op.String()); err != nil {
		return nil, err
	}
	xv := x.(value)
	var s backend.Shape
	for i, d := range xv.shape {
		if !slices.Contains(axes, i) {
			s = append(s, d)
		}
	}
	if op == backend.OpSum { // axes are an input from opset 13
		return r.node("ReduceSum", []string{xv.name, r.int64Const(toInt64s(axes))}, s, r.dtype, intAttr("keepdims", 0)), nil
	}
	if r.opset >= 18 {
		return r.node("ReduceMean", []string{xv.name, r.int64Const(toInt64s(axes))}, s, r.dtype, intAttr("keepdims", 0)), nil
	}
	return r.node("ReduceMean", []string{xv.name}, s, r.dtype, intsAttr("axes", axes), intAttr("keepdims", 0)), nil
}

func (r *recorder) Reshape(x backend.Value, s backend.Shape) (backend.Value, error) {
	peer, err := r.record("Reshape", s)
	if err != nil {
		return nil, err
	}
	for _, d := range s {
		if d == 0 {
			return r.refuse(s, "reshape to %v: ONNX's Reshape reads a 0 as 'copy this dimension'", s)
		}
	}
	xv := x.(value)
	var free []int
	if peer != nil {
		free = differing(s, peer[0])
	}
	if len(free) <= 1 {
		target := toInt64s(s)
		if len(free) == 1 { // the one dimension that follows the free ones: ONNX infers it
			target[free[0]] = -1
		}
		return r.node("Reshape", []string{xv.name, r.int64Const(target)}, s, xv.dtype), nil
	}
	// Several: each is a free dimension, read from the run's input,
	// except at most one, which ONNX infers.
	parts := make([]string, len(s))
	inferred := false
	for axis, d := range s {
		switch sym := r.symbolOf(d, peer[0][axis]); {
		case !slices.Contains(free, axis):
			parts[axis] = r.int64Const([]int64{int64(d)})
		case sym != nil:
			parts[axis] = r.lengthOf(sym)
		case !inferred:
			parts[axis], inferred = r.int64Const([]int64{-1}), true
		default:
			return nil, r.batchDependent(fmt.Sprintf("it reshapes to %v, where more than one dimension follows the free dimensions without being one", s))
		}
	}
	shape := r.node("Concat", parts, backend.Shape{len(s)}, backend.Int32, intAttr("axis", 0))
	return r.node("Reshape", []string{xv.name, shape.name}, s, xv.dtype), nil
}

func (r *recorder) Concat(xs []backend.Value, axis int, out backend.Shape) (backend.Value, error) {
	if _, err := r.record("Concat"); err != nil {
		return nil, err
	}
	in := make([]string, len(xs))
	for i, x := range xs {
		in[i] = x.(value).name
	}
	return r.node("Concat", in, out, xs[0].DType(), intAttr("axis", axis)), nil
}

func (r *recorder) Transpose(x backend.Value, perm []int, out backend.Shape) (backend.Value, error) {
	if _, err := r.record("Transpose"); err != nil {
		return nil, err
	}
	xv := x.(value)
	return r.node("Transpose", []string{xv.name}, out, xv.dtype, intsAttr("perm", perm)), nil
}

func (r *recorder) Slice(x backend.Value, begin, size []int) (backend.Value, error) {
	xv := x.(value)
	peer, err := r.record("Slice", xv.shape, begin, size)
	if err != nil {
		return nil, err
	}
	var starts, ends, axes []int64
	for i := range begin {
		full := begin[i] == 0 && size[i] == xv.shape[i]
		follows := peer != nil && (peer[0][i] != xv.shape[i] || peer[1][i] != begin[i] || peer[2][i] != size[i])
		switch {
		case follows && !(full && peer[1][i] == 0 && peer[2][i] == peer[0][i]):
			return nil, r.batchDependent(fmt.Sprintf("it slices %d of %d along an axis that follows a free dimension", size[i], xv.shape[i]))
		case full:
			continue
		}
		starts = append(starts, int64(begin[i]))
		ends = append(ends, int64(begin[i]+size[i]))
		axes = append(axes, int64(i))
	}
	s := backend.Shape(slices.Clone(size))
	if len(axes) == 0 {
		return r.node("Identity", []string{xv.name}, s, xv.dtype), nil
	}
	return r.node("Slice", []string{xv.name, r.int64Const(starts), r.int64Const(ends), r.int64Const(axes)}, s, xv.dtype), nil
}

// toNCHW and fromNCHW move channels between Keras's last axis and ONNX's
// second.
func (r *recorder) toNCHW(x value) value {
	s := x.shape
	return r.node("Transpose", []string{x.name}, backend.Shape{s[0], s[3], s[1], s[2]}, x.dtype, intsAttr("perm", []int{0, 3, 1, 2}))
}

func (r *recorder) fromNCHW(x value, out backend.Shape) value {
	return r.node("Transpose", []string{x.name}, out, x.dtype, intsAttr("perm", []int{0, 2, 3, 1}))
}

// padAttr is Keras's padding as ONNX's: TensorFlow's "same" puts the odd
// pixel at the end, which is ONNX's SAME_UPPER.
func padAttr(p backend.Padding) attribute {
	if p == backend.Same {
		return attribute{name: "auto_pad", kind: attrTypeString, s: "SAME_UPPER"}
	}
	return attribute{name: "auto_pad", kind: attrTypeString, s: "VALID"}
}

func (r *recorder) Conv2D(x, kernel backend.Value, o backend.ConvOptions, out backend.Shape) (backend.Value, error) {
	if _, err := r.record("Conv2D"); err != nil {
		return nil, err
	}
	k := kernel.(value)
	ks := k.shape // (kh, kw, in, out) -> (out, in, kh, kw)
	w := r.node("Transpose", []string{k.name}, backend.Shape{ks[3], ks[2], ks[0], ks[1]}, k.dtype, intsAttr("perm", []int{3, 2, 0, 1}))
	nchw := r.toNCHW(x.(value))
	y := r.node("Conv", []string{nchw.name, w.name}, backend.Shape{out[0], out[3], out[1], out[2]}, r.dtype,
		intsAttr("kernel_shape", []int{ks[0], ks[1]}), intsAttr("strides", o.Strides[:]), padAttr(o.Padding))
	return r.fromNCHW(y, out), nil
}

func (r *recorder) MaxPool2D(x backend.Value, o backend.PoolOptions, out backend.Shape) (backend.Value, error) {
	if _, err := r.record("MaxPool2D"); err != nil {
		return nil, err
	}
	nchw := r.toNCHW(x.(value))
	y := r.node("MaxPool", []string{nchw.name}, backend.Shape{out[0], out[3], out[1], out[2]}, r.dtype,
		intsAttr("kernel_shape", o.Size[:]), intsAttr("strides", o.Strides[:]), padAttr(o.Padding))
	return r.fromNCHW(y, out), nil
}

func (r *recorder) ArgMax(x backend.Value) (backend.Value, error) {
	if _, err := r.record("ArgMax"); err != nil {
		return nil, err
	}
	xv := x.(value)
	s := xv.shape[:len(xv.shape)-1]
	i := r.node("ArgMax", []string{xv.name}, s, backend.Int32, intAttr("axis", -1), intAttr("keepdims", 0))
	return r.cast(i, r.dtype), nil
}

// OneHot compares the indices, truncated to whole numbers, with 0..depth-1
// rather than using ONNX's OneHot, which counts a negative index from the
// end (kerasgo's and Keras's give zeros) and which onnxruntime lacks for
// float indices.
func (r *recorder) OneHot(indices backend.Value, depth int) (backend.Value, error) {
	if _, err := r.record("OneHot"); err != nil {
		return nil, err
	}
	iv := indices.(value)
	s := append(slices.Clone(iv.shape), depth)
	whole := r.node("Cast", []string{iv.name}, iv.shape, backend.Int32, intAttr("to", onnxInt64))
	column := r.node("Unsqueeze", []string{whole.name, r.int64Const([]int64{-1})}, append(slices.Clone(iv.shape), 1), backend.Int32)
	classes := make([]int64, depth)
	for i := range classes {
		classes[i] = int64(i)
	}
	hit := r.node("Equal", []string{column.name, r.int64Const(classes)}, s, backend.Int32)
	return r.cast(hit, r.dtype), nil
}

func (r *recorder) Cast(x backend.Value) (backend.Value, error) {
	if _, err := r.record("Cast"); err != nil {
		return nil, err
	}
	return r.cast(x.(value), r.dtype), nil
}

func (r *recorder) Gather(table, indices backend.Value, out backend.Shape) (backend.Value, error) {
	if _, err := r.record("Gather"); err != nil {
		return nil, err
	}
	iv := indices.(value)
	if iv.dtype != backend.Int32 { // float indices hold whole numbers; Cast truncates toward zero
		iv = r.node("Cast", []string{iv.name}, iv.shape, backend.Int32, intAttr("to", onnxInt64))
	}
	return r.node("Gather", []string{table.(value).name, iv.name}, out, r.dtype, intAttr("axis", 0)), nil
}

func (r *recorder) RandomUniform(s backend.Shape) (backend.Value, error) {
	return r.refuse(s, "it draws random numbers when it predicts, which an exported graph cannot reproduce")
}

func (r *recorder) RandomNormal(s backend.Shape) (backend.Value, error) {
	return r.RandomUniform(s)
}

func (r *recorder) RandomUniformFrom(_ backend.Value, s backend.Shape) (backend.Value, error) {
	return r.RandomUniform(s)
}

func (r *recorder) Where(cond, a, b backend.Value, out backend.Shape) (backend.Value, error) {
	if _, err := r.record("Where"); err != nil {
		return nil, err
	}
	c := cond.(value)
	flag := r.node("Cast", []string{c.name}, c.shape, backend.Int32, intAttr("to", onnxBool))
	return r.node("Where", []string{flag.name, a.(value).name, b.(value).name}, out, r.dtype), nil
}

func (r *recorder) Grad(backend.Value, []backend.Value) ([]backend.Value, error) {
	_, err := r.refuse(nil, "an exported graph predicts; it cannot compute gradients")
	return nil, err
}

// CustomGradient is forward: an exported graph predicts, and the
// gradient function is never needed.
func (r *recorder) CustomGradient(_ []backend.Value, forward backend.Value, _ func(backend.Value) ([]backend.Value, error)) (backend.Value, error) {
	return forward, nil
}

var (
	_ backend.Ops    = (*recorder)(nil)
	_ backend.Scoper = (*recorder)(nil)
)
