//go:build libtorch

package libtorch

import (
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/sugarme/gotch/ts"
)

// nchw permutes a channels_last tensor to PyTorch's layout (a view).
func (o *eagerOps) permute(t *ts.Tensor, perm ...int64) (*ts.Tensor, error) {
	r, err := t.Permute(perm, false)
	if err == nil {
		o.arena = append(o.arena, r)
	}
	return r, err
}

// padUneven pads an NCHW tensor where Keras's "same" needs more padding
// after than before, and returns the symmetric padding left for the op.
func (o *eagerOps) padUneven(t *ts.Tensor, xs backend.Shape, window, strides [2]int, p backend.Padding, fill float64) (*ts.Tensor, []int64, error) {
	_, bh, th := backend.ConvOutputSize(xs[1], window[0], strides[0], p)
	_, bw, tw := backend.ConvOutputSize(xs[2], window[1], strides[1], p)
	if th == 2*bh && tw == 2*bw {
		return t, []int64{int64(bh), int64(bw)}, nil
	}
	pad := []int64{int64(bw), int64(tw - bw), int64(bh), int64(th - bh)} // last dim first
	r, err := t.ConstantPadNdWithVal(pad, ts.FloatScalar(fill), false)
	if err != nil {
		return nil, nil, err
	}
	o.arena = append(o.arena, r)
	return r, []int64{0, 0}, nil
}

func (o *eagerOps) Conv2D(x, k backend.Value, opt backend.ConvOptions, out backend.Shape) (backend.Value, error) {
	xs, ks := x.Shape(), k.Shape()
	in, err := o.permute(o.tv(x), 0, 3, 1, 2)
	if err != nil {
		return nil, err
	}
	w, err := o.permute(o.tv(k), 3, 2, 0, 1)
	if err != nil {
		return nil, err
	}
	in, pad, err := o.padUneven(in, xs, [2]int{ks[0], ks[1]}, opt.Strides, opt.Padding, 0)
	if err != nil {
		return nil, err
	}
	noBias := ts.NewTensor() // undefined: gotch dereferences a nil bias
	o.arena = append(o.arena, noBias)
	y, err := ts.Conv2d(in, w, noBias, []int64{int64(opt.Strides[0]), int64(opt.Strides[1])}, pad, []int64{1, 1}, 1)
	if err != nil {
		return nil, err
	}
	o.arena = append(o.arena, y)
	r, err := y.Permute([]int64{0, 2, 3, 1}, false)
	return o.keep(r, err, out)
}

func (o *eagerOps) MaxPool2D(x backend.Value, opt backend.PoolOptions, out backend.Shape) (backend.Value, error) {
	in, err := o.permute(o.tv(x), 0, 3, 1, 2)
	if err != nil {
		return nil, err
	}
	in, pad, err := o.padUneven(in, x.Shape(), opt.Size, opt.Strides, opt.Padding, math.Inf(-1))
	if err != nil {
		return nil, err
	}
	y, err := in.MaxPool2d([]int64{int64(opt.Size[0]), int64(opt.Size[1])}, []int64{int64(opt.Strides[0]), int64(opt.Strides[1])}, pad, []int64{1, 1}, false, false)
	if err != nil {
		return nil, err
	}
	o.arena = append(o.arena, y)
	r, err := y.Permute([]int64{0, 2, 3, 1}, false)
	return o.keep(r, err, out)
}
