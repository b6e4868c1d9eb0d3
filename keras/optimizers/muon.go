package optimizers

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
)

// Muon is keras.optimizers.Muon (Jordan et al., 2024): momentum
// orthogonalized by Newton-Schulz iterations for the 2-D weights, AdamW
// for the others. A weight is given AdamW when it is not 2-D, when its
// path (Keras's variable.path, "dense/kernel") contains "embedding"
// (unless IncludeEmbeddings), or when one of ExcludeLayers (regular
// expressions) matches its path. The Muon weights use Options.WeightDecay
// (default 0.004), the AdamW ones AdamWeightDecay (default 0.004), as
// Keras's Muon decays them.
type Muon struct {
	LearningRate float64 // default 0.001
	// Schedule, when set, gives the learning rate of every step instead
	// of LearningRate.
	Schedule        schedules.LearningRateSchedule
	AdamBeta1       float64 // default 0.9
	AdamBeta2       float64 // default 0.999
	AdamWeightDecay float64 // default 0.004
	Epsilon         float64 // default 1e-7
	// ExcludeLayers are regular expressions: a weight whose path one
	// matches is updated by AdamW.
	ExcludeLayers []string
	// IncludeEmbeddings gives embeddings Muon too (Keras's
	// exclude_embeddings=False).
	IncludeEmbeddings bool
	// MuonA, MuonB, MuonC are the Newton-Schulz coefficients; defaults
	// 3.4445, -4.7750, 2.0315.
	MuonA, MuonB, MuonC float64
	AdamLRRatio         float64 // the AdamW weights' learning rate over Muon's; default 1
	Momentum            float64 // default 0.95
	NSSteps             int     // Newton-Schulz iterations; default 5
	NoNesterov          bool    // Keras's nesterov=False
	// RMSRate scales the orthogonal update by sqrt(max(rows, cols)) times
	// it; default 0.2, NoRMSRate for none (Keras's rms_rate=None).
	RMSRate   float64
	NoRMSRate bool
	Options
}

// Name returns "muon".
func (*Muon) Name() string { return "muon" }

func (o *Muon) rate() (*float64, *schedules.LearningRateSchedule, float64) {
	return &o.LearningRate, &o.Schedule, 0.001
}

func (o *Muon) resolve() {
	o.AdamBeta1, o.AdamBeta2, o.Epsilon = o.or(o.AdamBeta1, 0.9), o.or(o.AdamBeta2, 0.999), o.or(o.Epsilon, 1e-7)
	o.AdamWeightDecay, o.WeightDecay = o.or(o.AdamWeightDecay, 0.004), o.or(o.WeightDecay, 0.004)
	o.MuonA, o.MuonB, o.MuonC = o.or(o.MuonA, 3.4445), o.or(o.MuonB, -4.7750), o.or(o.MuonC, 2.0315)
	o.AdamLRRatio, o.Momentum, o.RMSRate = o.or(o.AdamLRRatio, 1), o.or(o.Momentum, 0.95), o.or(o.RMSRate, 0.2)
	if o.NSSteps == 0 && !o.exact {
		o.NSSteps = 5
	}
}

func (o *Muon) checkSettings() error {
	if o.NSSteps < 0 || (o.NSSteps == 0 && o.exact) {
		return fmt.Errorf("optimizer muon: NSSteps must be at least 1, got %d", o.NSSteps)
	}
	for _, e := range o.ExcludeLayers {
		if _, err := regexp.Compile(e); err != nil {
			return fmt.Errorf("optimizer muon: ExcludeLayers %q: %v", e, err)
		}
	}
	return nil
}

// usesAdamW is Keras's _should_use_adamw for a weight of shape s at path.
func (o *Muon) usesAdamW(s backend.Shape, path string) bool {
	if len(s) != 2 {
		return true
	}
	if !o.IncludeEmbeddings && strings.Contains(strings.ToLower(path), "embedding") {
		return true
	}
	for _, e := range o.ExcludeLayers {
		if re, err := regexp.Compile(e); err == nil && re.MatchString(path) {
			return true
		}
	}
	return false
}

// forVariables binds Muon to the variables it updates: which of them get
// AdamW depends on their paths.
func (o *Muon) forVariables(paths []string) Optimizer { return &boundMuon{Muon: o, paths: paths} }

// State, without the variables' paths, takes every 2-D weight for Muon
// (as a weight whose path says nothing).
func (o *Muon) State(params []backend.Shape) []StateSpec {
	return (&boundMuon{Muon: o}).State(params)
}

// Update, without the variables' paths, is that of State's split.
func (o *Muon) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	return (&boundMuon{Muon: o}).Update(b, hp, params, grads, state)
}

// boundMuon is Muon for variables of known paths (the training loop
// binds it: ForVariables).
type boundMuon struct {
	*Muon
	paths []string
}

func (o *boundMuon) split(params []backend.Shape) []bool {
	adamw := make([]bool, len(params))
	for i, s := range params {
		path := ""
		if i < len(o.paths) {
			path = o.paths[i]
		}
		adamw[i] = o.usesAdamW(s, path)
	}
	return adamw
}

// State declares a momentum per parameter and a velocity per AdamW
// parameter, each parameter's together, as Keras's Muon builds them.
func (o *boundMuon) State(params []backend.Shape) []StateSpec {
	adamw := o.split(params)
	var out []StateSpec
	for i, p := range params {
		out = append(out, StateSpec{Name: fmt.Sprintf("momentum_%d", i), Shape: p.Clone(), Param: i, Slot: 0})
		if adamw[i] {
			out = append(out, StateSpec{Name: fmt.Sprintf("velocity_%d", i), Shape: p.Clone(), Param: i, Slot: 1})
		}
	}
	return out
}

// weightDecays gives each parameter's decay: AdamWeightDecay for the
// AdamW ones, WeightDecay for the others.
func (o *boundMuon) weightDecays(params []backend.Shape) []float64 {
	adamw := o.split(params)
	out := make([]float64, len(params))
	for i := range out {
		out[i] = o.WeightDecay
		if adamw[i] {
			out[i] = o.AdamWeightDecay
		}
	}
	return out
}

// Update implements Keras 3.15's Muon: for a Muon weight, m = m·momentum
// + g, u = NS(g + momentum·m) (NS(m) without Nesterov), p -= lr·u·
// sqrt(max(rows, cols))·RMSRate; for an AdamW weight, Adam's moments and
// p -= m·α/(sqrt(v) + ε), α = lr·ratio·sqrt(1-β2^t)/(1-β1^t).
func (o *boundMuon) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	shapes := make([]backend.Shape, len(params))
	for i, p := range params {
		shapes[i] = p.Shape()
	}
	adamw := o.split(shapes)
	newP, newS := make([]backend.Value, len(params)), make([]backend.Value, len(state))
	one := b.Scalar(1)
	t := b.Add(hp.Iteration, one)
	b1Power, b2Power := powerAt(b, o.AdamBeta1, t), powerAt(b, o.AdamBeta2, t)
	k := 0
	for i, p := range params {
		g, m := grads[i], state[k]
		if adamw[i] {
			v := state[k+1]
			m = b.Add(m, b.Mul(b.Sub(g, m), b.Scalar(1-o.AdamBeta1)))
			v = b.Add(v, b.Mul(b.Sub(b.Square(g), v), b.Scalar(1-o.AdamBeta2)))
			lr := b.Mul(hp.LearningRate, b.Scalar(o.AdamLRRatio))
			alpha := b.Div(b.Mul(lr, b.Sqrt(b.Sub(one, b2Power))), b.Sub(one, b1Power))
			newP[i] = b.Sub(p, b.Div(b.Mul(m, alpha), b.Add(b.Sqrt(v), b.Scalar(o.Epsilon))))
			newS[k], newS[k+1] = m, v
			k += 2
			continue
		}
		m = b.Add(m, b.Add(g, b.Mul(m, b.Scalar(o.Momentum-1))))
		dir := m
		if !o.NoNesterov {
			dir = b.Add(g, b.Mul(m, b.Scalar(o.Momentum)))
		}
		update := b.Mul(o.newtonSchulz(b, dir), hp.LearningRate)
		if !o.NoRMSRate {
			s := p.Shape()
			update = b.Mul(update, b.Scalar(math.Sqrt(float64(max(s[0], s[1])))*o.RMSRate))
		}
		newP[i] = b.Sub(p, update)
		newS[k] = m
		k++
	}
	return newP, newS
}

// newtonSchulz is Keras's zeropower_via_newtonschulz5: the matrix (wide
// side last) over its Frobenius norm, then NSSteps of X = a·X + (b·A +
// c·A·A)·X with A = X·Xᵀ.
func (o *boundMuon) newtonSchulz(b backend.Builder, x backend.Value) backend.Value {
	s := x.Shape()
	tall := s[0] > s[1]
	if tall {
		x = b.Transpose(x, 1, 0)
	}
	norm := b.Sqrt(b.Sum(b.Square(x)))
	x = b.Div(x, b.Add(norm, b.Scalar(1e-7)))
	for range o.NSSteps {
		a := b.MatMul(x, b.Transpose(x, 1, 0))
		poly := b.Add(b.Mul(a, b.Scalar(o.MuonB)), b.Mul(b.MatMul(a, a), b.Scalar(o.MuonC)))
		x = b.Add(b.Mul(x, b.Scalar(o.MuonA)), b.MatMul(poly, x))
	}
	if tall {
		x = b.Transpose(x, 1, 0)
	}
	return x
}

// ForVariables returns the optimizer to update the variables at these
// paths (Keras's variable.path, in the order of State's parameters): o
// itself, or, for an optimizer whose rule depends on the paths (Muon),
// o bound to them. The training loop calls it when it compiles a step.
func ForVariables(o Optimizer, paths []string) Optimizer {
	if l, ok := o.(*LossScaleOptimizer); ok {
		bound := *l
		bound.Inner = ForVariables(l.Inner, paths)
		return &bound
	}
	if f, ok := o.(interface{ forVariables([]string) Optimizer }); ok {
		return f.forVariables(paths)
	}
	return o
}

// NewMuonExact returns a Muon whose every setting is as given, zeros
// included (set the fields after): the zero value of each is zero, not
// Keras's default.
func NewMuonExact() *Muon { return &Muon{Options: Options{exact: true}} }
