//go:build libtorch

package libtorch

import (
	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// TakeAlongLastAxis implements backend.TakeOps with libtorch's gather
// along the last axis, on the indices cast to int64 (which truncates
// toward zero); an index outside the axis is an error (libtorch's on the
// CPU, checkIndices's on a GPU).
// Its gradient, a scatter into zeros of x's shape, is libtorch's.
func (o *eagerOps) TakeAlongLastAxis(x, indices backend.Value) (backend.Value, error) {
	ch := &chain{o: o}
	idx := ch.do(func() (*ts.Tensor, error) { return o.tv(indices).Totype(gotch.Int64, false) })
	last := int64(len(x.Shape()) - 1)
	if ch.err == nil {
		ch.err = o.checkIndices(idx, indices.Shape().Size(), x.Shape()[last], "take along the last axis")
	}
	col := ch.do(func() (*ts.Tensor, error) { return idx.Unsqueeze(-1, false) })
	picked := ch.do(func() (*ts.Tensor, error) { return o.tv(x).Gather(last, col, false, false) })
	if ch.err != nil {
		return nil, ch.err
	}
	r, err := picked.SqueezeDim(last, false)
	return o.keep(r, err, indices.Shape())
}

var _ backend.TakeOps = (*eagerOps)(nil)
