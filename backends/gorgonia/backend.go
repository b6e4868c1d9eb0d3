package gorgonia

import (
	"fmt"

	"github.com/kerasgo/kerasgo/internal/recycle"
	"github.com/kerasgo/kerasgo/keras/backend"
	"gorgonia.org/tensor"
)

// Name is the name this engine registers under.
const Name = "gorgonia"

func init() {
	backend.Register(Name, Open)
	// Gorgonia hands tensors it is done with (ReturnTensor) to a global
	// pool of headers that later ops borrow. A tensor returned while
	// still referenced, or returned twice (its backward ops and node
	// unbinding return tensors; concurrent programs share the pool),
	// would put one header under two live values, and since the pool
	// outlives a run the damage would show later in another model. It
	// was suspected of a wrong prediction seen in full test runs and
	// never alone (TestLoadKerasFixtureLSTM off by 7e-3); the cause found
	// later for such failures is Gorgonia's compiler merging nodes by
	// hash alone (hash_collisions.go). Without the pool the steps
	// allocate as many objects as with it (make bench-go: same
	// allocs/op for the MLP, CNN and LSTM steps), so it stays off.
	tensor.DontUsePool()
}

// Open returns the Gorgonia engine. The only device it supports is the CPU
// ("" or "cpu").
func Open(device string) (backend.Backend, error) {
	switch device {
	case "", "cpu":
		return &engine{}, nil
	case "cuda":
		return nil, fmt.Errorf("gorgonia:cuda is not supported yet: use %q, or \"libtorch:cuda\" for the GPU", Name)
	}
	return nil, fmt.Errorf("unknown device %q for gorgonia: it runs on \"cpu\" only", device)
}

type engine struct{}

// engineTensor is the Backend's Tensor: a dense Gorgonia tensor. A
// program's output carries the lease under which Release returns its
// buffer to the program (see outputSlot).
type engineTensor struct {
	d     *tensor.Dense
	lease *recycle.Lease[tensor.Dense]
}

func (t engineTensor) Shape() backend.Shape { return backend.Shape(t.d.Shape().Clone()) }
func (t engineTensor) DType() backend.DType { return fromDtype(t.d.Dtype()) }

func (e *engine) Name() string { return Name }

func (e *engine) Capabilities() backend.Capabilities {
	return backend.Capabilities{DTypes: []backend.DType{backend.Float32, backend.Float64}, Device: "cpu"}
}

// FromFloat32 copies data into a tensor (backend.Open's guard checked
// that it fills s).
func (e *engine) FromFloat32(data []float32, s backend.Shape) (backend.Tensor, error) {
	return engineTensor{d: newDense(append([]float32(nil), data...), s)}, nil
}

// FromFloat64 copies data into a tensor.
func (e *engine) FromFloat64(data []float64, s backend.Shape) (backend.Tensor, error) {
	return engineTensor{d: newDense(append([]float64(nil), data...), s)}, nil
}

// FromInt32 copies integer data (token ids) into a tensor.
func (e *engine) FromInt32(data []int32, s backend.Shape) (backend.Tensor, error) {
	return engineTensor{d: newDense(append([]int32(nil), data...), s)}, nil
}

// newDense wraps backing in a tensor of shape s on tensorEngine, so that
// the graph's sums, differences and scalings of it run on every core.
func newDense(backing any, s backend.Shape) *tensor.Dense {
	if len(s) == 0 {
		return tensor.New(tensor.WithShape(), tensor.WithBacking(backing), tensor.WithEngine(tensorEngine{}))
	}
	return tensor.New(tensor.WithShape(s...), tensor.WithBacking(backing), tensor.WithEngine(tensorEngine{}))
}

func (e *engine) ToFloat32(t backend.Tensor) ([]float32, error) { return readBack[float32](t) }

func (e *engine) ToFloat64(t backend.Tensor) ([]float64, error) { return readBack[float64](t) }

// readBack copies an engine tensor to the host as D.
func readBack[D float32 | float64](t backend.Tensor) ([]D, error) {
	d, err := dense(t)
	if err != nil {
		return nil, err
	}
	if d.Shape().TotalSize() == 0 && len(d.Shape()) > 0 {
		return []D{}, nil // Gorgonia's Data panics on an empty tensor
	}
	var out []D
	switch data := d.Data().(type) {
	case []float32:
		out = make([]D, len(data))
		backend.Convert(out, data)
	case []float64:
		out = make([]D, len(data))
		backend.Convert(out, data)
	case []int32:
		out = make([]D, len(data))
		backend.Convert(out, data)
	case float32:
		out = []D{D(data)}
	case float64:
		out = []D{D(data)}
	default:
		return nil, fmt.Errorf("unsupported tensor data %T", d.Data())
	}
	return out, nil
}

func (e *engine) Close() error { return nil }

// Release gives a program's outputs back to it, to copy a later run's
// outputs into (see outputSlot); other tensors are Go memory, which the
// garbage collector frees.
func (e *engine) Release(ts ...backend.Tensor) {
	for _, t := range ts {
		if et, ok := t.(engineTensor); ok {
			et.lease.Return(et.d) // a buffer the slot does not take is the collector's
		}
	}
}

func dense(t backend.Tensor) (*tensor.Dense, error) {
	et, ok := t.(engineTensor)
	if !ok {
		return nil, fmt.Errorf("tensor %T does not belong to the gorgonia backend", t)
	}
	return et.d, nil
}

func toDtype(d backend.DType) tensor.Dtype {
	switch d {
	case backend.Float64:
		return tensor.Float64
	case backend.Int32:
		return tensor.Int32
	}
	return tensor.Float32
}

func fromDtype(d tensor.Dtype) backend.DType {
	switch d {
	case tensor.Float64:
		return backend.Float64
	case tensor.Int32:
		return backend.Int32
	}
	return backend.Float32
}
