package optimizers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
)

// LossScaleOptimizer is keras.optimizers.LossScaleOptimizer: dynamic
// loss scaling around Inner, the optimizer that updates the weights.
// Keras multiplies the loss by the scale before the gradients are taken
// and divides the gradients by it after; when every scaled gradient is
// finite, Inner updates the weights, and after DynamicGrowthSteps such
// steps in a row the scale doubles; when one is not, the step changes no
// weight and the scale halves. Keras compiles every model with the
// mixed_float16 policy with one around its optimizer, and kerasgo does
// so when it loads such a model.
//
// The loss and the gradients kerasgo scales are float32 (no float16
// backward pass has run yet: libtorch computes float16 on CUDA only, see
// docs/mixed_precision.md): scaling by a power of two is exact there, so
// kerasgo takes the gradients of the loss itself and checks that they
// are finite once multiplied by the scale (Keras checks the gradients of
// the scaled loss, which agree but for an overflow inside the backward
// pass). The scale and the step counter are saved and loaded where Keras
// keeps them, so a Keras model's state carries on. Inner's iteration
// count counts every step, the skipped ones too (Keras's counts the
// applied ones).
type LossScaleOptimizer struct {
	Inner Optimizer
	// InitialScale is the first scale; zero means Keras's 2^15.
	InitialScale float64
	// DynamicGrowthSteps is how many finite steps double the scale; zero
	// means Keras's 2000.
	DynamicGrowthSteps int
}

// Name returns "loss_scale_optimizer".
func (*LossScaleOptimizer) Name() string { return "loss_scale_optimizer" }

func (o *LossScaleOptimizer) scale() float64 {
	if o.InitialScale == 0 {
		return 32768
	}
	return o.InitialScale
}

func (o *LossScaleOptimizer) growth() int {
	if o.DynamicGrowthSteps == 0 {
		return 2000
	}
	return o.DynamicGrowthSteps
}

func (o *LossScaleOptimizer) check() error {
	if o.Inner == nil {
		return fmt.Errorf("optimizer loss_scale_optimizer: Inner is nil: give the optimizer that updates the weights")
	}
	if _, multi := o.Inner.(*MultiOptimizer); multi {
		return fmt.Errorf("optimizer loss_scale_optimizer: Inner is a MultiOptimizer: kerasgo cannot scale the loss of several optimizers yet (Keras cannot put a LossScaleOptimizer inside a MultiOptimizer either)")
	}
	if _, nested := o.Inner.(*LossScaleOptimizer); nested {
		return fmt.Errorf("optimizer loss_scale_optimizer: Inner is a LossScaleOptimizer: wrap the inner optimizer once")
	}
	if o.InitialScale < 0 || o.DynamicGrowthSteps < 0 {
		return fmt.Errorf("optimizer loss_scale_optimizer: InitialScale %v and DynamicGrowthSteps %d must be positive", o.InitialScale, o.DynamicGrowthSteps)
	}
	return Check(o.Inner)
}

// State declares the step counter and the scale, then Inner's state.
func (o *LossScaleOptimizer) State(params []backend.Shape) []StateSpec {
	own := []StateSpec{
		{Name: "step_counter", Shape: backend.Shape{}, Param: -1},
		{Name: "dynamic_scale", Shape: backend.Shape{}, Init: o.scale(), Param: -1},
	}
	return append(own, States(o.Inner, params)...)
}

// Update applies Inner where every scaled gradient is finite, and
// advances the counter and the scale as Keras does.
func (o *LossScaleOptimizer) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	counter, scale := state[0], state[1]
	finite := b.Scalar(1)
	for _, g := range grads {
		finite = b.Mul(finite, ops.All(b, ops.Isfinite(b, b.Mul(g, scale))))
	}
	newP, newInner := Apply(b, o.Inner, hp, params, grads, state[2:])
	keep := func(updated, old []backend.Value) []backend.Value {
		out := make([]backend.Value, len(old))
		for i := range old {
			out[i] = ops.Where(b, finite, updated[i], old[i])
		}
		return out
	}
	grow := ops.Equal(b, counter, b.Scalar(float64(o.growth()-1)))
	zero := b.Scalar(0)
	newCounter := ops.Where(b, finite, ops.Where(b, grow, zero, b.Add(counter, b.Scalar(1))), zero)
	newScale := ops.Where(b, finite, ops.Where(b, grow, b.Mul(scale, b.Scalar(2)), scale), b.Mul(scale, b.Scalar(0.5)))
	return keep(newP, params), append([]backend.Value{newCounter, newScale}, keep(newInner, state[2:])...)
}

// AsLossScale returns o as a LossScaleOptimizer, if it is one.
func AsLossScale(o Optimizer) (*LossScaleOptimizer, bool) {
	l, ok := o.(*LossScaleOptimizer)
	return l, ok
}
