package backend

import (
	"fmt"
	"runtime/debug"
)

// guard wraps every engine Open returns with the checks that are the same
// on every engine, so that adapters stay thin and their errors read alike:
// host data that does not fill its shape, a Func whose inputs mix dtypes
// or use one the engine lacks, an Executable run with the wrong number,
// shapes or dtypes of inputs, and a panic in a Func or an engine, which
// becomes an error naming the step.
type guard struct {
	Backend
}

// guarded returns be with the shared checks.
func guarded(be Backend) Backend {
	if _, ok := be.(guard); ok {
		return be
	}
	return guard{be}
}

func checkFill(n int, s Shape) error {
	for _, d := range s {
		if d < 0 {
			return fmt.Errorf("shape %v has a negative dimension", s)
		}
	}
	if s.Size() != n {
		return fmt.Errorf("%d values do not fill shape %v (%d values)", n, s, s.Size())
	}
	return nil
}

func (g guard) FromFloat32(data []float32, s Shape) (Tensor, error) {
	if err := checkFill(len(data), s); err != nil {
		return nil, err
	}
	return g.Backend.FromFloat32(data, s)
}

func (g guard) FromFloat64(data []float64, s Shape) (Tensor, error) {
	if err := checkFill(len(data), s); err != nil {
		return nil, err
	}
	return g.Backend.FromFloat64(data, s)
}

func (g guard) FromInt32(data []int32, s Shape) (Tensor, error) {
	if err := checkFill(len(data), s); err != nil {
		return nil, err
	}
	return g.Backend.FromInt32(data, s)
}

func (g guard) Compile(fn Func, specs []Spec, opts CompileOptions) (exe Executable, err error) {
	if fn == nil {
		return nil, fmt.Errorf("Compile needs a Func")
	}
	compute, first := ComputeDType(specs), -1
	for i, s := range specs {
		if s.DType != Int32 && s.DType != compute {
			return nil, fmt.Errorf("input %d is %v but input %d is %v: a Func computes in one float dtype (int32 inputs aside)", i, s.DType, first, compute)
		}
		if s.DType != Int32 && first < 0 {
			first = i
		}
		if s.Shape.Size() < 0 {
			return nil, fmt.Errorf("input %d has shape %v: compile for concrete shapes", i, s.Shape)
		}
	}
	if !g.supports(compute) {
		return nil, fmt.Errorf("engine %s does not compute in %v (it has %v)", g.Name(), compute, g.Capabilities().DTypes)
	}
	defer func() {
		if r := recover(); r != nil {
			exe, err = nil, fmt.Errorf("building the computation panicked: %v\n%s", r, debug.Stack())
		}
	}()
	exe, err = g.Backend.Compile(guardFunc(fn), specs, opts)
	if err != nil {
		return nil, err
	}
	return guardedExecutable{Executable: exe, specs: specs}, nil
}

func (g guard) supports(dt DType) bool {
	for _, d := range g.Capabilities().DTypes {
		if d == dt {
			return true
		}
	}
	return false
}

// guardFunc turns a panic in fn (user code, a custom layer) into an error.
func guardFunc(fn Func) Func {
	return func(b Builder, in []Value) (out []Value, err error) {
		defer func() {
			if r := recover(); r != nil {
				out, err = nil, fmt.Errorf("the computation panicked: %v\n%s", r, debug.Stack())
			}
		}()
		out, err = fn(b, in)
		if err == nil {
			err = b.Err()
		}
		return out, err
	}
}

// guardedExecutable checks a Run's inputs against the compiled specs.
type guardedExecutable struct {
	Executable
	specs []Spec
}

func (e guardedExecutable) Run(inputs []Tensor) (out []Tensor, err error) {
	if err := e.check(inputs); err != nil {
		return nil, err
	}
	defer recoverRun(&out, &err)
	return e.Executable.Run(inputs)
}

// RunDonating is Donor's RunDonating where the engine's Executable is a
// Donor, and Run where it is not.
func (e guardedExecutable) RunDonating(inputs []Tensor, donated []bool) (out []Tensor, err error) {
	if err := e.check(inputs); err != nil {
		return nil, err
	}
	if len(donated) != len(inputs) {
		return nil, fmt.Errorf("got %d donation flags for %d inputs: give one per input", len(donated), len(inputs))
	}
	seen := make(map[Tensor]int, len(donated))
	for i, d := range donated {
		if !d {
			continue
		}
		if j, ok := seen[inputs[i]]; ok {
			return nil, fmt.Errorf("inputs %d and %d are one tensor, donated twice: donate a tensor once", j, i)
		}
		seen[inputs[i]] = i
	}
	defer recoverRun(&out, &err)
	if d, ok := e.Executable.(Donor); ok {
		return d.RunDonating(inputs, donated)
	}
	return e.Executable.Run(inputs)
}

func recoverRun(out *[]Tensor, err *error) {
	if r := recover(); r != nil {
		*out, *err = nil, fmt.Errorf("the engine panicked while running the computation: %v\n%s", r, debug.Stack())
	}
}

// check checks a Run's inputs against the compiled specs.
func (e guardedExecutable) check(inputs []Tensor) error {
	if len(inputs) != len(e.specs) {
		return fmt.Errorf("got %d inputs, the compiled function takes %d", len(inputs), len(e.specs))
	}
	for i, t := range inputs {
		if t == nil {
			return fmt.Errorf("input %d is nil", i)
		}
		if !t.Shape().Equal(e.specs[i].Shape) || t.DType() != e.specs[i].DType {
			return fmt.Errorf("input %d is %v %v; the function was compiled for %v %v", i, t.DType(), t.Shape(), e.specs[i].DType, e.specs[i].Shape)
		}
	}
	return nil
}

// ComputeDType is the float dtype a Func with these inputs computes in:
// its first float input's (Float32 if all are int32).
func ComputeDType(specs []Spec) DType {
	for _, s := range specs {
		if s.DType != Int32 {
			return s.DType
		}
	}
	return Float32
}
