//go:build libtorch

package libtorch

import (
	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Gather is libtorch's embedding lookup (torch.nn.functional.embedding)
// on the indices cast to int64, which truncates toward zero; an index
// outside the table is an error (libtorch's on the CPU, checkIndices's on
// a GPU). Its gradient with respect to the table is libtorch's.
func (o *eagerOps) Gather(table, indices backend.Value, out backend.Shape) (backend.Value, error) {
	idx, err := o.tv(indices).Totype(gotch.Int64, false)
	if err != nil {
		return nil, err
	}
	o.arena = append(o.arena, idx)
	ts2 := table.Shape()
	if err := o.checkIndices(idx, indices.Shape().Size(), ts2[0], "gather"); err != nil {
		return nil, err
	}
	t := o.tv(table)
	if len(ts2) != 2 { // embedding wants (rows, width)
		flat, err := t.Reshape([]int64{int64(ts2[0]), int64(ts2.Size() / ts2[0])}, false)
		if err != nil {
			return nil, err
		}
		o.arena = append(o.arena, flat)
		t = flat
	}
	r, err := ts.Embedding(t, idx, -1, false, false)
	if err != nil {
		return nil, err
	}
	if len(ts2) != 2 {
		o.arena = append(o.arena, r)
		r, err = r.Reshape(dims(out), false)
	}
	return o.keep(r, err, out)
}

// Cast turns int32 token ids into the compute dtype.
func (o *eagerOps) Cast(x backend.Value) (backend.Value, error) {
	r, err := o.tv(x).Totype(kind(o.dtype), false)
	return o.keep(r, err, x.Shape().Clone())
}
