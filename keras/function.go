package keras

import (
	"context"
	"fmt"
	"sync"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// FunctionFunc is a computation over a model written with a Step's ops
// and methods: it calls models (s.Call), takes gradients of any value with
// respect to others (s.Grad, Keras's GradientTape: with respect to the
// inputs, or to a layer's output that a model with two outputs returns
// beside its prediction, as grad-CAM does) and returns the values Run
// gives back. Like a StepFunc it describes the computation and runs once
// per input shape, on symbolic values.
type FunctionFunc func(s *Step, xs []backend.Value) ([]backend.Value, error)

// Function is a FunctionFunc compiled for a model's engine, with the
// model's variables as they are at each Run: Keras's eager code over a
// model (a GradientTape, a jitted function), for saliency maps, grad-CAM,
// integrated gradients, adversarial examples or style transfer. Make it
// with Model.NewFunction. Run is safe for concurrent use; the runs of one
// Function take turns.
type Function struct {
	m  *Model
	fn FunctionFunc

	mu   sync.Mutex
	bind *binding                      // the binding the executables were compiled for
	exes map[string]backend.Executable // by the inputs' shapes
}

// NewFunction returns fn compiled over m (see Function). The model must
// be built; it need not be compiled (then it runs on the engine Predict
// would choose).
func (m *Model) NewFunction(fn FunctionFunc) (*Function, error) {
	if fn == nil {
		return nil, fmt.Errorf("NewFunction: the function is nil")
	}
	if !m.Built() {
		return nil, m.errNotBuilt()
	}
	return &Function{m: m, fn: fn}, nil
}

// Run computes the function on x (the model's inputs, as Predict takes
// them, whole: one batch) and returns its results.
func (f *Function) Run(ctx context.Context, x ArraySet) ([]Array, error) {
	m := f.m
	d, c, bind, err := m.prepareData(x, nil, "Function.Run", false)
	if err != nil {
		return nil, err
	}
	if d.x, err = m.hostFeeds(d.x); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := bind.refresh(); err != nil {
		return nil, err
	}
	s, err := bind.acquire()
	if err != nil {
		return nil, err
	}
	defer bind.release(s)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.bind != bind { // compiled again: the engine changed
		for _, e := range f.exes {
			e.Close()
		}
		f.bind, f.exes = bind, map[string]backend.Executable{}
	}
	key := d.shapes()
	exe, ok := f.exes[key]
	if !ok {
		specs := m.stepSpecs(c, predictStep, d, false, false)
		if exe, err = bind.be.Compile(f.compiled(c, len(d.x)), specs, backend.CompileOptions{}); err != nil {
			return nil, fmt.Errorf("compiling the function for inputs %s: %w", key, err)
		}
		f.exes[key] = exe
	}
	in := append([]backend.Tensor(nil), s.params[:len(m.weights)]...)
	var owned []backend.Tensor
	defer func() { bind.be.Release(owned...) }()
	for _, a := range d.x {
		t, err := uploadArray(bind.be, a)
		if err != nil {
			return nil, err
		}
		in, owned = append(in, t), append(owned, t)
	}
	outs, err := exe.Run(in)
	if err != nil {
		return nil, err
	}
	defer bind.be.Release(outs...)
	res := make([]Array, len(outs))
	for i, t := range outs {
		v, err := bind.be.ToFloat32(t)
		if err != nil {
			return nil, err
		}
		res[i] = Array{Shape: append([]int(nil), t.Shape()...), Data: v}
	}
	return res, nil
}

// compiled is the engine function: the model's variables, then nX
// inputs, given to the FunctionFunc on a Step in inference mode.
func (f *Function) compiled(c *compiled, nX int) backend.Func {
	m := f.m
	return func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		l := splitInputs(in, false, len(m.weights), 0, 0, nX, 0, false)
		s := m.newStep(b, c, l, false, false, nil)
		s.kind = "function"
		outs, err := runFunction(f.fn, s, l.xs)
		if err != nil {
			return nil, err
		}
		if len(outs) == 0 {
			return nil, fmt.Errorf("function: it returned no values: return what Run should give back")
		}
		for i, o := range outs {
			if o == nil {
				return nil, fmt.Errorf("function: result %d is nil", i)
			}
		}
		return outs, nil
	}
}

// runFunction calls fn on s, turning a panic in it into an error.
func runFunction(fn FunctionFunc, s *Step, xs []backend.Value) (outs []backend.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("function panicked: %v (a FunctionFunc must build its computation with the Step's ops and methods)", r)
			if first := s.recordedError(); first != nil { // the panic followed an op's error: that is the one to fix
				err = fmt.Errorf("function: %w", first)
			}
		}
	}()
	outs, err = fn(s, xs)
	if err != nil {
		return nil, fmt.Errorf("function: %w", err)
	}
	if s.err != nil {
		return nil, s.err
	}
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("function: %w", err)
	}
	return outs, nil
}
