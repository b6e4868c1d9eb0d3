package optimizers

import (
	"fmt"
	"math"
	"slices"

	"github.com/kerasgo/kerasgo/internal/settings"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
)

// LearningRate returns a pointer to the optimizer's fixed learning rate, or
// nil for an optimizer kerasgo does not know. Training reads it before every
// step, so a change through it (by a callback, or by setting the field)
// takes effect at the next step. Compile first replaces an unset (zero)
// rate by Keras's default (ResolveDefaults); after that zero means zero.
func LearningRate(o Optimizer) *float64 {
	if l, ok := o.(*LossScaleOptimizer); ok { // its inner optimizer's rate
		return LearningRate(l.Inner)
	}
	if r, ok := o.(rated); ok {
		lr, _, _ := r.rate()
		return lr
	}
	return nil
}

// Schedule returns the optimizer's learning-rate schedule, or nil when it
// trains with a fixed rate.
func Schedule(o Optimizer) schedules.LearningRateSchedule {
	if l, ok := o.(*LossScaleOptimizer); ok {
		return Schedule(l.Inner)
	}
	if r, ok := o.(rated); ok {
		_, s, _ := r.rate()
		return *s
	}
	return nil
}

// RateAt returns the learning rate of the training step that follows
// iterations steps: the schedule's rate, or the fixed rate.
func RateAt(o Optimizer, iterations int64) float64 {
	if s := Schedule(o); s != nil {
		return s.Rate(iterations)
	}
	if p := LearningRate(o); p != nil {
		return *p
	}
	return 0
}

// ResolveDefaults replaces unset (zero) settings by Keras's defaults (the
// learning rate: SGD 0.01, the others 0.001), unless the optimizer came
// from a New... constructor (where zero means zero); a learning rate is
// not needed with a schedule. Compile calls it; afterwards the fields hold
// the values training uses, and zero means zero.
//
// An optimizer resolved already (or made by a New... constructor, whose
// settings are exact) is not written to at all, so that Serialize (Save)
// may read it while Fit's steps do.
func ResolveDefaults(o Optimizer) {
	if l, ok := o.(*LossScaleOptimizer); ok {
		if l.Inner != nil {
			ResolveDefaults(l.Inner)
		}
		return
	}
	if m, ok := o.(*MultiOptimizer); ok {
		for _, inner := range m.Optimizers() {
			ResolveDefaults(inner)
		}
		return
	}
	r, ok := o.(rated)
	if !ok || r.Common().exact {
		return
	}
	lr, s, def := r.rate()
	if *lr == 0 && *s == nil && !r.Common().exact {
		*lr = def
	}
	r.resolve()             // the other settings' defaults
	r.Common().exact = true // from now on, zero means zero
}

// Check reports settings Keras rejects, naming them: a negative or
// non-finite learning rate, both a rate and a schedule, conflicting
// clipping options, an invalid schedule.
func Check(o Optimizer) error {
	if l, ok := o.(*LossScaleOptimizer); ok {
		return l.check()
	}
	if m, ok := o.(*MultiOptimizer); ok {
		return m.check()
	}
	r, ok := o.(rated)
	if !ok {
		return nil
	}
	lr, s, _ := r.rate()
	if field, v, bad := settings.NonFinite(o); bad && field != "LearningRate" {
		return fmt.Errorf("optimizer %s: %s is %v: give a finite number", o.Name(), field, v)
	}
	if *lr < 0 || math.IsNaN(*lr) || math.IsInf(*lr, 0) {
		return fmt.Errorf("optimizer %s: LearningRate must be a finite number >= 0, got %v", o.Name(), *lr)
	}
	if *s != nil {
		if *lr != 0 {
			return fmt.Errorf("optimizer %s: give LearningRate or Schedule, not both (the schedule sets the learning rate of every step)", o.Name())
		}
		if err := (*s).Check(); err != nil {
			return fmt.Errorf("optimizer %s: %w", o.Name(), err)
		}
	}
	if c, ok := o.(interface{ checkSettings() error }); ok {
		if err := c.checkSettings(); err != nil {
			return err
		}
	}
	return r.Common().check(o.Name())
}

// Apply is one training update as Keras's Optimizer.apply makes it: with
// GradientAccumulationSteps the gradients are added up and the update
// uses their mean every that many steps; the gradients are clipped
// (ClipNorm, GlobalClipNorm or ClipValue), weight decay shrinks the
// parameters (WeightDecay), the optimizer's own rule updates them, and
// with UseEMA their moving averages follow. state is laid out as States
// declares it. Optimizers that do not embed Options go straight to their
// rule.
func Apply(b backend.Builder, o Optimizer, hp Hyperparameters, params, grads, state []backend.Value) (newParams, newState []backend.Value) {
	r, ok := o.(rated)
	if !ok {
		return o.Update(b, hp, params, grads, state)
	}
	opts := r.Common()
	n := len(params)
	var ema, acc []backend.Value
	if opts.UseEMA {
		ema, state = state[:n], state[n:]
	}
	accumulate := opts.GradientAccumulationSteps > 1
	if accumulate {
		acc, state = state[:n], state[n:]
	}
	g := grads
	if accumulate {
		g = make([]backend.Value, n)
		steps := b.Scalar(float64(opts.GradientAccumulationSteps))
		for i := range grads {
			g[i] = b.Div(b.Add(grads[i], acc[i]), steps)
		}
	}
	g = clip(b, opts, g)
	decays := make([]float64, n)
	for i := range decays {
		decays[i] = opts.WeightDecay
	}
	if d, ok := o.(interface {
		weightDecays([]backend.Shape) []float64
	}); ok { // Muon: per weight
		shapes := make([]backend.Shape, n)
		for i, p := range params {
			shapes[i] = p.Shape()
		}
		decays = d.weightDecays(shapes)
	}
	decayed := params
	if slices.ContainsFunc(decays, func(d float64) bool { return d > 0 }) {
		decayed = slices.Clone(params)
		for i, p := range params {
			if decays[i] > 0 {
				decayed[i] = b.Sub(p, b.Mul(p, b.Mul(hp.LearningRate, b.Scalar(decays[i]))))
			}
		}
	}
	newP, own := o.Update(b, hp, decayed, g, state)
	var newAcc []backend.Value
	if accumulate {
		// Only an update step changes the weights and the state, scalars
		// counting updates (Adam's beta^t) included: Keras's
		// optimizer.iterations counts updates (see Updates).
		flag := hp.ApplyUpdate
		keep := func(old, updated backend.Value) backend.Value { return b.Add(old, b.Mul(b.Sub(updated, old), flag)) }
		for i := range newP {
			newP[i] = keep(params[i], newP[i])
		}
		for i := range own {
			if own[i] != nil {
				own[i] = keep(state[i], own[i])
			}
		}
		newAcc = make([]backend.Value, n)
		notUpdate := b.Sub(b.Scalar(1), flag)
		for i := range acc {
			newAcc[i] = b.Mul(b.Add(acc[i], grads[i]), notUpdate)
		}
	}
	var newEMA []backend.Value
	if opts.UseEMA {
		// The first step's average is the weight itself (Keras: momentum 0
		// while iterations is 0).
		m := b.Mul(b.Minimum(hp.Iteration, b.Scalar(1)), b.Scalar(opts.emaMomentum()))
		one := b.Sub(b.Scalar(1), m)
		newEMA = make([]backend.Value, n)
		for i := range newP {
			newEMA[i] = b.Add(b.Mul(ema[i], m), b.Mul(newP[i], one))
			if opts.EMAOverwriteFrequency > 0 {
				newP[i] = b.Add(newP[i], b.Mul(b.Sub(newEMA[i], newP[i]), hp.OverwriteWithEMA))
			}
		}
	}
	return newP, append(append(newEMA, newAcc...), own...)
}

// EMAStates returns the indices, among the states States declares, of
// each parameter's moving average, or nil without UseEMA: Fit's end
// replaces the weights by them (Keras's finalize_variable_values).
func EMAStates(o Optimizer, params int) []int {
	r, ok := o.(rated)
	if !ok || !r.Common().UseEMA {
		return nil
	}
	out := make([]int, params)
	for i := range out {
		out[i] = i
	}
	return out
}

// clip applies Keras's gradient clipping: each gradient scaled to at most
// ClipNorm, or all of them to a global norm of at most GlobalClipNorm, or
// each element clipped to ±ClipValue.
func clip(b backend.Builder, o *Options, grads []backend.Value) []backend.Value {
	out := make([]backend.Value, len(grads))
	switch {
	case o.ClipNorm > 0:
		c := b.Scalar(o.ClipNorm)
		for i, g := range grads {
			norm := b.Sqrt(b.Sum(b.Square(g)))
			out[i] = b.Mul(g, b.Div(c, b.Maximum(norm, c)))
		}
	case o.GlobalClipNorm > 0:
		c := b.Scalar(o.GlobalClipNorm)
		var sq backend.Value
		for _, g := range grads {
			s := b.Sum(b.Square(g))
			if sq == nil {
				sq = s
			} else {
				sq = b.Add(sq, s)
			}
		}
		scale := b.Div(c, b.Maximum(b.Sqrt(sq), c))
		for i, g := range grads {
			out[i] = b.Mul(g, scale)
		}
	case o.ClipValue > 0:
		hi, lo := b.Scalar(o.ClipValue), b.Scalar(-o.ClipValue)
		for i, g := range grads {
			out[i] = b.Minimum(b.Maximum(g, lo), hi)
		}
	default:
		copy(out, grads)
	}
	return out
}
