//go:build libtorch

package libtorch

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kerasgo/kerasgo/internal/recycle"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/sugarme/gotch/ts"
)

// program is a Func ready to run eagerly.
type program struct {
	e     *engine
	fn    backend.Func
	specs []backend.Spec
	info  backend.TraceInfo
	seed  int64
	runs  int64
	// slots hold the outputs' buffers released for reuse (spares.go).
	slots []recycle.Slot[tensor]
	// life is when each value the Func's ops make can be freed
	// (lifetimes.go), recorded by the first Run (rehearse).
	life lifetimes
	// rehearsing is set during rehearse's Run.
	rehearsing bool
}

// Compile checks fn with a shape-only trace (so shape errors surface here,
// as on a graph engine) and records which inputs need gradients.
func (e *engine) Compile(fn backend.Func, specs []backend.Spec, opts backend.CompileOptions) (backend.Executable, error) {
	info, err := backend.Trace(fn, specs)
	if err != nil {
		return nil, err
	}
	if info.GradOther {
		// Grad with respect to a value computed inside the Func (a
		// layer's output, as grad-CAM takes): every float input tracks
		// gradients, so every value computed from them has a history to
		// differentiate along (eagerOps.gradOfValues).
		for i, s := range specs {
			info.GradInputs[i] = s.DType != backend.Int32
		}
	}
	p := &program{e: e, fn: fn, specs: specs, info: info, seed: opts.Seed}
	if info.Grads == 1 && !info.GradOther {
		p.rehearse()
	}
	return p, nil
}

// Run runs the Func eagerly on the inputs (backend.Open's guard checked
// their number, shapes and dtypes).
func (p *program) Run(inputs []backend.Tensor) (out []backend.Tensor, err error) {
	return p.run(inputs, nil)
}

// run is Run, writing into the donated inputs where donation.go's rules
// let it (donated nil: none).
func (p *program) run(inputs []backend.Tensor, donated []bool) (out []backend.Tensor, err error) {
	out, wrote, err := p.runOnce(inputs, donated)
	if errors.Is(err, errDroppedValue) && !wrote {
		// The Func did other ops than the Run that recorded its
		// lifetimes (a rehearsal's broadcast zeros may take another path
		// than data): nothing is dropped from now on, and no input was
		// written into yet, so the Run is run again.
		out, _, err = p.runOnce(inputs, nil)
	}
	return out, err
}

// runOnce is run; wrote reports whether an update was written into a
// donated input.
func (p *program) runOnce(inputs []backend.Tensor, donated []bool) (out []backend.Tensor, wrote bool, err error) {
	for i, t := range inputs {
		if _, ok := t.(*tensor); !ok {
			return nil, false, fmt.Errorf("input %d is a %T, not a libtorch tensor", i, t)
		}
	}
	var ops *eagerOps
	defer func() { wrote = ops != nil && ops.wrote }()
	err = p.e.w.do(func() error {
		ops = &eagerOps{e: p.e, p: p, dtype: p.specs0DType(), gradsLeft: p.info.Grads, severalGrads: p.info.Grads > 1, rehearsal: p.rehearsing}
		defer func() {
			ops.dropPending()
			for _, t := range ops.arena {
				if t != nil { // nil: given to an output (eagerOps.own)
					t.Drop()
				}
			}
			for _, sc := range ops.scalars {
				sc.Drop()
			}
			ts.GradSetEnabled(true)
		}()
		p.runs++
		seed(p.seed*1_000_003 + p.runs)
		if _, err := ts.GradSetEnabled(true); err != nil {
			return err
		}
		args := make([]backend.Value, len(inputs))
		ops.inputs = make([]*tensor, len(inputs))
		if slices.Contains(donated, true) {
			ops.donated = donated
		}
		for i, in := range inputs {
			ops.inputs[i] = in.(*tensor)
			t := ops.inputs[i].t
			if p.info.GradInputs[i] {
				// A fresh leaf that shares the input's storage and tracks
				// gradients for this Run only.
				d, err := t.Detach(false)
				if err != nil {
					return err
				}
				ops.arena = append(ops.arena, d)
				if t, err = d.SetRequiresGrad(true, false); err != nil {
					return err
				}
				ops.arena = append(ops.arena, t)
				ops.leaves = append(ops.leaves, t)
			}
			args[i] = &value{t: t, shape: in.Shape(), dtype: in.DType(), input: i + 1}
		}
		b := backend.NewBuilder(ops)
		results, err := p.fn(b, args)
		if err == nil {
			err = b.Err()
		}
		if err != nil {
			return err
		}
		ops.SetAutocast(backend.Float32) // the outputs in float32
		out = make([]backend.Tensor, len(results))
		for i, r := range results {
			t, err := ops.tensor(r)
			var d *ts.Tensor
			if err == nil {
				// The caller gets a tensor with no autograd history,
				// which survives the arena.
				d, err = ops.own(t)
			}
			if err != nil {
				for _, made := range out[:i] { // outside the arena now
					made.(*tensor).t.Drop()
				}
				out = nil
				return err
			}
			out[i] = &tensor{t: d, shape: r.Shape().Clone(), dtype: ops.dtype}
		}
		ops.record(results)
		if ops.rehearsal { // its outputs are dropped, not recycled
			return nil
		}
		if p.slots == nil {
			p.slots = make([]recycle.Slot[tensor], len(out))
		}
		p.leaseOutputs(out, results, inputs)
		return nil
	})
	return out, wrote, err
}

func (p *program) specs0DType() backend.DType { return backend.ComputeDType(p.specs) }

// SetStep sets the step number of the next Run, which seeds its random ops.
func (p *program) SetStep(step int64) { p.runs = step - 1 }

// Close frees the buffers the program holds for reuse.
func (p *program) Close() error {
	return p.e.w.do(func() error {
		p.drainSlots()
		return nil
	})
}
