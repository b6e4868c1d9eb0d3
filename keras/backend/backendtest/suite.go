package backendtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// opCase is one op under test: inputs, how to build it, its reference.
type opCase struct {
	name   string
	inputs []Array
	build  func(b backend.Builder, in []backend.Value) backend.Value
	ref    func(in []Array) Array
	// grad says which inputs the gradient is checked for (nil: none).
	grad []bool
}

// Run runs the conformance suite on the engine that spec opens (for example
// "gorgonia" or "libtorch:cpu").
func Run(t *testing.T, spec string) {
	t.Helper()
	RunWith(t, spec, Options{})
}

// Options adjust the suite for one engine on one device.
type Options struct {
	// Float32Tolerance replaces the float32 forward tolerance (1e-5,
	// relative to max(1, |want|)) for the ops it names (a case's name
	// before its first "/", e.g. "LSTMSequence"): for kernels that, by
	// the engine's documented default, compute float32 in lower precision
	// (TF32 on a GPU's tensor cores).
	Float32Tolerance map[string]float64
}

// RunWith is Run with the suite adjusted by opts.
func RunWith(t *testing.T, spec string, opts Options) {
	t.Helper()
	be, err := backend.Open(spec)
	if err != nil {
		t.Fatalf("opening %q: %v", spec, err)
	}
	t.Cleanup(func() { be.Close() })
	for _, c := range cases() {
		tol32 := 1e-5
		if tol, ok := opts.Float32Tolerance[strings.SplitN(c.name, "/", 2)[0]]; ok {
			tol32 = tol
		}
		t.Run(c.name+"/forward64", func(t *testing.T) { checkForward(t, be, c, backend.Float64, 1e-9) })
		t.Run(c.name+"/forward32", func(t *testing.T) { checkForward(t, be, c, backend.Float32, tol32) })
		if c.grad != nil {
			t.Run(c.name+"/grad", func(t *testing.T) { checkGrad(t, be, c) })
		}
		for _, d := range be.Capabilities().Autocast {
			t.Run(c.name+"/forward-"+d.String(), func(t *testing.T) { checkForwardAutocast(t, be, c, d) })
			if c.grad != nil {
				t.Run(c.name+"/grad-"+d.String(), func(t *testing.T) { checkGradAutocast(t, be, c, d) })
			}
		}
	}
	t.Run("Errors", func(t *testing.T) { checkErrors(t, be) })
	t.Run("GatherOutOfRange", func(t *testing.T) { checkGatherOutOfRange(t, be) })
	t.Run("TakeAlongLastAxisOutOfRange", func(t *testing.T) { checkTakeOutOfRange(t, be) })
	t.Run("AllReduceSum", func(t *testing.T) { checkAllReduceSum(t, be) })
	t.Run("RandomUniform", func(t *testing.T) { checkRandom(t, be) })
	t.Run("RandomNormal", func(t *testing.T) { checkRandomNormal(t, be) })
	t.Run("Dropout", func(t *testing.T) { checkDropout(t, be) })
	t.Run("GradOfIntermediate", func(t *testing.T) { checkGradOfIntermediate(t, be) })
	t.Run("CustomGradient", func(t *testing.T) { checkCustomGradient(t, be) })
	t.Run("GradOfUnusedThenUpdate", func(t *testing.T) { checkGradOfUnusedThenUpdate(t, be) })
	t.Run("RandomUniformFrom", func(t *testing.T) { checkRandomUniformFrom(t, be) })
	t.Run("Executable", func(t *testing.T) { checkExecutable(t, be) })
	t.Run("Autocast", func(t *testing.T) { checkAutocast(t, be) })
	t.Run("Release", func(t *testing.T) { checkRelease(t, be) })
	t.Run("Transfers", func(t *testing.T) { checkTransfers(t, be) })
	t.Run("ConcurrentUse", func(t *testing.T) { checkConcurrentUse(t, be) })
}

// filled returns n copies of v.
func filled(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// Random returns an Array of shape s with values drawn uniformly from
// [lo, hi), reproducibly from seed.
func Random(seed uint64, lo, hi float64, s ...int) Array {
	r := rand.New(rand.NewPCG(seed, 7))
	a := Array{Shape: backend.Shape(s), Data: make([]float64, backend.Shape(s).Size())}
	for i := range a.Data {
		a.Data[i] = lo + (hi-lo)*r.Float64()
	}
	return a
}

// awayFromZero returns values with |v| in [0.1, 1] and random sign, so that
// kinks (relu, max) are never within a finite-difference step.
func awayFromZero(seed uint64, s ...int) Array {
	a := Random(seed, 0.1, 1, s...)
	r := rand.New(rand.NewPCG(seed, 9))
	for i := range a.Data {
		if r.IntN(2) == 0 {
			a.Data[i] = -a.Data[i]
		}
	}
	return a
}

func labels(seed uint64, depth int, n int) Array {
	r := rand.New(rand.NewPCG(seed, 11))
	a := Array{Shape: backend.Shape{n}, Data: make([]float64, n)}
	for i := range a.Data {
		a.Data[i] = float64(r.IntN(depth))
	}
	return a
}

func one(f func(b backend.Builder, x backend.Value) backend.Value) func(backend.Builder, []backend.Value) backend.Value {
	return func(b backend.Builder, in []backend.Value) backend.Value { return f(b, in[0]) }
}

func cases() []opCase {
	var cs []opCase
	yes, yes2, yes3, no := []bool{true}, []bool{true, true}, []bool{true, true, true}, []bool(nil)
	unaryIn := map[backend.UnaryOp]Array{
		backend.OpLog:  Random(1, 0.5, 2, 3, 4),
		backend.OpSqrt: Random(2, 0.5, 2, 3, 4),
		// erfinv is steep near ±1, where finite differences fail
		backend.OpErfInv: Random(3, -0.8, 0.8, 3, 4),
	}
	for op := backend.OpNeg; op <= backend.LastUnaryOp; op++ {
		in, ok := unaryIn[op]
		if !ok {
			in = awayFromZero(uint64(op)+10, 3, 4)
		}
		grad := yes
		if op == backend.OpFloor {
			grad, in = no, Random(uint64(op)+10, -4, 4, 3, 4)
		}
		if op == backend.OpStopGradient {
			grad = no
		}
		cs = append(cs, opCase{
			name: op.String(), inputs: []Array{in}, grad: grad,
			build: func(b backend.Builder, v []backend.Value) backend.Value { return unary(b, op, v[0]) },
			ref:   func(a []Array) Array { return refUnary(op, a[0]) },
		})
	}
	binShapes := []struct {
		name string
		a, b []int
	}{{"same", []int{3, 4}, []int{3, 4}}, {"row", []int{3, 4}, []int{4}}, {"col", []int{3, 4}, []int{3, 1}}, {"scalar", []int{3, 4}, []int{}}, {"scalarLeft", []int{}, []int{2, 3}},
		{"lastAxis3D", []int{2, 3, 4}, []int{4}}, {"middle3D", []int{2, 3, 4}, []int{3, 1}}, {"both", []int{2, 1, 4}, []int{3, 1}}, {"bias4D", []int{2, 2, 3, 2}, []int{2}}, {"pairs4D", []int{2, 3, 1, 4}, []int{2, 1, 5, 4}},
		{"scalars", []int{}, []int{}}} // as gradient clipping compares norms
	for op := backend.OpAdd; op <= backend.OpGreater; op++ {
		for i, bs := range binShapes {
			if op == backend.OpEqual && bs.name != "same" && bs.name != "scalars" {
				continue
			}
			a, b := awayFromZero(uint64(20+i), bs.a...), awayFromZero(uint64(40+i), bs.b...)
			if op == backend.OpDiv {
				b = Random(uint64(40+i), 0.5, 2, bs.b...)
			}
			if op == backend.OpEqual { // make some elements equal
				copy(b.Data[:len(b.Data)/2], a.Data)
			}
			grad := yes2
			if op >= backend.OpEqual {
				grad = no
			}
			cs = append(cs, opCase{
				name: op.String() + "/" + bs.name, inputs: []Array{a, b}, grad: grad,
				build: func(bl backend.Builder, v []backend.Value) backend.Value { return binary(bl, op, v[0], v[1]) },
				ref:   func(x []Array) Array { return refBinary(op, x[0], x[1]) },
			})
		}
	}
	cs = append(cs,
		// Rows far apart (an attention row masked by a large negative beside an
		// ordinary one): each row's softmax subtracts its own maximum.
		opCase{name: "Softmax/rowsFarApart", inputs: []Array{{Shape: backend.Shape{2, 3}, Data: []float64{1, 2, 3, -1e4 + 1, -1e4, -1e4 - 1}}},
			build: one(func(b backend.Builder, x backend.Value) backend.Value { return b.Softmax(x) }),
			// From the inputs, which a half-precision check rounds (to
			// -9984 and -10000 in bfloat16).
			ref: func(x []Array) Array { return refUnary(backend.OpSoftmax, x[0]) }},
		opCase{name: "LogSoftmax/rowsFarApart", inputs: []Array{{Shape: backend.Shape{2, 2}, Data: []float64{0, 1, -1e4, -1e4 + 1}}},
			build: one(func(b backend.Builder, x backend.Value) backend.Value { return b.LogSoftmax(x) }),
			ref:   func(x []Array) Array { return refUnary(backend.OpLogSoftmax, x[0]) }},
		// ReLU of a tensor added to itself (one input read twice by the sum).
		opCase{name: "Relu/ofAddOfItself", inputs: []Array{awayFromZero(76, 3, 4)}, grad: yes,
			build: func(b backend.Builder, v []backend.Value) backend.Value { return b.Relu(b.Add(v[0], v[0])) },
			ref: func(x []Array) Array {
				return refUnary(backend.OpRelu, refBinary(backend.OpAdd, x[0], x[0]))
			}},
		opCase{name: "BatchMatMul/rank3", inputs: []Array{Random(62, -1, 1, 2, 3, 4), Random(63, -1, 1, 2, 4, 5)}, grad: yes2,
			build: func(b backend.Builder, v []backend.Value) backend.Value { return b.BatchMatMul(v[0], v[1]) },
			ref:   func(x []Array) Array { return refBatchMatMul(x[0], x[1]) }},
		opCase{name: "BatchMatMul/rank4", inputs: []Array{Random(64, -1, 1, 2, 3, 1, 4), Random(65, -1, 1, 2, 3, 4, 2)}, grad: yes2,
			build: func(b backend.Builder, v []backend.Value) backend.Value { return b.BatchMatMul(v[0], v[1]) },
			ref:   func(x []Array) Array { return refBatchMatMul(x[0], x[1]) }},
		// Where broadcasts its three operands; the branch not taken holds an
		// Inf, which reaches neither the result nor a gradient.
		opCase{name: "Where/broadcast", inputs: []Array{{Shape: backend.Shape{3, 4}, Data: labels(81, 2, 12).Data}, Random(82, -1, 1, 3, 4), Random(83, -1, 1, 4)}, grad: []bool{false, true, true},
			build: func(b backend.Builder, v []backend.Value) backend.Value { return b.Where(v[0], v[1], v[2]) },
			ref:   func(x []Array) Array { return refWhere(x[0], x[1], x[2]) }},
		opCase{name: "Where/infNotTaken", inputs: []Array{{Shape: backend.Shape{4}, Data: []float64{1, 0, 1, 0}}, Random(84, 0.5, 1, 4)},
			build: func(b backend.Builder, v []backend.Value) backend.Value {
				inf := b.Div(b.Scalar(1), b.Sub(v[0], v[0])) // 1/0: +Inf everywhere
				return b.Where(v[0], v[1], inf)
			},
			ref: func(x []Array) Array {
				out := Array{Shape: x[1].Shape, Data: append([]float64(nil), x[1].Data...)}
				for i, c := range x[0].Data {
					if c == 0 {
						out.Data[i] = math.Inf(1)
					}
				}
				return out
			}},
		opCase{name: "Where/scalars", inputs: []Array{{Shape: backend.Shape{}, Data: []float64{0}}, Random(85, -1, 1), Random(86, -1, 1)}, grad: []bool{false, true, true},
			build: func(b backend.Builder, v []backend.Value) backend.Value { return b.Where(v[0], v[1], v[2]) },
			ref:   func(x []Array) Array { return refWhere(x[0], x[1], x[2]) }},
		opCase{name: "MatMul", inputs: []Array{Random(60, -1, 1, 3, 5), Random(61, -1, 1, 5, 2)}, grad: yes2,
			build: func(b backend.Builder, v []backend.Value) backend.Value { return b.MatMul(v[0], v[1]) },
			ref:   func(x []Array) Array { return refMatMul(x[0], x[1]) }},
		opCase{name: "Reshape", inputs: []Array{Random(62, -1, 1, 2, 3, 4)}, grad: yes,
			build: one(func(b backend.Builder, x backend.Value) backend.Value { return b.Reshape(x, backend.Shape{6, 4}) }),
			ref:   func(x []Array) Array { return Array{Shape: backend.Shape{6, 4}, Data: x[0].Data} }},
		opCase{name: "ArgMax", inputs: []Array{Random(63, -1, 1, 4, 5)},
			build: one(func(b backend.Builder, x backend.Value) backend.Value { return b.ArgMax(x) }),
			ref:   func(x []Array) Array { return refArgMax(x[0]) }},
		opCase{name: "GradPastOneHot", inputs: []Array{Random(65, -1, 1, 6, 5)}, grad: yes,
			build: one(func(b backend.Builder, x backend.Value) backend.Value {
				hot := b.OneHot(b.Constant(labels(64, 5, 6).Data, backend.Shape{6}), 5)
				return b.Mul(x, hot)
			}),
			ref: func(x []Array) Array { return refBinary(backend.OpMul, x[0], refOneHot(labels(64, 5, 6), 5)) }},
		// A constant of zeros, as a recurrent layer's initial state is
		// (the libtorch engine makes it with zeros instead of uploading it).
		opCase{name: "ZeroConstant", inputs: []Array{Random(67, -1, 1, 3, 4)}, grad: yes,
			build: one(func(b backend.Builder, x backend.Value) backend.Value {
				return b.Add(b.Mul(x, x), b.Constant(make([]float64, 3*4), backend.Shape{3, 4}))
			}),
			ref: func(x []Array) Array { return refBinary(backend.OpMul, x[0], x[0]) }},
		// Two constants of equal values but different shapes, each in its
		// own product (two custom layers): Gorgonia once merged them into
		// one node because it names constants by their printed value.
		opCase{name: "TwoConstants", inputs: []Array{Random(66, -1, 1, 3, 20)}, grad: yes,
			build: one(func(b backend.Builder, x backend.Value) backend.Value {
				h := b.MatMul(x, b.Constant(filled(0.5, 20*16), backend.Shape{20, 16}))
				return b.MatMul(h, b.Constant(filled(0.5, 16*10), backend.Shape{16, 10}))
			}),
			ref: func(x []Array) Array {
				h := refMatMul(x[0], Array{Shape: backend.Shape{20, 16}, Data: filled(0.5, 20*16)})
				return refMatMul(h, Array{Shape: backend.Shape{16, 10}, Data: filled(0.5, 16*10)})
			}},
		// A mean used both centred (through a broadcast) and scaled on a
		// side branch, as BatchNormalization's moving averages use it:
		// Gorgonia's reshape views let the side branch's in-place scaling
		// change the centred output.
		opCase{name: "SharedMeanAndSideBranch", inputs: []Array{Random(67, -2, 2, 4, 3)}, grad: yes,
			build: one(func(b backend.Builder, x backend.Value) backend.Value {
				m := b.Mean(x, 0)
				_ = b.Mean(b.Square(b.Sub(x, m)), 0)
				side := b.Mul(m, b.Scalar(0.01))
				return b.Add(b.Sub(x, m), b.Mul(b.Sum(side), b.Scalar(0)))
			}),
			ref: func(x []Array) Array {
				out := Array{Shape: x[0].Shape, Data: make([]float64, len(x[0].Data))}
				for j := 0; j < 3; j++ {
					mean := 0.0
					for r := 0; r < 4; r++ {
						mean += x[0].Data[r*3+j] / 4
					}
					for r := 0; r < 4; r++ {
						out.Data[r*3+j] = x[0].Data[r*3+j] - mean
					}
				}
				return out
			}},
		opCase{name: "Concat/lastAxis", inputs: []Array{Random(68, -1, 1, 2, 3, 2), Random(69, -1, 1, 2, 3, 3)}, grad: yes2,
			build: func(b backend.Builder, v []backend.Value) backend.Value { return b.Concat(-1, v...) },
			ref:   func(x []Array) Array { return refConcat(2, x) }},
		opCase{name: "Concat/middleAxis", inputs: []Array{Random(70, -1, 1, 2, 1, 4), Random(71, -1, 1, 2, 3, 4), Random(72, -1, 1, 2, 2, 4)}, grad: yes3,
			build: func(b backend.Builder, v []backend.Value) backend.Value { return b.Concat(1, v...) },
			ref:   func(x []Array) Array { return refConcat(1, x) }},
		opCase{name: "Concat/firstAxis", inputs: []Array{Random(73, -1, 1, 1, 3), Random(74, -1, 1, 2, 3)}, grad: yes2,
			build: func(b backend.Builder, v []backend.Value) backend.Value { return b.Concat(0, v...) },
			ref:   func(x []Array) Array { return refConcat(0, x) }},
		opCase{name: "Transpose/rank3", inputs: []Array{Random(75, -1, 1, 2, 3, 4)}, grad: yes,
			build: one(func(b backend.Builder, x backend.Value) backend.Value { return b.Transpose(x, 2, 0, 1) }),
			ref:   func(x []Array) Array { return refTranspose(x[0], []int{2, 0, 1}) }},
		opCase{name: "Transpose/nhwcToNchw", inputs: []Array{Random(76, -1, 1, 2, 3, 2, 4)}, grad: yes,
			build: one(func(b backend.Builder, x backend.Value) backend.Value { return b.Transpose(x, 0, 3, 1, 2) }),
			ref:   func(x []Array) Array { return refTranspose(x[0], []int{0, 3, 1, 2}) }},
		opCase{name: "Gather/rows", inputs: []Array{Random(80, -1, 1, 5, 3), {Shape: backend.Shape{2, 4}, Data: []float64{0, 4, 2, 2, 1, 0, 3, 4}}},
			grad:  []bool{true, false},
			build: func(b backend.Builder, v []backend.Value) backend.Value { return b.Gather(v[0], v[1]) },
			ref:   func(x []Array) Array { return refGather(x[0], x[1]) }},
		opCase{name: "Gather/int32Indices", inputs: []Array{Random(82, -1, 1, 5, 3), {Shape: backend.Shape{2, 3}, Data: []float64{4, 0, 2, 2, 1, 4}, Int: true}},
			grad:  []bool{true, false},
			build: func(b backend.Builder, v []backend.Value) backend.Value { return b.Gather(v[0], v[1]) },
			ref:   func(x []Array) Array { return refGather(x[0], x[1]) }},
		opCase{name: "TakeAlongLastAxis/rank3", inputs: []Array{Random(83, -1, 1, 2, 3, 4), {Shape: backend.Shape{2, 3}, Data: []float64{0, 3, 1, 2, 2, 3.5}}},
			grad:  []bool{true, false},
			build: func(b backend.Builder, v []backend.Value) backend.Value { return b.TakeAlongLastAxis(v[0], v[1]) },
			ref:   func(x []Array) Array { return refTakeAlongLastAxis(x[0], x[1]) }},
		opCase{name: "TakeAlongLastAxis/rows", inputs: []Array{Random(84, -1, 1, 5, 7), {Shape: backend.Shape{5}, Data: []float64{6, 0, 3, 3, 1}}},
			grad:  []bool{true, false},
			build: func(b backend.Builder, v []backend.Value) backend.Value { return b.TakeAlongLastAxis(v[0], v[1]) },
			ref:   func(x []Array) Array { return refTakeAlongLastAxis(x[0], x[1]) }},
		opCase{name: "Cast", inputs: []Array{{Shape: backend.Shape{2, 2}, Data: []float64{0, 7, -3, 1 << 20}, Int: true}},
			build: one(func(b backend.Builder, x backend.Value) backend.Value { return b.Add(b.Cast(x), b.Scalar(0.5)) }),
			ref: func(x []Array) Array {
				return Array{Shape: x[0].Shape, Data: []float64{0.5, 7.5, -2.5, 1<<20 + 0.5}}
			}},
		opCase{name: "Gather/rank3Table", inputs: []Array{Random(81, -1, 1, 4, 2, 3), {Shape: backend.Shape{3}, Data: []float64{3, 3, 0}}},
			grad:  []bool{true, false},
			build: func(b backend.Builder, v []backend.Value) backend.Value { return b.Gather(v[0], v[1]) },
			ref:   func(x []Array) Array { return refGather(x[0], x[1]) }},
		opCase{name: "Slice/middle", inputs: []Array{Random(77, -1, 1, 3, 4, 5)}, grad: yes,
			build: one(func(b backend.Builder, x backend.Value) backend.Value {
				return b.Slice(x, []int{1, 1, 2}, []int{2, 2, 3})
			}),
			ref: func(x []Array) Array { return refSlice(x[0], []int{1, 1, 2}, []int{2, 2, 3}) }},
		opCase{name: "Slice/rows", inputs: []Array{Random(78, -1, 1, 4, 3)}, grad: yes,
			build: one(func(b backend.Builder, x backend.Value) backend.Value { return b.Slice(x, []int{1, 0}, []int{2, 3}) }),
			ref:   func(x []Array) Array { return refSlice(x[0], []int{1, 0}, []int{2, 3}) }},
		// One element sliced out and reshaped to a scalar, then used as a
		// scalar operand (how the training step reads its learning rate
		// from its settings vector): Gorgonia once made it a
		// zero-dimensional tensor that its scalar ops rejected.
		opCase{name: "SliceToScalar", inputs: []Array{Random(79, -1, 1, 4)}, grad: yes,
			build: one(func(b backend.Builder, x backend.Value) backend.Value {
				first := b.Reshape(b.Slice(x, []int{1}, []int{1}), backend.Shape{})
				return b.Add(b.Mul(x, first), b.Mul(first, b.Scalar(2)))
			}),
			ref: func(x []Array) Array {
				out := Array{Shape: x[0].Shape, Data: make([]float64, 4)}
				for i, v := range x[0].Data {
					out.Data[i] = v*x[0].Data[1] + 2*x[0].Data[1]
				}
				return out
			}},
		opCase{name: "OneHot", inputs: []Array{labels(64, 5, 6)},
			build: one(func(b backend.Builder, x backend.Value) backend.Value { return b.OneHot(x, 5) }),
			ref:   func(x []Array) Array { return refOneHot(x[0], 5) }},
	)
	for _, r := range []struct {
		shape []int
		axes  []int
	}{{[]int{2, 3, 4}, nil}, {[]int{2, 3, 4}, []int{0}}, {[]int{2, 3, 4}, []int{1}}, {[]int{2, 3, 4}, []int{-1}}, {[]int{2, 3, 4}, []int{0, 2}},
		{[]int{2, 3, 5, 4}, []int{1}}, {[]int{2, 3, 5, 4}, []int{2}}, {[]int{2, 3, 5, 4}, []int{1, 2}}, {[]int{2, 3, 5, 4}, []int{3}}} {
		axes := r.axes
		for _, op := range []backend.ReduceOp{backend.OpSum, backend.OpMean} {
			cs = append(cs, opCase{
				name: fmt.Sprintf("%v/%v/axes%v", op, backend.Shape(r.shape), axes), inputs: []Array{Random(70, -1, 1, r.shape...)}, grad: yes,
				build: one(func(b backend.Builder, x backend.Value) backend.Value {
					if op == backend.OpSum {
						return b.Sum(x, axes...)
					}
					return b.Mean(x, axes...)
				}),
				ref: func(x []Array) Array { return refReduce(op, x[0], axes) },
			})
		}
	}
	convs := []struct {
		name string
		x, k []int
		o    backend.ConvOptions
	}{
		{"valid", []int{2, 5, 6, 3}, []int{3, 3, 3, 4}, backend.ConvOptions{}},
		{"same", []int{2, 5, 5, 2}, []int{3, 3, 2, 3}, backend.ConvOptions{Padding: backend.Same}},
		{"stride2", []int{1, 7, 7, 2}, []int{3, 3, 2, 2}, backend.ConvOptions{Strides: [2]int{2, 2}}},
		{"sameUneven", []int{2, 6, 5, 2}, []int{3, 2, 2, 3}, backend.ConvOptions{Strides: [2]int{2, 2}, Padding: backend.Same}},
	}
	for _, c := range convs {
		cs = append(cs, opCase{name: "Conv2D/" + c.name, inputs: []Array{Random(80, -1, 1, c.x...), Random(81, -1, 1, c.k...)}, grad: yes2,
			build: func(b backend.Builder, v []backend.Value) backend.Value { return b.Conv2D(v[0], v[1], c.o) },
			ref:   func(x []Array) Array { return refConv2D(x[0], x[1], c.o) }})
	}
	pools := []struct {
		name string
		x    []int
		o    backend.PoolOptions
	}{
		{"2x2", []int{2, 4, 6, 3}, backend.PoolOptions{Size: [2]int{2, 2}}},
		{"odd", []int{1, 5, 5, 2}, backend.PoolOptions{Size: [2]int{2, 2}}},
		{"3x3stride1", []int{1, 5, 5, 2}, backend.PoolOptions{Size: [2]int{3, 3}, Strides: [2]int{1, 1}}},
		{"sameUneven", []int{2, 5, 6, 2}, backend.PoolOptions{Size: [2]int{2, 2}, Padding: backend.Same}},
	}
	for _, p := range pools {
		cs = append(cs, opCase{name: "MaxPool2D/" + p.name, inputs: []Array{distinct(90, p.x...)}, grad: yes,
			build: one(func(b backend.Builder, x backend.Value) backend.Value { return b.MaxPool2D(x, p.o) }),
			ref:   func(x []Array) Array { return refMaxPool2D(x[0], p.o) }})
	}
	// A (3, 4) parameter, and a (4, 1) one (an axis of length 1).
	for _, shape := range [][]int{{3, 4}, {4, 1}} {
		adamIn := []Array{Random(100, -1, 1, shape...), Random(101, -1, 1, shape...), Random(102, -0.1, 0.1, shape...),
			Random(103, 0, 0.01, shape...), {Shape: backend.Shape{}, Data: []float64{0.003}}}
		for i, part := range []string{"p", "m", "v"} {
			cs = append(cs, opCase{name: fmt.Sprintf("AdamUpdate/%s/%v", part, backend.Shape(shape)), inputs: adamIn,
				build: func(b backend.Builder, v []backend.Value) backend.Value {
					p, m, vv := b.AdamUpdate(v[0], v[1], v[2], v[3], v[4], 0.9, 0.999, 1e-7)
					return []backend.Value{p, m, vv}[i]
				},
				ref: func(x []Array) Array { return refAdam(x, 0.9, 0.999, 1e-7)[i] }})
		}
	}
	for _, shape := range [][]int{{3, 4}, {5}} {
		cs = append(cs, opCase{name: fmt.Sprintf("SGDUpdate/%v", backend.Shape(shape)),
			inputs: []Array{Random(104, -1, 1, shape...), Random(105, -1, 1, shape...), {Shape: backend.Shape{}, Data: []float64{0.01}}},
			build:  func(b backend.Builder, v []backend.Value) backend.Value { return b.SGDUpdate(v[0], v[1], v[2]) },
			ref: func(x []Array) Array {
				out := Array{Shape: x[0].Shape, Data: make([]float64, len(x[0].Data))}
				for i := range out.Data {
					out.Data[i] = x[0].Data[i] - x[2].Data[0]*x[1].Data[i]
				}
				return out
			}})
	}
	// The learning rate as a constant scalar, as an optimizer without a
	// schedule may pass it.
	cs = append(cs, opCase{name: "SGDUpdate/constantRate", inputs: []Array{Random(106, -1, 1, 2, 3), Random(107, -1, 1, 2, 3)},
		build: func(b backend.Builder, v []backend.Value) backend.Value {
			return b.SGDUpdate(v[0], v[1], b.Scalar(0.25))
		},
		ref: func(x []Array) Array {
			out := Array{Shape: x[0].Shape, Data: make([]float64, len(x[0].Data))}
			for i := range out.Data {
				out.Data[i] = x[0].Data[i] - 0.25*x[1].Data[i]
			}
			return out
		}})
	// ReLU of a bias add, as Dense and Conv2D build it, and of a sum of
	// two tensors of one shape, as a residual block ends (an engine may
	// fuse either with the ReLU).
	cs = append(cs, reluOfSumCases("BiasAdd", 68, []int{2, 3, 4}, []int{4}, []int{3, 4}, []int{4})...)
	cs = append(cs, reluOfSumCases("Add", 72, []int{2, 3, 4}, []int{2, 3, 4}, []int{3, 4}, []int{3, 4})...)
	cs = append(cs, batchNormCases()...)
	return append(append(cs, lstmCases()...), gruCases()...)
}

// reluOfSumCases check ReLU of a + b (shapes a and b), and of a2 + b2
// with the sum also read elsewhere (so that an engine that fuses the two
// must still give the sum itself), named Relu/of<name> and
// Relu/of<name>ReadTwice.
func reluOfSumCases(name string, seed uint64, a, b, a2, b2 []int) []opCase {
	both := []bool{true, true}
	return []opCase{
		{name: "Relu/of" + name, inputs: []Array{awayFromZero(seed, a...), awayFromZero(seed+1, b...)}, grad: both,
			build: func(b backend.Builder, v []backend.Value) backend.Value { return b.Relu(b.Add(v[0], v[1])) },
			ref: func(x []Array) Array {
				return refUnary(backend.OpRelu, refBinary(backend.OpAdd, x[0], x[1]))
			}},
		{name: "Relu/of" + name + "ReadTwice", inputs: []Array{awayFromZero(seed+2, a2...), awayFromZero(seed+3, b2...)}, grad: both,
			build: func(b backend.Builder, v []backend.Value) backend.Value {
				z := b.Add(v[0], v[1])
				return b.Mul(b.Relu(z), z)
			},
			ref: func(x []Array) Array {
				z := refBinary(backend.OpAdd, x[0], x[1])
				return refBinary(backend.OpMul, refUnary(backend.OpRelu, z), z)
			}},
	}
}

// batchNormCases check BatchNormalize's y (with and without gamma and
// beta; its gradient through the statistics too), and its mean and
// variance, and LayerNormalize, on x (4, 3, 2).
func batchNormCases() []opCase {
	in := []Array{Random(130, -1, 1, 4, 3, 2), Random(131, 0.5, 1.5, 2), Random(132, -0.5, 0.5, 2)}
	cs := batchNorm4DCases()
	for _, affine := range []bool{true, false} {
		inputs := in
		if !affine {
			inputs = in[:1]
		}
		grad := make([]bool, len(inputs))
		for j := range grad {
			grad[j] = true
		}
		for i, part := range []string{"y", "mean", "variance"} {
			c := opCase{name: fmt.Sprintf("BatchNormalize/%s/affine=%v", part, affine), inputs: inputs,
				build: func(b backend.Builder, v []backend.Value) backend.Value {
					var gamma, beta backend.Value
					if affine {
						gamma, beta = v[1], v[2]
					}
					y, m, vv := b.BatchNormalize(v[0], gamma, beta, 1e-3)
					return []backend.Value{y, m, vv}[i]
				},
				ref: func(x []Array) Array { return refBatchNorm(x, 1e-3)[i] }}
			if part == "y" {
				c.grad = grad
			}
			cs = append(cs, c)
		}
		// ReLU of y, as a ResNet's BatchNormalization then ReLU (an engine
		// may fuse the two), and the same with y also read elsewhere.
		normalize := func(b backend.Builder, v []backend.Value) backend.Value {
			var gamma, beta backend.Value
			if affine {
				gamma, beta = v[1], v[2]
			}
			y, _, _ := b.BatchNormalize(v[0], gamma, beta, 1e-3)
			return y
		}
		cs = append(cs, opCase{name: fmt.Sprintf("Relu/ofBatchNormalize/affine=%v", affine), inputs: inputs, grad: grad,
			build: func(b backend.Builder, v []backend.Value) backend.Value { return b.Relu(normalize(b, v)) },
			ref:   func(x []Array) Array { return refUnary(backend.OpRelu, refBatchNorm(x, 1e-3)[0]) }})
		cs = append(cs, opCase{name: fmt.Sprintf("Relu/ofBatchNormalizeReadTwice/affine=%v", affine), inputs: inputs, grad: grad,
			build: func(b backend.Builder, v []backend.Value) backend.Value {
				y := normalize(b, v)
				return b.Mul(b.Relu(y), y)
			},
			ref: func(x []Array) Array {
				y := refBatchNorm(x, 1e-3)[0]
				return refBinary(backend.OpMul, refUnary(backend.OpRelu, y), y)
			}})
		cs = append(cs, opCase{name: fmt.Sprintf("LayerNormalize/affine=%v", affine), inputs: inputs, grad: grad,
			build: func(b backend.Builder, v []backend.Value) backend.Value {
				var gamma, beta backend.Value
				if affine {
					gamma, beta = v[1], v[2]
				}
				return b.LayerNormalize(v[0], gamma, beta, 1e-3)
			},
			ref: func(x []Array) Array { return refLayerNorm(x, 1e-3) }})
	}
	return cs
}

// batchNorm4DCases check BatchNormalize on images (batch, rows, cols,
// channels), which an engine may normalise in another layout (libtorch's
// NCHW): y and its gradients, the mean and the variance.
func batchNorm4DCases() []opCase {
	inputs := []Array{Random(133, -1, 1, 2, 3, 3, 2), Random(134, 0.5, 1.5, 2), Random(135, -0.5, 0.5, 2)}
	var cs []opCase
	for i, part := range []string{"y", "mean", "variance"} {
		c := opCase{name: "BatchNormalize/images/" + part, inputs: inputs,
			build: func(b backend.Builder, v []backend.Value) backend.Value {
				y, m, vv := b.BatchNormalize(v[0], v[1], v[2], 1e-3)
				return []backend.Value{y, m, vv}[i]
			},
			ref: func(x []Array) Array { return refBatchNorm(x, 1e-3)[i] }}
		if part == "y" {
			c.grad = []bool{true, true, true}
		}
		cs = append(cs, c)
	}
	return cs
}

// lstmCases check LSTMSequence's outputs and states, forwards and
// backwards, with and without a bias: x (2, 3, 3), 2 units, random
// initial states.
func lstmCases() []opCase {
	in := []Array{Random(110, -1, 1, 2, 3, 3), Random(111, -1, 1, 3, 8), Random(112, -1, 1, 2, 8),
		Random(113, -0.5, 0.5, 2, 2), Random(114, -0.5, 0.5, 2, 2), Random(115, -0.5, 0.5, 8)}
	var cs []opCase
	for _, o := range []backend.RecurrentOptions{{ReturnSequences: true, ReturnState: true}, {GoBackwards: true, ReturnState: true}} {
		for _, withBias := range []bool{true, false} {
			inputs := in
			if !withBias {
				inputs = in[:5]
			}
			for i, part := range []string{"out", "h", "c"} {
				cs = append(cs, opCase{name: fmt.Sprintf("LSTMSequence/%s/sequences=%v,backwards=%v,bias=%v", part, o.ReturnSequences, o.GoBackwards, withBias),
					inputs: inputs, grad: make([]bool, len(inputs)),
					build: func(b backend.Builder, v []backend.Value) backend.Value {
						var bias backend.Value
						if withBias {
							bias = v[5]
						}
						out, h, c := b.LSTMSequence(v[0], v[1], bias, v[2], v[3], v[4], o)
						return []backend.Value{out, h, c}[i]
					},
					ref: func(x []Array) Array { return refLSTM(x, o)[i] }})
				for j := range cs[len(cs)-1].grad {
					cs[len(cs)-1].grad[j] = true
				}
			}
		}
	}
	return cs
}

// distinct returns a shuffled arithmetic sequence: no two values are within
// a finite-difference step of each other, so max pooling has no ties.
func distinct(seed uint64, s ...int) Array {
	a := Array{Shape: backend.Shape(s), Data: make([]float64, backend.Shape(s).Size())}
	for i := range a.Data {
		a.Data[i] = float64(i)*0.01 - 0.5
	}
	r := rand.New(rand.NewPCG(seed, 3))
	r.Shuffle(len(a.Data), func(i, j int) { a.Data[i], a.Data[j] = a.Data[j], a.Data[i] })
	return a
}

func unary(b backend.Builder, op backend.UnaryOp, x backend.Value) backend.Value {
	return map[backend.UnaryOp]func(backend.Value) backend.Value{
		backend.OpNeg: b.Neg, backend.OpExp: b.Exp, backend.OpLog: b.Log, backend.OpSqrt: b.Sqrt,
		backend.OpSquare: b.Square, backend.OpRelu: b.Relu, backend.OpSigmoid: b.Sigmoid,
		backend.OpTanh: b.Tanh, backend.OpSoftmax: b.Softmax, backend.OpLogSoftmax: b.LogSoftmax, backend.OpErf: b.Erf,
		backend.OpSin: b.Sin, backend.OpCos: b.Cos, backend.OpFloor: b.Floor,
		backend.OpAbs: b.Abs, backend.OpLog1p: b.Log1p, backend.OpExpm1: b.Expm1, backend.OpAtan: b.Atan, backend.OpErfInv: b.ErfInv, backend.OpStopGradient: b.StopGradient,
	}[op](x)
}

func binary(b backend.Builder, op backend.BinaryOp, x, y backend.Value) backend.Value {
	return map[backend.BinaryOp]func(x, y backend.Value) backend.Value{
		backend.OpAdd: b.Add, backend.OpSub: b.Sub, backend.OpMul: b.Mul, backend.OpDiv: b.Div,
		backend.OpMaximum: b.Maximum, backend.OpMinimum: b.Minimum, backend.OpEqual: b.Equal, backend.OpGreater: b.Greater,
	}[op](x, y)
}

// eval compiles fn for the shapes of in, runs it once and returns the
// outputs as float64 arrays.
func Eval(be backend.Backend, dt backend.DType, fn backend.Func, in []Array) ([]Array, error) {
	specs := make([]backend.Spec, len(in))
	tensors := make([]backend.Tensor, len(in))
	for i, a := range in {
		specs[i] = backend.Spec{Shape: a.Shape, DType: dt}
		var err error
		if a.Int {
			specs[i].DType = backend.Int32
			ids := make([]int32, len(a.Data))
			for j, v := range a.Data {
				ids[j] = int32(v)
			}
			tensors[i], err = be.FromInt32(ids, a.Shape)
		} else if dt == backend.Float64 {
			tensors[i], err = be.FromFloat64(a.Data, a.Shape)
		} else {
			f := make([]float32, len(a.Data))
			for j, v := range a.Data {
				f[j] = float32(v)
			}
			tensors[i], err = be.FromFloat32(f, a.Shape)
		}
		if err != nil {
			return nil, err
		}
	}
	exe, err := be.Compile(fn, specs, backend.CompileOptions{Seed: 1})
	if err != nil {
		return nil, err
	}
	defer exe.Close()
	outs, err := exe.Run(tensors)
	if err != nil {
		return nil, err
	}
	res := make([]Array, len(outs))
	for i, o := range outs {
		data, err := be.ToFloat64(o)
		if err != nil {
			return nil, err
		}
		res[i] = Array{Shape: o.Shape(), Data: data}
	}
	return res, nil
}

func checkForward(t *testing.T, be backend.Backend, c opCase, dt backend.DType, tol float64) {
	in := c.inputs
	if dt == backend.Float32 { // compare against the reference on the rounded inputs
		in = make([]Array, len(c.inputs))
		for i, a := range c.inputs {
			r := Array{Shape: a.Shape, Data: make([]float64, len(a.Data))}
			for j, v := range a.Data {
				r.Data[j] = float64(float32(v))
			}
			in[i] = r
		}
	}
	want := c.ref(in)
	got, err := Eval(be, dt, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
		return []backend.Value{c.build(b, v)}, nil
	}, in)
	if err != nil {
		t.Fatal(err)
	}
	AssertClose(t, "output", got[0], want, tol)
}

// halfPrecisionTol is the forward tolerance of an op computed in half
// precision (checkForwardAutocast), relative to max(1, |want|): a few
// roundings to bfloat16's 8 significant bits (2^-9 each).
const halfPrecisionTol = 1e-2

// checkForwardAutocast checks c computed by a float32 Func with autocast
// set to d (backend.Autocaster), a half-precision dtype the engine
// computes in, against the reference on the inputs rounded to d: every
// op of the suite has a kernel in d, or falls back to float32, and
// comes within halfPrecisionTol.
func checkForwardAutocast(t *testing.T, be backend.Backend, c opCase, d backend.DType) {
	in := make([]Array, len(c.inputs))
	for i, a := range c.inputs {
		in[i] = roundedTo(a, d)
	}
	want := c.ref(in)
	got, err := Eval(be, backend.Float32, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
		b.(backend.Autocaster).SetAutocast(d)
		return []backend.Value{c.build(b, v)}, nil
	}, in)
	if err != nil {
		t.Fatalf("in %v: %v", d, err)
	}
	AssertClose(t, "output in "+d.String(), got[0], want, halfPrecisionTol)
}

// checkGradAutocast checks the gradient of c (through a random weighting
// of its output, as checkGrad) computed with autocast set to d against
// the engine's float32 gradient, which checkGrad holds to finite
// differences, both on the inputs rounded to d: every op of the suite
// has a backward pass in d, or falls back to float32, and comes within
// halfPrecisionTol of the largest float32 gradient (a gradient's small
// elements are differences of rounded terms).
func checkGradAutocast(t *testing.T, be backend.Backend, c opCase, d backend.DType) {
	in := make([]Array, len(c.inputs))
	for i, a := range c.inputs {
		in[i] = roundedTo(a, d)
	}
	w := Random(99, -1, 1, c.ref(in).Shape...)
	grads := func(autocast backend.DType) []Array {
		out, err := Eval(be, backend.Float32, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
			b.(backend.Autocaster).SetAutocast(autocast)
			var wrt []backend.Value
			for i, g := range c.grad {
				if g {
					wrt = append(wrt, v[i])
				}
			}
			return b.Grad(b.Sum(b.Mul(c.build(b, v), b.Constant(w.Data, w.Shape))), wrt), nil
		}, in)
		if err != nil {
			t.Fatalf("in %v: %v", autocast, err)
		}
		return out
	}
	want, got := grads(backend.Float32), grads(d)
	for i := range want {
		scale := 1.0
		for _, v := range want[i].Data {
			scale = math.Max(scale, math.Abs(v))
		}
		for j, v := range want[i].Data {
			if diff := math.Abs(got[i].Data[j] - v); !(diff <= halfPrecisionTol*scale) {
				t.Fatalf("gradient %d [%d] in %v = %.6g, in float32 %.6g (|diff| %.3g > %.3g)", i, j, d, got[i].Data[j], v, diff, halfPrecisionTol*scale)
			}
		}
	}
}

// AssertClose fails t unless got and want have one shape and every value
// agrees within tol, relative to max(1, |want|); an infinity or a NaN
// must be matched by the same.
func AssertClose(t *testing.T, what string, got, want Array, tol float64) {
	t.Helper()
	if !got.Shape.Equal(want.Shape) {
		t.Fatalf("%s shape %v, want %v", what, got.Shape, want.Shape)
	}
	for i := range want.Data {
		if math.IsInf(want.Data[i], 0) && got.Data[i] == want.Data[i] {
			continue // the same infinity
		}
		if math.IsNaN(want.Data[i]) && math.IsNaN(got.Data[i]) {
			continue
		}
		if d := math.Abs(got.Data[i] - want.Data[i]); !(d <= tol*math.Max(1, math.Abs(want.Data[i]))) {
			t.Fatalf("%s[%d] = %.10g, want %.10g (|diff| %.3g > tol %.3g)", what, i, got.Data[i], want.Data[i], d, tol)
		}
	}
}

// checkGrad checks the op's gradient through loss = Sum(op(inputs) * w)
// for fixed random weights w.
func checkGrad(t *testing.T, be backend.Backend, c opCase) {
	out := c.ref(c.inputs)
	w := Random(99, -1, 1, out.Shape...)
	var wrt []int
	for i, g := range c.grad {
		if g {
			wrt = append(wrt, i)
		}
	}
	CheckGradient(t, be, func(b backend.Builder, v []backend.Value) backend.Value {
		return b.Sum(b.Mul(c.build(b, v), b.Constant(w.Data, w.Shape)))
	}, c.inputs, wrt, 1e-5)
}

func cloneArrays(in []Array) []Array {
	out := make([]Array, len(in))
	for i, a := range in {
		out[i] = Array{Shape: a.Shape, Data: append([]float64(nil), a.Data...), Int: a.Int}
	}
	return out
}

// gruCases check GRUSequence's output and state, forwards and backwards,
// with and without the biases: x (2, 3, 3), 2 units, a random initial
// state.
func gruCases() []opCase {
	in := []Array{Random(120, -1, 1, 2, 3, 3), Random(121, -1, 1, 3, 6), Random(122, -1, 1, 2, 6),
		Random(123, -0.5, 0.5, 2, 2), Random(124, -0.5, 0.5, 6), Random(125, -0.5, 0.5, 6)}
	var cs []opCase
	for _, o := range []backend.RecurrentOptions{{ReturnSequences: true, ReturnState: true}, {GoBackwards: true, ReturnState: true}} {
		for _, withBias := range []bool{true, false} {
			inputs := in
			if !withBias {
				inputs = in[:4]
			}
			for i, part := range []string{"out", "h"} {
				grad := make([]bool, len(inputs))
				for j := range grad {
					grad[j] = true
				}
				cs = append(cs, opCase{name: fmt.Sprintf("GRUSequence/%s/sequences=%v,backwards=%v,bias=%v", part, o.ReturnSequences, o.GoBackwards, withBias),
					inputs: inputs, grad: grad,
					build: func(b backend.Builder, v []backend.Value) backend.Value {
						var ib, rb backend.Value
						if withBias {
							ib, rb = v[4], v[5]
						}
						out, h := b.GRUSequence(v[0], v[1], ib, v[2], rb, v[3], o)
						return []backend.Value{out, h}[i]
					},
					ref: func(x []Array) Array { return refGRU(x, o)[i] }})
			}
		}
	}
	return cs
}
