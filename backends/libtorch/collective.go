//go:build libtorch

package libtorch

import (
	"unsafe"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// TensorCollective is what a process group offers the libtorch engine
// beyond backend.Collective: summing a libtorch tensor in place, given
// its handle (gotch's Ctensor, a torch::Tensor*), with no copy to the host.
// keras/distribution's c10d groups implement it.
type TensorCollective interface {
	AllReduceTensor(tensor unsafe.Pointer) error
}

// AllReduceSum implements backend.CollectiveOps: a copy of x summed in
// place by the process group, on the tensor itself when the group takes
// libtorch tensors (TensorCollective), else through the host.
func (o *eagerOps) AllReduceSum(x backend.Value, group backend.Collective) (backend.Value, error) {
	c, err := o.tv(x).DetachCopy(false)
	if err != nil {
		return nil, err
	}
	v, err := o.keep(c, nil, x.Shape())
	if err != nil {
		return nil, err
	}
	if tc, ok := group.(TensorCollective); ok {
		return v, tc.AllReduceTensor(c.Ctensor())
	}
	switch o.dtype {
	case backend.Float64:
		data := c.Float64Values(false)
		if err := group.AllReduceFloat64(data); err != nil {
			return nil, err
		}
		return o.fromHost(data, x.Shape())
	default:
		data := c.Float64Values(false)
		f := make([]float32, len(data))
		for i, d := range data {
			f[i] = float32(d)
		}
		if err := group.AllReduceFloat32(f); err != nil {
			return nil, err
		}
		d64 := make([]float64, len(f))
		for i, d := range f {
			d64[i] = float64(d)
		}
		return o.fromHost(d64, x.Shape())
	}
}

var _ backend.CollectiveOps = (*eagerOps)(nil)
