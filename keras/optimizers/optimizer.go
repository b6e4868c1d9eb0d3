package optimizers

import (
	"fmt"
	"math"
	"sort"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
)

// StateSpec declares one state tensor: its shape and initial value, and
// how it maps to the variables Keras saves (see package keras/saving).
type StateSpec struct {
	Name  string
	Shape backend.Shape
	Init  float64
	// Param is the index of the parameter a per-parameter slot belongs to,
	// and Slot which of the optimizer's slots it is (Adam: 0 momentum, 1
	// velocity), in Keras's order. Param is -1 for a state tensor that is
	// not a slot.
	Param, Slot int
	// FromIterations, when set, says the tensor is a scalar Keras does not
	// save (Adam's beta1^t) and gives its value after that many steps:
	// loading recomputes it from the saved iteration count.
	FromIterations func(iterations int64) float64
	// Base marks the slots of Keras's base optimizer (EMA averages,
	// gradient accumulators), which Keras saves before the optimizer's
	// own, one kind for all parameters at a time.
	Base bool
	// SavedLast marks a scalar Keras saves after all the slots (Nadam's
	// u_product, a variable Keras makes after them).
	SavedLast bool
	// Placeholder marks a slot Keras keeps but never updates and saves as
	// an int32 0 (Adafactor's row and column averages of a weight of rank
	// below 2): loading takes any number type and keeps Init, saving
	// writes an integer 0.
	Placeholder bool
	// Group numbers the optimizer's own slots by the Keras call that
	// makes them (see SavedPositions): slots of one group are saved
	// together per parameter (Adam's momentum and velocity), groups one
	// after another (AMSGrad's velocity_hat after them).
	Group int
}

// SavedPositions gives each state tensor's place among the slot
// variables Keras saves after the iteration count and the learning rate
// (-1 for one it does not save), and how many there are; scalars marked
// SavedLast come after the slots. Keras saves the
// slots one group at a time, a group being what one
// add_optimizer_variables call makes: the base optimizer's (each kind its
// own group: all parameters' averages, then all accumulators) first,
// then the optimizer's own groups in order; within a group, parameter by
// parameter, each parameter's slots together.
func SavedPositions(specs []StateSpec) (pos []int, count int) {
	type group struct {
		base bool
		id   int
	}
	groupOf := func(s StateSpec) group {
		if s.Base {
			return group{true, s.Slot}
		}
		return group{false, s.Group}
	}
	var order []group
	members := map[group][]int{} // the group's specs
	for i, s := range specs {
		if s.Param < 0 {
			continue
		}
		g := groupOf(s)
		if _, ok := members[g]; !ok {
			order = append(order, g)
		}
		members[g] = append(members[g], i)
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].base != order[j].base {
			return order[i].base
		}
		return order[i].id < order[j].id
	})
	pos = make([]int, len(specs))
	for _, g := range order {
		// Parameter by parameter, each one's slots together (a parameter
		// may have fewer slots than another: Muon's velocity).
		m := members[g]
		sort.SliceStable(m, func(a, b int) bool {
			if specs[m[a]].Param != specs[m[b]].Param {
				return specs[m[a]].Param < specs[m[b]].Param
			}
			return specs[m[a]].Slot < specs[m[b]].Slot
		})
		for _, i := range m {
			pos[i] = count
			count++
		}
	}
	for i, s := range specs {
		if s.Param < 0 {
			pos[i] = -1
			if s.SavedLast {
				pos[i] = count
				count++
			}
		}
	}
	return pos, count
}

// Optimizer updates parameters from their gradients.
type Optimizer interface {
	// Name is the Keras name, e.g. "adam".
	Name() string
	// State declares the state tensors for parameters of these shapes.
	State(params []backend.Shape) []StateSpec
	// Update returns the new parameters and state. Settings that may
	// change during training arrive in hp as inputs of the step.
	Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) (newParams, newState []backend.Value)
}

// Hyperparameters are the settings a training step reads as inputs rather
// than as constants compiled into it, so that callbacks and schedules can
// change them between steps without recompiling (Keras keeps them in
// variables for the same reason).
type Hyperparameters struct {
	LearningRate backend.Value // a scalar
	// Iteration is the optimizer's update count before this step (a
	// scalar), as Keras's optimizer.iterations (see Updates).
	Iteration backend.Value
	// ApplyUpdate is 1 on a step that updates the weights and 0 on one
	// that only accumulates gradients (GradientAccumulationSteps); always
	// 1 without accumulation. OverwriteWithEMA is 1 on a step whose
	// weights are replaced by their moving averages
	// (EMAOverwriteFrequency), else 0.
	ApplyUpdate, OverwriteWithEMA backend.Value
}

// Updates returns how many times the optimizer has updated the weights
// after iterations steps: iterations, or with GradientAccumulationSteps
// n, iterations / n. It is Keras's optimizer.iterations, which Adam's
// bias correction, the EMA and its overwrite frequency count; schedules
// count every step.
func Updates(o Optimizer, iterations int64) int64 {
	if l, ok := o.(*LossScaleOptimizer); ok {
		return Updates(l.Inner, iterations)
	}
	if r, ok := o.(rated); ok {
		if n := int64(r.Common().GradientAccumulationSteps); n > 1 {
			return iterations / n
		}
	}
	return iterations
}

// StepFlags returns the ApplyUpdate and OverwriteWithEMA values for the
// step that follows iterations steps.
func StepFlags(o Optimizer, iterations int64) (applyUpdate, overwrite float64) {
	if l, ok := o.(*LossScaleOptimizer); ok {
		return StepFlags(l.Inner, iterations)
	}
	applyUpdate = 1
	r, ok := o.(rated)
	if !ok {
		return 1, 0
	}
	opts := r.Common()
	if n := int64(opts.GradientAccumulationSteps); n > 1 && (iterations+1)%n != 0 {
		applyUpdate = 0
	}
	if f := int64(opts.EMAOverwriteFrequency); opts.UseEMA && f > 0 && (Updates(o, iterations)+1)%f == 0 {
		overwrite = 1
	}
	return applyUpdate, overwrite
}

// Options are the settings every Keras optimizer takes besides its
// learning rate (keras.optimizers.Optimizer's arguments). Every built-in
// optimizer embeds them; kerasgo applies them around the optimizer's own
// rule (see Apply), once for all optimizers. Zero means Keras's None
// (off), except for AdamW's WeightDecay (see AdamW).
type Options struct {
	// ClipNorm clips each gradient to this L2 norm; GlobalClipNorm clips
	// all gradients together to this global norm; ClipValue clips each
	// gradient element to [-ClipValue, ClipValue]. At most one may be set,
	// as in Keras.
	ClipNorm, GlobalClipNorm, ClipValue float64
	// WeightDecay decays every trainable weight by
	// weight * WeightDecay * learning rate before each update (decoupled
	// weight decay, as Keras 3 does for every optimizer).
	WeightDecay float64
	// UseEMA keeps an exponential moving average of every weight,
	// average = m*average + (1-m)*weight after each update with m =
	// EMAMomentum (default 0.99); Fit ends with the weights replaced by
	// their averages, and EMAOverwriteFrequency > 0 replaces them every
	// that many steps too (Keras's use_ema, ema_momentum,
	// ema_overwrite_frequency).
	UseEMA                bool
	EMAMomentum           float64
	EMAOverwriteFrequency int
	// GradientAccumulationSteps > 1 adds up the gradients of that many
	// steps and updates the weights with their mean every that many steps
	// (Keras's gradient_accumulation_steps).
	GradientAccumulationSteps int

	// exact is set by the New... constructors: every field holds its
	// value as given, zeros included, instead of zero meaning Keras's
	// default.
	exact bool
}

// Common returns the options; every built-in optimizer has them by
// embedding Options.
func (o *Options) Common() *Options { return o }

// or returns v, or def when v is zero and the optimizer was written as a
// struct literal (zero meaning Keras's default).
func (o *Options) or(v, def float64) float64 {
	if v == 0 && !o.exact {
		return def
	}
	return v
}

// resolveAdamLike writes Keras's defaults for the Adam family's betas and
// epsilon (0.9, 0.999, 1e-7) into unset fields.
func (o *Options) resolveAdamLike(beta1, beta2, epsilon *float64) {
	*beta1, *beta2, *epsilon = o.or(*beta1, 0.9), o.or(*beta2, 0.999), o.or(*epsilon, 1e-7)
}

// check reports options Keras rejects.
func (o *Options) check(name string) error {
	set := 0
	for _, f := range []struct {
		name string
		v    float64
	}{{"ClipNorm", o.ClipNorm}, {"GlobalClipNorm", o.GlobalClipNorm}, {"ClipValue", o.ClipValue}, {"WeightDecay", o.WeightDecay}} {
		if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("optimizer %s: %s must be a finite number >= 0, got %v", name, f.name, f.v)
		}
		if f.name != "WeightDecay" && f.v > 0 {
			set++
		}
	}
	if set > 1 {
		return fmt.Errorf("optimizer %s: only one of ClipNorm, GlobalClipNorm and ClipValue can be set, as in Keras", name)
	}
	if o.EMAMomentum < 0 || o.EMAMomentum > 1 {
		return fmt.Errorf("optimizer %s: EMAMomentum must be in [0, 1], got %v", name, o.EMAMomentum)
	}
	if o.EMAOverwriteFrequency < 0 || o.GradientAccumulationSteps < 0 {
		return fmt.Errorf("optimizer %s: EMAOverwriteFrequency and GradientAccumulationSteps must be >= 0", name)
	}
	return nil
}

// emaMomentum is EMAMomentum with Keras's default, 0.99.
func (o *Options) emaMomentum() float64 {
	if o.EMAMomentum == 0 && !o.exact {
		return 0.99
	}
	return o.EMAMomentum
}

// States declares the state tensors an optimizer needs for parameters of
// these shapes: the base optimizer's (EMA averages, gradient
// accumulators) first, as Keras creates them, then the optimizer's own.
func States(o Optimizer, params []backend.Shape) []StateSpec {
	var out []StateSpec
	if r, ok := o.(rated); ok {
		opts := r.Common()
		base := 0
		add := func(name string) {
			for i, p := range params {
				out = append(out, StateSpec{Name: fmt.Sprintf("%s_%d", name, i), Shape: p.Clone(), Param: i, Slot: base, Base: true})
			}
			base++
		}
		if opts.UseEMA {
			add("average")
		}
		if opts.GradientAccumulationSteps > 1 {
			add("gradient_accumulator")
		}
	}
	return append(out, o.State(params)...)
}

// rated is a built-in optimizer: its learning rate and schedule fields.
type rated interface {
	Optimizer
	Common() *Options
	rate() (lr *float64, schedule *schedules.LearningRateSchedule, def float64)
	resolve() // writes Keras's defaults into unset fields
}

// Get returns the optimizer a Keras name denotes, with Keras's defaults:
// its name ("adam") or its class name ("Adam"), as Keras accepts both.
func Get(name string) (Optimizer, error) {
	switch name {
	case "sgd", "SGD":
		return &SGD{}, nil
	case "adam", "Adam":
		return &Adam{}, nil
	case "adamw", "AdamW":
		return &AdamW{}, nil
	case "rmsprop", "RMSprop":
		return &RMSprop{}, nil
	case "adadelta", "Adadelta":
		return &Adadelta{}, nil
	case "adagrad", "Adagrad":
		return &Adagrad{}, nil
	case "adamax", "Adamax":
		return &Adamax{}, nil
	case "nadam", "Nadam":
		return &Nadam{}, nil
	case "lion", "Lion":
		return &Lion{}, nil
	case "ftrl", "Ftrl":
		return &Ftrl{}, nil
	case "lamb", "Lamb":
		return &Lamb{}, nil
	case "adafactor", "Adafactor":
		return &Adafactor{}, nil
	case "schedulefreeadamw", "schedule_free_adamw", "ScheduleFreeAdamW":
		return &ScheduleFreeAdamW{}, nil
	case "muon", "Muon":
		return &Muon{}, nil
	}
	return nil, fmt.Errorf("unknown optimizer %q: use sgd, adam, adamw, rmsprop, adadelta, adagrad, adamax, nadam, lion, ftrl, lamb, adafactor, schedulefreeadamw or muon (or pass an optimizers.Optimizer)", name)
}

func slots(params []backend.Shape, names ...string) []StateSpec {
	return groupSlots(params, 0, 0, names...)
}

// groupSlots declares slots numbered from first, made by one Keras call
// (see StateSpec.Group).
func groupSlots(params []backend.Shape, group, first int, names ...string) []StateSpec {
	var out []StateSpec
	for k, n := range names {
		for i, p := range params {
			out = append(out, StateSpec{Name: fmt.Sprintf("%s_%d", n, i), Shape: p.Clone(), Param: i, Slot: first + k, Group: group})
		}
	}
	return out
}

// power declares the scalar base^t, which the step keeps by multiplying
// it by base each update, in float32. A load recomputes it from the
// iteration count the same way (not as math.Pow, which differs from the
// float32 product in its last bits), so that a run resumed from a file or
// a backup continues bit for bit where the uninterrupted run would be.
func power(name string, base float64) StateSpec {
	return StateSpec{Name: name, Shape: backend.Shape{}, Init: 1, Param: -1,
		FromIterations: func(t int64) float64 { return float64(float32Power(float32(base), t)) }}
}

// float32Power is base^t as t float32 multiplications make it, stopping
// early once the product no longer changes (it reaches 0, or base is 1).
func float32Power(base float32, t int64) float32 {
	p := float32(1)
	for range t {
		next := p * base
		if next == p {
			break
		}
		p = next
	}
	return p
}
