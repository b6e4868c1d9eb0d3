package backend

// TraceInfo is what Trace learns about a Func without running it.
type TraceInfo struct {
	// GradInputs[i] is true when Grad is taken with respect to input i.
	GradInputs []bool
	// GradOther is true when Grad is taken with respect to a value that is
	// not an input; an eager engine must then track gradients of every
	// input.
	GradOther bool
	// Outputs are the shapes of the Func's results.
	Outputs []Shape
	// Grads counts the Func's calls of Grad (a custom training step may
	// take several: a GAN's discriminator and generator losses).
	Grads int
}

// Trace runs fn on shape-only values: every op's arguments are checked as
// on a real engine, but nothing is computed. Eager engines use it at
// Compile to report shape errors before running and to learn which inputs
// need gradients.
func Trace(fn Func, specs []Spec) (TraceInfo, error) {
	so := &shapeOps{dtype: ComputeDType(specs)}
	info := TraceInfo{GradInputs: make([]bool, len(specs))}
	so.onGrad = func(wrt []Value) {
		info.Grads++
		for _, w := range wrt {
			if sv, ok := w.(*shapeValue); ok && sv.input >= 0 {
				info.GradInputs[sv.input] = true
			} else {
				info.GradOther = true
			}
		}
	}
	in := make([]Value, len(specs))
	for i, s := range specs {
		in[i] = &shapeValue{shape: s.Shape.Clone(), dtype: s.DType, input: i}
	}
	b := NewBuilder(so)
	outs, err := fn(b, in)
	if err == nil {
		err = b.Err()
	}
	if err != nil {
		return info, err
	}
	for _, o := range outs {
		info.Outputs = append(info.Outputs, o.Shape())
	}
	return info, nil
}

type shapeValue struct {
	shape Shape
	dtype DType
	input int // index of the input this is, or -1
}

func (v *shapeValue) Shape() Shape { return v.shape }
func (v *shapeValue) DType() DType { return v.dtype }

// shapeOps implements Ops with shapes only. The Builder has validated every
// argument and computed result shapes where they are not obvious.
type shapeOps struct {
	dtype  DType
	onGrad func(wrt []Value)
	// customs are the CustomGradient results' gradient functions, which
	// every Grad calls once, so that their shape errors surface at
	// Compile as a real Grad's would.
	customs []traceCustom
}

type traceCustom struct {
	upstream Shape
	vjp      func(upstream Value) ([]Value, error)
}

func (o *shapeOps) val(s Shape) (Value, error) {
	return &shapeValue{shape: s.Clone(), dtype: o.dtype, input: -1}, nil
}

func (o *shapeOps) DType() DType                                 { return o.dtype }
func (o *shapeOps) Scalar(float64) (Value, error)                { return o.val(Shape{}) }
func (o *shapeOps) Constant(_ []float64, s Shape) (Value, error) { return o.val(s) }
func (o *shapeOps) Unary(_ UnaryOp, x Value) (Value, error)      { return o.val(x.Shape()) }
func (o *shapeOps) Binary(_ BinaryOp, _, _ Value, out Shape) (Value, error) {
	return o.val(out)
}
func (o *shapeOps) BatchMatMul(_, _ Value, out Shape) (Value, error) { return o.val(out) }
func (o *shapeOps) MatMul(a, b Value) (Value, error) {
	return o.val(Shape{a.Shape()[0], b.Shape()[1]})
}
func (o *shapeOps) Reduce(_ ReduceOp, x Value, axes []int) (Value, error) {
	return o.val(ReducedShape(x.Shape(), axes))
}
func (o *shapeOps) Reshape(_ Value, s Shape) (Value, error) { return o.val(s) }
func (o *shapeOps) Concat(_ []Value, _ int, out Shape) (Value, error) {
	return o.val(out)
}
func (o *shapeOps) Transpose(_ Value, _ []int, out Shape) (Value, error) { return o.val(out) }
func (o *shapeOps) Slice(_ Value, _, size []int) (Value, error)          { return o.val(Shape(size)) }
func (o *shapeOps) Conv2D(_, _ Value, _ ConvOptions, out Shape) (Value, error) {
	return o.val(out)
}
func (o *shapeOps) MaxPool2D(_ Value, _ PoolOptions, out Shape) (Value, error) {
	return o.val(out)
}
func (o *shapeOps) ArgMax(x Value) (Value, error) {
	s := x.Shape()
	return o.val(s[:len(s)-1])
}
func (o *shapeOps) OneHot(x Value, depth int) (Value, error) {
	return o.val(append(x.Shape().Clone(), depth))
}
func (o *shapeOps) Gather(_, _ Value, out Shape) (Value, error)       { return o.val(out) }
func (o *shapeOps) Cast(x Value) (Value, error)                       { return o.val(x.Shape()) }
func (o *shapeOps) RandomUniform(s Shape) (Value, error)              { return o.val(s) }
func (o *shapeOps) RandomNormal(s Shape) (Value, error)               { return o.val(s) }
func (o *shapeOps) RandomUniformFrom(_ Value, s Shape) (Value, error) { return o.val(s) }
func (o *shapeOps) Where(_, _, _ Value, out Shape) (Value, error)     { return o.val(out) }
func (o *shapeOps) Grad(_ Value, wrt []Value) ([]Value, error) {
	o.onGrad(wrt)
	for _, c := range o.customs {
		up, _ := o.val(c.upstream)
		if _, err := c.vjp(up); err != nil {
			return nil, err
		}
	}
	out := make([]Value, len(wrt))
	for i, w := range wrt {
		out[i], _ = o.val(w.Shape())
	}
	return out, nil
}

func (o *shapeOps) CustomGradient(_ []Value, forward Value, vjp func(Value) ([]Value, error)) (Value, error) {
	o.customs = append(o.customs, traceCustom{upstream: forward.Shape().Clone(), vjp: vjp})
	return o.val(forward.Shape())
}

// AllReduceSum traces as the value's shape; the engine's own op runs it.
func (o *shapeOps) AllReduceSum(x Value, _ Collective) (Value, error) { return o.val(x.Shape()) }
