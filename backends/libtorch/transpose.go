//go:build libtorch

package libtorch

import (
	"github.com/kerasgo/kerasgo/keras/backend"
)

func (o *eagerOps) Transpose(x backend.Value, perm []int, out backend.Shape) (backend.Value, error) {
	p := make([]int64, len(perm))
	for i, v := range perm {
		p[i] = int64(v)
	}
	t, err := o.tv(x).Permute(p, false)
	if err != nil {
		return nil, err
	}
	o.arena = append(o.arena, t)
	r, err := t.Contiguous(false)
	return o.keep(r, err, out)
}

func (o *eagerOps) Slice(x backend.Value, begin, size []int) (backend.Value, error) {
	t := o.tv(x)
	for d := range begin {
		if begin[d] == 0 && size[d] == x.Shape()[d] {
			continue
		}
		n, err := t.Narrow(int64(d), int64(begin[d]), int64(size[d]), false)
		if err != nil {
			return nil, err
		}
		o.arena = append(o.arena, n)
		t = n
	}
	r, err := t.Contiguous(false)
	return o.keep(r, err, backend.Shape(size).Clone())
}
