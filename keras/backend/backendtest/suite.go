package backendtest

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// opCase is one op under test: inputs, how to build it, its reference.
type opCase struct {
	name   string
	inputs []array
	build  func(b backend.Builder, in []backend.Value) backend.Value
	ref    func(in []array) array
	// grad says which inputs the gradient is checked for (nil: none).
	grad []bool
}

// Run runs the conformance suite on the engine that spec opens (for example
// "gorgonia" or "libtorch:cpu").
func Run(t *testing.T, spec string) {
	t.Helper()
	be, err := backend.Open(spec)
	if err != nil {
		t.Fatalf("opening %q: %v", spec, err)
	}
	t.Cleanup(func() { be.Close() })
	for _, c := range cases() {
		t.Run(c.name+"/forward64", func(t *testing.T) { checkForward(t, be, c, backend.Float64, 1e-9) })
		t.Run(c.name+"/forward32", func(t *testing.T) { checkForward(t, be, c, backend.Float32, 1e-5) })
		if c.grad != nil {
			t.Run(c.name+"/grad", func(t *testing.T) { checkGrad(t, be, c) })
		}
	}
	t.Run("Errors", func(t *testing.T) { checkErrors(t, be) })
	t.Run("RandomUniform", func(t *testing.T) { checkRandom(t, be) })
	t.Run("Executable", func(t *testing.T) { checkExecutable(t, be) })
}

func rnd(seed uint64, lo, hi float64, s ...int) array {
	r := rand.New(rand.NewPCG(seed, 7))
	a := array{shape: backend.Shape(s), data: make([]float64, backend.Shape(s).Size())}
	for i := range a.data {
		a.data[i] = lo + (hi-lo)*r.Float64()
	}
	return a
}

// awayFromZero returns values with |v| in [0.1, 1] and random sign, so that
// kinks (relu, max) are never within a finite-difference step.
func awayFromZero(seed uint64, s ...int) array {
	a := rnd(seed, 0.1, 1, s...)
	r := rand.New(rand.NewPCG(seed, 9))
	for i := range a.data {
		if r.IntN(2) == 0 {
			a.data[i] = -a.data[i]
		}
	}
	return a
}

func labels(seed uint64, depth int, n int) array {
	r := rand.New(rand.NewPCG(seed, 11))
	a := array{shape: backend.Shape{n}, data: make([]float64, n)}
	for i := range a.data {
		a.data[i] = float64(r.IntN(depth))
	}
	return a
}

func one(f func(b backend.Builder, x backend.Value) backend.Value) func(backend.Builder, []backend.Value) backend.Value {
	return func(b backend.Builder, in []backend.Value) backend.Value { return f(b, in[0]) }
}

func cases() []opCase {
	var cs []opCase
	yes, yes2, no := []bool{true}, []bool{true, true}, []bool(nil)
	unaryIn := map[backend.UnaryOp]array{
		backend.OpLog:  rnd(1, 0.5, 2, 3, 4),
		backend.OpSqrt: rnd(2, 0.5, 2, 3, 4),
	}
	for op := backend.OpNeg; op <= backend.OpLogSoftmax; op++ {
		in, ok := unaryIn[op]
		if !ok {
			in = awayFromZero(uint64(op)+10, 3, 4)
		}
		cs = append(cs, opCase{
			name: op.String(), inputs: []array{in}, grad: yes,
			build: func(b backend.Builder, v []backend.Value) backend.Value { return unary(b, op, v[0]) },
			ref:   func(a []array) array { return refUnary(op, a[0]) },
		})
	}
	binShapes := []struct {
		name string
		a, b []int
	}{{"same", []int{3, 4}, []int{3, 4}}, {"row", []int{3, 4}, []int{4}}, {"col", []int{3, 4}, []int{3, 1}}, {"scalar", []int{3, 4}, []int{}}, {"scalarLeft", []int{}, []int{2, 3}}}
	for op := backend.OpAdd; op <= backend.OpGreater; op++ {
		for i, bs := range binShapes {
			if op == backend.OpEqual && bs.name != "same" {
				continue
			}
			a, b := awayFromZero(uint64(20+i), bs.a...), awayFromZero(uint64(40+i), bs.b...)
			if op == backend.OpDiv {
				b = rnd(uint64(40+i), 0.5, 2, bs.b...)
			}
			if op == backend.OpEqual { // make some elements equal
				copy(b.data[:len(b.data)/2], a.data)
			}
			grad := yes2
			if op >= backend.OpEqual {
				grad = no
			}
			cs = append(cs, opCase{
				name: op.String() + "/" + bs.name, inputs: []array{a, b}, grad: grad,
				build: func(bl backend.Builder, v []backend.Value) backend.Value { return binary(bl, op, v[0], v[1]) },
				ref:   func(x []array) array { return refBinary(op, x[0], x[1]) },
			})
		}
	}
	cs = append(cs,
		opCase{name: "MatMul", inputs: []array{rnd(60, -1, 1, 3, 5), rnd(61, -1, 1, 5, 2)}, grad: yes2,
			build: func(b backend.Builder, v []backend.Value) backend.Value { return b.MatMul(v[0], v[1]) },
			ref:   func(x []array) array { return refMatMul(x[0], x[1]) }},
		opCase{name: "Reshape", inputs: []array{rnd(62, -1, 1, 2, 3, 4)}, grad: yes,
			build: one(func(b backend.Builder, x backend.Value) backend.Value { return b.Reshape(x, backend.Shape{6, 4}) }),
			ref:   func(x []array) array { return array{shape: backend.Shape{6, 4}, data: x[0].data} }},
		opCase{name: "ArgMax", inputs: []array{rnd(63, -1, 1, 4, 5)},
			build: one(func(b backend.Builder, x backend.Value) backend.Value { return b.ArgMax(x) }),
			ref:   func(x []array) array { return refArgMax(x[0]) }},
		opCase{name: "GradPastOneHot", inputs: []array{rnd(65, -1, 1, 6, 5)}, grad: yes,
			build: one(func(b backend.Builder, x backend.Value) backend.Value {
				hot := b.OneHot(b.Constant(labels(64, 5, 6).data, backend.Shape{6}), 5)
				return b.Mul(x, hot)
			}),
			ref: func(x []array) array { return refBinary(backend.OpMul, x[0], refOneHot(labels(64, 5, 6), 5)) }},
		opCase{name: "OneHot", inputs: []array{labels(64, 5, 6)},
			build: one(func(b backend.Builder, x backend.Value) backend.Value { return b.OneHot(x, 5) }),
			ref:   func(x []array) array { return refOneHot(x[0], 5) }},
	)
	for _, axes := range [][]int{nil, {0}, {1}, {-1}, {0, 2}} {
		for _, op := range []backend.ReduceOp{backend.OpSum, backend.OpMean} {
			cs = append(cs, opCase{
				name: op.String() + "/axes" + strings.Trim(strings.ReplaceAll(strings.Trim(strings.Join(strings.Fields(fmtInts(axes)), ","), "[]"), " ", ","), ","), inputs: []array{rnd(70, -1, 1, 2, 3, 4)}, grad: yes,
				build: one(func(b backend.Builder, x backend.Value) backend.Value {
					if op == backend.OpSum {
						return b.Sum(x, axes...)
					}
					return b.Mean(x, axes...)
				}),
				ref: func(x []array) array { return refReduce(op, x[0], axes) },
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
	}
	for _, c := range convs {
		cs = append(cs, opCase{name: "Conv2D/" + c.name, inputs: []array{rnd(80, -1, 1, c.x...), rnd(81, -1, 1, c.k...)}, grad: yes2,
			build: func(b backend.Builder, v []backend.Value) backend.Value { return b.Conv2D(v[0], v[1], c.o) },
			ref:   func(x []array) array { return refConv2D(x[0], x[1], c.o) }})
	}
	pools := []struct {
		name string
		x    []int
		o    backend.PoolOptions
	}{
		{"2x2", []int{2, 4, 6, 3}, backend.PoolOptions{Size: [2]int{2, 2}}},
		{"odd", []int{1, 5, 5, 2}, backend.PoolOptions{Size: [2]int{2, 2}}},
		{"3x3stride1", []int{1, 5, 5, 2}, backend.PoolOptions{Size: [2]int{3, 3}, Strides: [2]int{1, 1}}},
	}
	for _, p := range pools {
		cs = append(cs, opCase{name: "MaxPool2D/" + p.name, inputs: []array{distinct(90, p.x...)}, grad: yes,
			build: one(func(b backend.Builder, x backend.Value) backend.Value { return b.MaxPool2D(x, p.o) }),
			ref:   func(x []array) array { return refMaxPool2D(x[0], p.o) }})
	}
	return cs
}

// distinct returns a shuffled arithmetic sequence: no two values are within
// a finite-difference step of each other, so max pooling has no ties.
func distinct(seed uint64, s ...int) array {
	a := array{shape: backend.Shape(s), data: make([]float64, backend.Shape(s).Size())}
	for i := range a.data {
		a.data[i] = float64(i)*0.01 - 0.5
	}
	r := rand.New(rand.NewPCG(seed, 3))
	r.Shuffle(len(a.data), func(i, j int) { a.data[i], a.data[j] = a.data[j], a.data[i] })
	return a
}

func fmtInts(v []int) string {
	s := ""
	for _, x := range v {
		if x < 0 {
			s += " m" + string(rune('0'-x))
		} else {
			s += " " + string(rune('0'+x))
		}
	}
	return s
}

func unary(b backend.Builder, op backend.UnaryOp, x backend.Value) backend.Value {
	return map[backend.UnaryOp]func(backend.Value) backend.Value{
		backend.OpNeg: b.Neg, backend.OpExp: b.Exp, backend.OpLog: b.Log, backend.OpSqrt: b.Sqrt,
		backend.OpSquare: b.Square, backend.OpRelu: b.Relu, backend.OpSigmoid: b.Sigmoid,
		backend.OpTanh: b.Tanh, backend.OpSoftmax: b.Softmax, backend.OpLogSoftmax: b.LogSoftmax,
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
func eval(be backend.Backend, dt backend.DType, fn backend.Func, in []array) ([]array, error) {
	specs := make([]backend.Spec, len(in))
	tensors := make([]backend.Tensor, len(in))
	for i, a := range in {
		specs[i] = backend.Spec{Shape: a.shape, DType: dt}
		var err error
		if dt == backend.Float64 {
			tensors[i], err = be.FromFloat64(a.data, a.shape)
		} else {
			f := make([]float32, len(a.data))
			for j, v := range a.data {
				f[j] = float32(v)
			}
			tensors[i], err = be.FromFloat32(f, a.shape)
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
	res := make([]array, len(outs))
	for i, o := range outs {
		data, err := be.ToFloat64(o)
		if err != nil {
			return nil, err
		}
		res[i] = array{shape: o.Shape(), data: data}
	}
	return res, nil
}

func checkForward(t *testing.T, be backend.Backend, c opCase, dt backend.DType, tol float64) {
	in := c.inputs
	if dt == backend.Float32 { // compare against the reference on the rounded inputs
		in = make([]array, len(c.inputs))
		for i, a := range c.inputs {
			r := array{shape: a.shape, data: make([]float64, len(a.data))}
			for j, v := range a.data {
				r.data[j] = float64(float32(v))
			}
			in[i] = r
		}
	}
	want := c.ref(in)
	got, err := eval(be, dt, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
		return []backend.Value{c.build(b, v)}, nil
	}, in)
	if err != nil {
		t.Fatal(err)
	}
	assertClose(t, "output", got[0], want, tol)
}

func assertClose(t *testing.T, what string, got, want array, tol float64) {
	t.Helper()
	if !got.shape.Equal(want.shape) {
		t.Fatalf("%s shape %v, want %v", what, got.shape, want.shape)
	}
	for i := range want.data {
		if d := math.Abs(got.data[i] - want.data[i]); !(d <= tol*math.Max(1, math.Abs(want.data[i]))) {
			t.Fatalf("%s[%d] = %.10g, want %.10g (|diff| %.3g > tol %.3g)", what, i, got.data[i], want.data[i], d, tol)
		}
	}
}

// checkGrad compares Grad of loss = Sum(op(inputs) * w), for fixed random
// weights w, with central finite differences in float64.
func checkGrad(t *testing.T, be backend.Backend, c opCase) {
	out := c.ref(c.inputs)
	w := rnd(99, -1, 1, out.shape...)
	loss := func(b backend.Builder, v []backend.Value) backend.Value {
		return b.Sum(b.Mul(c.build(b, v), b.Constant(w.data, w.shape)))
	}
	var wrt []int
	for i, g := range c.grad {
		if g {
			wrt = append(wrt, i)
		}
	}
	got, err := eval(be, backend.Float64, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
		ws := make([]backend.Value, len(wrt))
		for i, k := range wrt {
			ws[i] = v[k]
		}
		return b.Grad(loss(b, v), ws), nil
	}, c.inputs)
	if err != nil {
		t.Fatal(err)
	}
	lossFn := func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
		return []backend.Value{loss(b, v)}, nil
	}
	const h = 1e-6
	for gi, k := range wrt {
		num := array{shape: c.inputs[k].shape, data: make([]float64, len(c.inputs[k].data))}
		for j := range num.data {
			at := func(delta float64) float64 {
				in := cloneArrays(c.inputs)
				in[k].data[j] += delta
				r, err := eval(be, backend.Float64, lossFn, in)
				if err != nil {
					t.Fatal(err)
				}
				return r[0].data[0]
			}
			num.data[j] = (at(h) - at(-h)) / (2 * h)
		}
		assertClose(t, "gradient of input "+string(rune('0'+k)), got[gi], num, 1e-5)
	}
}

func cloneArrays(in []array) []array {
	out := make([]array, len(in))
	for i, a := range in {
		out[i] = array{shape: a.shape, data: append([]float64(nil), a.data...)}
	}
	return out
}
