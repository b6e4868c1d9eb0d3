package layers

import (
	"fmt"
	"slices"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// SpectralNormalization divides the kernel of the layer it wraps by the
// kernel's largest singular value in training, estimated by power
// iteration, like keras.layers.SpectralNormalization (Miyato et al.,
// 2018, for GAN discriminators): the wrapped layer's Lipschitz constant
// stays near 1.
//
//	layers.Apply(&layers.SpectralNormalization{Wrapper: layers.Wrapper{Layer: &layers.Dense{Units: 8}}}, x)
//
// The wrapped layer has a weight "kernel" (Dense, the convolutions) or
// "embeddings" (Embedding). The wrapper's own weights are that kernel
// (as in Keras, which saves it twice: with the wrapper's variables and
// with the wrapped layer's) and vector_u (1, kernel's last dimension;
// not trainable), which carries the power iteration from one training
// step to the next. In a training step, the wrapped
// layer computes with W/σ, σ = vᵀ W u after PowerIterations rounds of
// v = normalize(u Wᵀ), u = normalize(v W) (W flattened to (-1, last),
// u and v without gradient), and vector_u becomes the last u; a kernel
// of zeros is left as it is. Outside training the wrapped layer computes
// with its kernel as stored.
//
// This is Keras on JAX, which the tests compare with: the step's
// assignment to the kernel reaches the forward pass only, and the
// optimizer updates the stored kernel by the gradient through W/σ. On
// Keras's TensorFlow and PyTorch backends the kernel variable itself is
// overwritten with W/σ in each training step.
type SpectralNormalization struct {
	Wrapper
	// PowerIterations is the number of power-iteration rounds per step
	// (Keras's power_iterations; 0 means Keras's default, 1).
	PowerIterations int

	kernel, vectorU *Weight
}

// ClassName returns "SpectralNormalization".
func (*SpectralNormalization) ClassName() string { return "SpectralNormalization" }

// iterations is PowerIterations with Keras's default.
func (l *SpectralNormalization) iterations() int {
	if l.PowerIterations == 0 {
		return 1
	}
	return l.PowerIterations
}

// Build builds the wrapped layer, finds its kernel and adds vector_u.
func (l *SpectralNormalization) Build(inputs []backend.Shape) (backend.Shape, error) {
	if l.PowerIterations < 0 {
		return nil, fmt.Errorf("power_iterations should be greater than zero, got %d", l.PowerIterations)
	}
	out, err := l.Wrapper.Build(inputs)
	if err != nil {
		return nil, err
	}
	l.kernel = nil
	for _, w := range l.Layer.Common().Weights() {
		if w.Name == "kernel" || (l.kernel == nil && w.Name == "embeddings") {
			l.kernel = w
		}
	}
	if l.kernel == nil {
		return nil, fmt.Errorf("the wrapped layer %s has no weight \"kernel\" nor \"embeddings\" to normalize: wrap a Dense, a convolution or an Embedding", Describe(l.Layer))
	}
	// Keras's self.kernel = self.layer.kernel makes the kernel the
	// wrapper's own variable too: its first, saved with its own vars and
	// again with the wrapped layer's.
	if !slices.Contains(l.weights, l.kernel) {
		l.weights = append(l.weights, l.kernel)
	}
	last := l.kernel.Shape[len(l.kernel.Shape)-1]
	if l.vectorU, err = l.AddWeight("vector_u", backend.Shape{1, last}, initializers.TruncatedNormal{Stddev: 0.02}); err != nil {
		return nil, err
	}
	l.vectorU.Trainable = false
	return out, nil
}

// Call applies the wrapped layer, in training with its kernel
// normalized, and assigns the new vector_u.
func (l *SpectralNormalization) Call(ctx *Context, in []backend.Value) backend.Value {
	if !ctx.Training {
		return l.Layer.Call(ctx, in)
	}
	b := ctx.B
	w, u := ctx.Weight(l.kernel), ctx.Weight(l.vectorU)
	s := l.kernel.Shape
	last := s[len(s)-1]
	flat := b.Reshape(w, backend.Shape{s.Size() / last, last})
	var v backend.Value
	for range l.iterations() {
		v = unitNorm(b, b.MatMul(u, b.Transpose(flat, 1, 0)))
		u = unitNorm(b, b.MatMul(v, flat))
	}
	u, v = b.StopGradient(u), b.StopGradient(v)
	sigma := b.MatMul(b.MatMul(v, flat), b.Transpose(u, 1, 0)) // (1, 1)
	normalized := b.Div(w, b.Reshape(sigma, backend.Shape{}))
	// Keras's ops.cond: a kernel of zeros keeps itself and vector_u.
	zero := b.Equal(b.Sum(b.Abs(w)), b.Scalar(0))
	ctx.Assign(l.vectorU, b.Add(b.Mul(zero, ctx.Weight(l.vectorU)), b.Mul(b.Sub(b.Scalar(1), zero), u)))
	normalized = b.Add(b.Mul(zero, w), b.Mul(b.Sub(b.Scalar(1), zero), normalized))
	return l.Layer.Call(ctx.withWeight(l.kernel, normalized), in)
}

// unitNorm is Keras's normalize(x, axis=None): x times the inverse of
// its L2 norm, capped at 1/epsilon (1e-7).
func unitNorm(b backend.Builder, x backend.Value) backend.Value {
	inv := b.Minimum(b.Div(b.Scalar(1), b.Sqrt(b.Sum(b.Mul(x, x)))), b.Scalar(1e7))
	return b.Mul(x, inv)
}

// infersByDefault: Keras's call defaults training to False, and records
// it on every call (see IsTrainingDefault).
func (*SpectralNormalization) infersByDefault() {}

// GetConfig returns Keras's config: the wrapped layer and
// power_iterations.
func (l *SpectralNormalization) GetConfig() (serialization.Config, error) {
	cfg, err := l.Wrapper.GetConfig()
	if err != nil {
		return nil, err
	}
	cfg["power_iterations"] = l.iterations()
	return cfg, nil
}

func init() {
	mustRegister("SpectralNormalization", func(r *serialization.Reader) (Layer, error) {
		inner, err := ReadWrapped(r)
		if err != nil {
			return nil, err
		}
		return &SpectralNormalization{Wrapper: Wrapper{Layer: inner}, PowerIterations: r.PositiveInt("power_iterations", 1)}, nil
	})
}
