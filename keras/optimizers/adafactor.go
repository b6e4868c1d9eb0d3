package optimizers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
)

// Adafactor is keras.optimizers.Adafactor (Shazeer and Stern, 2018): an
// Adam-like optimizer whose second moment of a matrix (the last two axes
// of a weight of rank 2 or more) is kept factored, as a row and a column
// average, so that its state grows with rows + columns rather than
// rows × columns. The step is relative to the weight's RMS (at least
// Epsilon2), its decay rate is 1 - t^Beta2Decay at update t, and each
// update is clipped to an RMS of ClipThreshold.
type Adafactor struct {
	LearningRate float64 // default 0.001
	// Schedule, when set, gives the learning rate of every step instead
	// of LearningRate.
	Schedule      schedules.LearningRateSchedule
	Beta2Decay    float64 // default -0.8
	Epsilon1      float64 // default 1e-30, added to the squared gradients
	Epsilon2      float64 // default 1e-3, the least weight RMS the step is relative to
	ClipThreshold float64 // default 1
	// FixedStep is Keras's relative_step=False: the learning rate is
	// used as given rather than capped at 1/sqrt(t) first.
	FixedStep bool
	Options
}

// Name returns "adafactor".
func (*Adafactor) Name() string { return "adafactor" }

func (o *Adafactor) rate() (*float64, *schedules.LearningRateSchedule, float64) {
	return &o.LearningRate, &o.Schedule, 0.001
}

func (o *Adafactor) settings() (decay, eps1, eps2, clip float64) {
	return o.or(o.Beta2Decay, -0.8), o.or(o.Epsilon1, 1e-30), o.or(o.Epsilon2, 1e-3), o.or(o.ClipThreshold, 1)
}

func (o *Adafactor) resolve() {
	o.Beta2Decay, o.Epsilon1, o.Epsilon2, o.ClipThreshold = o.settings()
}

func (o *Adafactor) checkSettings() error {
	if _, _, _, clip := o.settings(); clip <= 0 {
		return fmt.Errorf("optimizer adafactor: ClipThreshold must be > 0, got %v", clip)
	}
	return nil
}

// State declares, per parameter and in Keras's order, the row and column
// averages of the squared gradients (scalars Keras keeps as placeholders
// for a weight of rank below 2) and the velocity.
func (o *Adafactor) State(params []backend.Shape) []StateSpec {
	var out []StateSpec
	for i, p := range params {
		r, c, placeholder := backend.Shape{}, backend.Shape{}, true
		if k := len(p); k >= 2 {
			r = p[:k-1].Clone()
			c = append(p[:k-2].Clone(), p[k-1])
			placeholder = false
		}
		out = append(out,
			StateSpec{Name: fmt.Sprintf("r_%d", i), Shape: r, Param: i, Slot: 0, Placeholder: placeholder},
			StateSpec{Name: fmt.Sprintf("c_%d", i), Shape: c, Param: i, Slot: 1, Placeholder: placeholder},
			StateSpec{Name: fmt.Sprintf("v_%d", i), Shape: p.Clone(), Param: i, Slot: 2})
	}
	return out
}

// Update implements Keras 3's update_step, t being the update count plus
// one.
func (o *Adafactor) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	decay, eps1, eps2, clip := o.settings()
	one := b.Scalar(1)
	t := b.Add(hp.Iteration, b.Scalar(1))
	inverseRoot := b.Div(one, b.Sqrt(t))
	lr := hp.LearningRate
	if !o.FixedStep && o.Schedule == nil {
		lr = b.Minimum(lr, inverseRoot)
	}
	rho := b.Minimum(lr, inverseRoot)
	// 1 - t^decay. The log is taken of a (1,) tensor: on the pure-Go
	// engine, the log of the step count as a rank-0 value gave NaN inside
	// a compiled training step (not in a small graph of the same ops);
	// the cause in Gorgonia is not found yet.
	logT := b.Reshape(b.Log(b.Reshape(t, backend.Shape{1})), backend.Shape{})
	beta := b.Sub(one, b.Exp(b.Mul(logT, b.Scalar(decay))))
	notBeta := b.Sub(one, beta)
	rms := func(x backend.Value) backend.Value { return b.Sqrt(b.Mean(b.Square(x))) }
	newP, newS := make([]backend.Value, len(params)), make([]backend.Value, len(state))
	for i, p := range params {
		g, r, c, v := grads[i], state[3*i], state[3*i+1], state[3*i+2]
		alpha := b.Mul(b.Maximum(b.Scalar(eps2), rms(p)), rho)
		g2 := b.Add(b.Square(g), b.Scalar(eps1))
		if k := len(p.Shape()); k >= 2 {
			r = b.Add(b.Mul(beta, r), b.Mul(notBeta, ops.Mean(b, g2, ops.Axis(-1))))
			c = b.Add(b.Mul(beta, c), b.Mul(notBeta, ops.Mean(b, g2, ops.Axis(-2))))
			rows := b.Div(r, ops.Mean(b, r, ops.Axis(-1), ops.KeepDims()))
			v = b.Mul(ops.ExpandDims(b, rows, -1), ops.ExpandDims(b, c, -2))
		} else {
			v = b.Add(b.Mul(beta, v), b.Mul(notBeta, g2))
		}
		u := b.Div(g, b.Sqrt(v))
		u = b.Div(u, b.Maximum(one, b.Div(rms(u), b.Scalar(clip))))
		newP[i] = b.Sub(p, b.Mul(alpha, u))
		newS[3*i], newS[3*i+1], newS[3*i+2] = r, c, v
	}
	return newP, newS
}
