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
	data := c.Float64Values(false)
	if o.dtype == backend.Float64 {
		err = group.AllReduceFloat64(data)
	} else { // the group sums float32, as the engine computes
		f := make([]float32, len(data))
		for i, d := range data {
			f[i] = float32(d)
		}
		err = group.AllReduceFloat32(f)
		for i, d := range f {
			data[i] = float64(d)
		}
	}
	if err != nil {
		return nil, err
	}
	return o.fromHost(data, x.Shape())
}

var _ backend.CollectiveOps = (*eagerOps)(nil)
