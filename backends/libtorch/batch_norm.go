//go:build libtorch

package libtorch

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/sugarme/gotch/ts"
)

// BatchNormalize implements backend.BatchNormOps with libtorch's own
// batch_norm (and its fused backward) instead of the reference's eight
// ops and their gradients: with the reference, kerasgo on libtorch took
// 2.2x PyTorch's step on ResNet-50. The batch's mean and variance, for
// the moving averages, come from one var_mean. Without gamma or beta it
// takes the reference composition.
func (o *eagerOps) BatchNormalize(x, gamma, beta backend.Value, eps float64) (y, mean, variance backend.Value, err error) {
	if gamma == nil || beta == nil {
		b := backend.NewBuilder(o)
		y, mean, variance = backend.BatchNormReference(b, x, gamma, beta, eps)
		return y, mean, variance, b.Err()
	}
	s := x.Shape()
	channels := s[len(s)-1]
	c := backend.Shape{channels}
	// The tensor batch_norm sees: for images, PyTorch's (N, C, H, W), a
	// permuted view that is the convolution's own output, contiguous
	// (conv.go returns its NCHW result permuted), so batch_norm runs its
	// NCHW kernels as in a PyTorch model; otherwise (rows, channels).
	in, axes, back := o.tv(x), []int64{0}, []int64(nil)
	if len(s) == 4 {
		in, err = in.Permute([]int64{0, 3, 1, 2}, false)
		axes, back = []int64{0, 2, 3}, []int64{0, 2, 3, 1}
	} else {
		in, err = reshape(in, backend.Shape{s.Size() / channels, channels})
	}
	if err != nil {
		return nil, nil, nil, err
	}
	o.arena = append(o.arena, in)
	// No running statistics (undefined tensors, libtorch's None), so
	// training mode normalises by the batch's own and momentum is unused.
	none := ts.NewTensor()
	o.arena = append(o.arena, none)
	out, err := ts.BatchNorm(in, o.tv(gamma), o.tv(beta), none, none, true, 0.1, eps, false)
	if err != nil {
		return nil, nil, nil, err
	}
	o.arena = append(o.arena, out)
	if back != nil {
		out, err = out.Permute(back, false)
	} else {
		out, err = reshape(out, s)
	}
	if y, err = o.keep(out, err, s); err != nil {
		return nil, nil, nil, err
	}
	vt, mt, err := in.VarMeanDim(axes, false, false, false)
	if err != nil {
		return nil, nil, nil, err
	}
	if mean, err = o.keep(mt, nil, c); err != nil {
		return nil, nil, nil, err
	}
	if variance, err = o.keep(vt, nil, c); err != nil {
		return nil, nil, nil, err
	}
	return y, mean, variance, nil
}

var _ backend.BatchNormOps = (*eagerOps)(nil)
