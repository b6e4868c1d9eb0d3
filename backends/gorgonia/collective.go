package gorgonia

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// AllReduceSum implements backend.CollectiveOps with a host op: the value
// is copied into the op's buffer, which the process group sums in place
// (c10d wraps the Go buffer without copying it).
func (o *graphOps) AllReduceSum(x backend.Value, group backend.Collective) (backend.Value, error) {
	xn := node(x)
	op := newHostOp("AllReduceSum", xn.Shape().Clone(), xn.Dtype(), []*G.Node{xn}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		switch d := dst.Data().(type) {
		case []float32:
			copy(d, f32(in[0]))
			return group.AllReduceFloat32(d)
		case []float64:
			copy(d, f64(in[0]))
			return group.AllReduceFloat64(d)
		}
		return fmt.Errorf("unsupported data %T", dst.Data())
	})
	return wrap(op.apply(xn))
}

var _ backend.CollectiveOps = (*graphOps)(nil)
