package layers

import (
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// AlphaDropout is keras.layers.AlphaDropout, the dropout of self-normalising
// networks (SELU activations): in training each value is dropped with
// probability Rate to SELU's negative saturation value, and the result
// is shifted and scaled so that the mean and variance stay those of the
// input. At inference it passes the input through.
type AlphaDropout struct {
	Rate float64 // in [0, 1)
	Base
}

// ClassName returns "AlphaDropout".
func (*AlphaDropout) ClassName() string { return "AlphaDropout" }

// Build checks the rate; the shape is unchanged.
func (l *AlphaDropout) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	return in.Clone(), checkRate(l.Rate)
}

// Call is Keras's: x·keep + α′(1 - keep), then a·that + b, with α′ =
// -λα of SELU, a = ((1-rate)(1 + rate·α′²))^-½ and b = -a·α′·rate.
func (l *AlphaDropout) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training || l.Rate == 0 {
		return x
	}
	const alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
	alphaP := -alpha * scale
	a := math.Pow((1-l.Rate)*(1+l.Rate*alphaP*alphaP), -0.5)
	bias := -a * alphaP * l.Rate
	b := ctx.B
	keep := b.Sub(b.Scalar(1), b.Greater(b.Scalar(l.Rate), b.RandomUniform(x.Shape()))) // uniform >= rate
	dropped := b.Add(b.Mul(x, keep), b.Mul(b.Sub(b.Scalar(1), keep), b.Scalar(alphaP)))
	return b.Add(b.Mul(dropped, b.Scalar(a)), b.Scalar(bias))
}

// ComputeMask passes the input's mask on.
func (*AlphaDropout) ComputeMask(_ *Context, _, m []backend.Value) backend.Value {
	return firstMask(m)
}

// GetConfig returns Keras's config.
func (l *AlphaDropout) GetConfig() (serialization.Config, error) {
	return serialization.Config{"rate": l.Rate, "seed": nil, "noise_shape": nil}, nil
}

func init() {
	mustRegister("AlphaDropout", func(r *serialization.Reader) (Layer, error) {
		r.Ignore("seed")
		r.ExpectNull("noise_shape")
		return &AlphaDropout{Rate: r.Float("rate", 0)}, nil
	})
}
