package gorgonia

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/kerasgo/kerasgo/keras/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// program is a traced Func ready to run on a TapeMachine.
type program struct {
	g       *G.ExprGraph
	inputs  []*G.Node
	specs   []backend.Spec
	outputs []G.Value    // filled by the Read nodes on each run
	slots   []outputSlot // recycle the outputs' buffers
	vm      G.VM
	// The random ops draw from rng, reseeded from (seed, step) every Run.
	rng        *rand.PCG
	seed, step uint64
}

func (e *engine) Compile(fn backend.Func, specs []backend.Spec, opts backend.CompileOptions) (exe backend.Executable, err error) {
	dtype := toDtype(backend.ComputeDType(specs)) // backend.Open's guard checked the float inputs share it
	g := G.NewGraph()
	pcg := rand.NewPCG(0, 0)
	ops := &graphOps{g: g, dtype: dtype, rng: rand.New(pcg), src: pcg}
	p := &program{g: g, specs: specs, rng: pcg, seed: uint64(opts.Seed)}
	args := make([]backend.Value, len(specs))
	for i, s := range specs {
		var n *G.Node
		name := fmt.Sprintf("in%d", i)
		dt := toDtype(s.DType) // the compute dtype, or int32 for token ids
		if len(s.Shape) == 0 {
			n = G.NewScalar(g, dt, G.WithName(name))
		} else {
			n = G.NewTensor(g, dt, len(s.Shape), G.WithShape(s.Shape...), G.WithName(name))
		}
		p.inputs = append(p.inputs, n)
		args[i] = value{n}
	}
	b := backend.NewBuilder(ops)
	outs, err := fn(b, args) // backend.Open's guard recovers panics and reads b.Err
	if err != nil {
		return nil, err
	}
	p.outputs = make([]G.Value, len(outs))
	p.slots = make([]outputSlot, len(outs))
	reads := make(G.Nodes, len(outs))
	for i, o := range outs {
		reads[i] = G.Read(node(o), &p.outputs[i])
		p.slots[i].shape, p.slots[i].dtype = node(o).Shape().Clone(), node(o).Dtype()
	}
	// Only what the outputs need runs: Gorgonia differentiates a matmul
	// in both operands, so a model's input gets a gradient (the first
	// Dense layer's largest product) that nothing reads. The inputs stay
	// in (Gorgonia refuses a graph without any, and an output may be a
	// constant).
	sub := g.ExactSubgraphRoots(append(reads, p.inputs...)...)
	if _, err := separateHashCollisions(sub); err != nil {
		return nil, err
	}
	p.vm = G.NewTapeMachine(sub, G.WithEngine(tensorEngine{}))
	return p, nil
}

// Run feeds the inputs (backend.Open's guard checked their number, shapes
// and dtypes) and runs the tape.
func (p *program) Run(inputs []backend.Tensor) (out []backend.Tensor, err error) {
	for i, t := range inputs {
		d, err := dense(t)
		if err != nil {
			return nil, err
		}
		// A header of its own over the shared data: Gorgonia's ops change
		// an input's header in place (a matmul transposes its operand's
		// view and back), and another Run may read the same tensor at
		// once (concurrent predictions beside a training step).
		var v G.Value = d.ShallowClone()
		if len(p.specs[i].Shape) == 0 {
			v = scalarOf(d)
		}
		if err := G.Let(p.inputs[i], v); err != nil {
			return nil, fmt.Errorf("feeding input %d: %w", i, err)
		}
	}
	for i, v := range p.outputs { // a buffer to read each output into
		if v == nil && len(p.slots[i].shape) > 0 {
			if d := p.slots[i].take(); d != nil {
				p.outputs[i] = d
			}
		}
	}
	p.step++
	p.rng.Seed(p.seed, p.step^0x6b657261736f)
	defer p.vm.Reset() // a panic is recovered by backend.Open's guard
	if err := p.vm.RunAll(); err != nil {
		if ke := p.kernelFailure(); ke != nil {
			return nil, ke // "layer ...: Gather: ...", not "PC 6. Failed to execute instruction ..."
		}
		return nil, err
	}
	out = make([]backend.Tensor, len(p.outputs))
	for i, v := range p.outputs {
		if d, ok := v.(*tensor.Dense); ok && len(p.slots[i].shape) > 0 {
			// Read's copy is the caller's now; Release gives it back.
			out[i] = engineTensor{d: d, lease: p.slots[i].Lease()}
			p.outputs[i] = nil
			continue
		}
		d, err := copyOut(v)
		if err != nil {
			return nil, fmt.Errorf("output %d: %w", i, err)
		}
		out[i] = engineTensor{d: d}
	}
	return out, nil
}

// kernelFailure returns (and clears) the failure of a host kernel in the
// last run: Gorgonia's machine wraps it in a type that hides it.
func (p *program) kernelFailure() *kernelError {
	for _, n := range p.g.AllNodes() {
		op, ok := n.Op().(*hostOp)
		if d, isDiff := n.Op().(diffHostOp); isDiff {
			op, ok = d.hostOp, true
		}
		if ok && op.failure != nil {
			ke := op.failure
			op.failure = nil
			return ke
		}
	}
	return nil
}

// copyOut copies a value out of the machine's storage, which the next run
// reuses.
func copyOut(v G.Value) (*tensor.Dense, error) {
	switch x := v.(type) {
	case *tensor.Dense:
		return x.Clone().(*tensor.Dense), nil
	case *G.F32:
		return tensor.New(tensor.WithShape(), tensor.WithBacking([]float32{float32(*x)})), nil
	case *G.F64:
		return tensor.New(tensor.WithShape(), tensor.WithBacking([]float64{float64(*x)})), nil
	case nil:
		return nil, errors.New("the graph produced no value")
	}
	return nil, fmt.Errorf("unsupported value %T", v)
}

func scalarOf(d *tensor.Dense) G.Value {
	switch x := d.Data().(type) {
	case []float32:
		return G.NewF32(x[0])
	case []float64:
		return G.NewF64(x[0])
	case float32:
		return G.NewF32(x)
	case float64:
		return G.NewF64(x)
	}
	return d
}

// SetStep sets the step number of the next Run, which seeds its random ops.
func (p *program) SetStep(step int64) { p.step = uint64(step - 1) }

func (p *program) Close() error {
	p.vm.Close()
	return nil
}
