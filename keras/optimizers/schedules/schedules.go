package schedules

import (
	"errors"
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/serialization"
)

// LearningRateSchedule gives the learning rate of a training step, like
// keras.optimizers.schedules.LearningRateSchedule.
type LearningRateSchedule interface {
	// Rate returns the learning rate of the step whose optimizer
	// iteration count is step (0 for the first step).
	Rate(step int64) float64
	// Check reports settings that make no schedule (a non-positive
	// number of decay steps, ...), naming them.
	Check() error
}

// Func is a schedule given as a Go function (Keras accepts any callable).
// It cannot be saved in a .keras file: use a built-in schedule for that.
type Func func(step int64) float64

// Rate calls f.
func (f Func) Rate(step int64) float64 { return f(step) }

// Check reports a nil function.
func (f Func) Check() error {
	if f == nil {
		return errors.New("schedules.Func is nil")
	}
	return nil
}

func positive(schedule, field string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%s.%s must be positive, got %v", schedule, field, v)
	}
	return nil
}

// ExponentialDecay multiplies the rate by DecayRate every DecaySteps steps:
// InitialLearningRate * DecayRate^(step/DecaySteps), the exponent rounded
// down when Staircase is set.
type ExponentialDecay struct {
	InitialLearningRate float64
	DecaySteps          float64
	DecayRate           float64
	Staircase           bool
}

// Rate implements LearningRateSchedule.
func (s ExponentialDecay) Rate(step int64) float64 {
	p := float64(step) / s.DecaySteps
	if s.Staircase {
		p = math.Floor(p)
	}
	return s.InitialLearningRate * math.Pow(s.DecayRate, p)
}

// Check implements LearningRateSchedule.
func (s ExponentialDecay) Check() error {
	return positive("ExponentialDecay", "DecaySteps", s.DecaySteps)
}

// InverseTimeDecay gives InitialLearningRate / (1 + DecayRate *
// step/DecaySteps), the fraction rounded down when Staircase is set.
type InverseTimeDecay struct {
	InitialLearningRate float64
	DecaySteps          float64
	DecayRate           float64
	Staircase           bool
}

// Rate implements LearningRateSchedule.
func (s InverseTimeDecay) Rate(step int64) float64 {
	p := float64(step) / s.DecaySteps
	if s.Staircase {
		p = math.Floor(p)
	}
	return s.InitialLearningRate / (1 + s.DecayRate*p)
}

// Check implements LearningRateSchedule.
func (s InverseTimeDecay) Check() error {
	return positive("InverseTimeDecay", "DecaySteps", s.DecaySteps)
}

// PiecewiseConstantDecay gives Values[0] up to and including step
// Boundaries[0], Values[1] up to Boundaries[1], ..., and the last value
// after the last boundary.
type PiecewiseConstantDecay struct {
	Boundaries []int64
	Values     []float64
}

// Rate implements LearningRateSchedule.
func (s PiecewiseConstantDecay) Rate(step int64) float64 {
	for i, b := range s.Boundaries {
		if step <= b {
			return s.Values[i]
		}
	}
	return s.Values[len(s.Values)-1]
}

// Check implements LearningRateSchedule.
func (s PiecewiseConstantDecay) Check() error {
	if len(s.Values) != len(s.Boundaries)+1 {
		return fmt.Errorf("PiecewiseConstantDecay needs one more value than boundaries, got %d boundaries and %d values", len(s.Boundaries), len(s.Values))
	}
	for i := 1; i < len(s.Boundaries); i++ {
		if s.Boundaries[i] <= s.Boundaries[i-1] {
			return fmt.Errorf("PiecewiseConstantDecay.Boundaries must increase, got %v", s.Boundaries)
		}
	}
	return nil
}

// PolynomialDecay goes from InitialLearningRate to EndLearningRate over
// DecaySteps steps along (1 - step/DecaySteps)^Power, then stays there; with
// Cycle it starts over, each cycle DecaySteps longer. Zero EndLearningRate
// and Power mean Keras's defaults, 1e-4 and 1 (see NewPolynomialDecay for
// exact zeros).
type PolynomialDecay struct {
	InitialLearningRate float64
	DecaySteps          float64
	EndLearningRate     float64
	Power               float64
	Cycle               bool
	exact               bool
}

// NewPolynomialDecay returns the schedule with every setting as given,
// zeros included.
func NewPolynomialDecay(initial, decaySteps, end, power float64, cycle bool) PolynomialDecay {
	return PolynomialDecay{InitialLearningRate: initial, DecaySteps: decaySteps, EndLearningRate: end, Power: power, Cycle: cycle, exact: true}
}

func (s PolynomialDecay) resolved() (end, power float64) {
	if s.exact {
		return s.EndLearningRate, s.Power
	}
	end, power = s.EndLearningRate, s.Power
	if end == 0 {
		end = 1e-4
	}
	if power == 0 {
		power = 1
	}
	return end, power
}

// Rate implements LearningRateSchedule.
func (s PolynomialDecay) Rate(step int64) float64 {
	end, power := s.resolved()
	x, steps := float64(step), s.DecaySteps
	if s.Cycle {
		if step > 0 {
			steps *= math.Ceil(x / steps)
		}
	} else {
		x = math.Min(x, steps)
	}
	return (s.InitialLearningRate-end)*math.Pow(1-x/steps, power) + end
}

// Check implements LearningRateSchedule.
func (s PolynomialDecay) Check() error {
	return positive("PolynomialDecay", "DecaySteps", s.DecaySteps)
}

// CosineDecay follows half a cosine from InitialLearningRate down to
// Alpha*InitialLearningRate over DecaySteps steps. With WarmupSteps, it
// first rises linearly from InitialLearningRate to WarmupTarget over
// WarmupSteps steps, then decays from WarmupTarget (Keras's warmup_target;
// WarmupSteps 0 means no warmup, and WarmupTarget is then ignored).
type CosineDecay struct {
	InitialLearningRate float64
	DecaySteps          float64
	Alpha               float64
	WarmupTarget        float64
	WarmupSteps         float64
}

// Rate implements LearningRateSchedule.
func (s CosineDecay) Rate(step int64) float64 {
	x := float64(step)
	decay := func(x, from float64) float64 {
		cos := 0.5 * (1 + math.Cos(math.Pi*x/s.DecaySteps))
		return from * ((1-s.Alpha)*cos + s.Alpha)
	}
	if s.WarmupSteps == 0 {
		return decay(math.Min(x, s.DecaySteps), s.InitialLearningRate)
	}
	x = math.Min(x, s.DecaySteps+s.WarmupSteps)
	if x < s.WarmupSteps {
		return (s.WarmupTarget-s.InitialLearningRate)*x/s.WarmupSteps + s.InitialLearningRate
	}
	return decay(x-s.WarmupSteps, s.WarmupTarget)
}

// Check implements LearningRateSchedule.
func (s CosineDecay) Check() error {
	if s.WarmupSteps < 0 {
		return fmt.Errorf("CosineDecay.WarmupSteps must be 0 or more, got %v", s.WarmupSteps)
	}
	return positive("CosineDecay", "DecaySteps", s.DecaySteps)
}

// CosineDecayRestarts is SGDR (Loshchilov and Hutter): cosine decay over
// FirstDecaySteps steps, then a restart; each period is TMul times longer
// than the last and starts at MMul times the last period's initial rate.
// Zero TMul and MMul mean Keras's defaults, 2 and 1 (MMul 0 would never
// restart: use NewCosineDecayRestarts for an exact 0).
type CosineDecayRestarts struct {
	InitialLearningRate float64
	FirstDecaySteps     float64
	TMul                float64
	MMul                float64
	Alpha               float64
	exact               bool
}

// NewCosineDecayRestarts returns the schedule with every setting as
// given, zeros included.
func NewCosineDecayRestarts(initial, firstDecaySteps, tMul, mMul, alpha float64) CosineDecayRestarts {
	return CosineDecayRestarts{InitialLearningRate: initial, FirstDecaySteps: firstDecaySteps, TMul: tMul, MMul: mMul, Alpha: alpha, exact: true}
}

func (s CosineDecayRestarts) resolved() (tMul, mMul float64) {
	tMul, mMul = s.TMul, s.MMul
	if !s.exact {
		if tMul == 0 {
			tMul = 2
		}
		if mMul == 0 {
			mMul = 1
		}
	}
	return tMul, mMul
}

// Rate implements LearningRateSchedule.
func (s CosineDecayRestarts) Rate(step int64) float64 {
	tMul, mMul := s.resolved()
	frac := float64(step) / s.FirstDecaySteps
	var restart float64
	if tMul == 1 {
		restart = math.Floor(frac)
		frac -= restart
	} else {
		restart = math.Floor(math.Log(1-frac*(1-tMul)) / math.Log(tMul))
		sum := (1 - math.Pow(tMul, restart)) / (1 - tMul)
		frac = (frac - sum) / math.Pow(tMul, restart)
	}
	cos := 0.5 * math.Pow(mMul, restart) * (1 + math.Cos(math.Pi*frac))
	return s.InitialLearningRate * ((1-s.Alpha)*cos + s.Alpha)
}

// Check implements LearningRateSchedule.
func (s CosineDecayRestarts) Check() error {
	if tMul, _ := s.resolved(); !(tMul > 0) {
		return fmt.Errorf("CosineDecayRestarts.TMul must be positive, got %v", tMul)
	}
	return positive("CosineDecayRestarts", "FirstDecaySteps", s.FirstDecaySteps)
}

// Serialize returns a built-in schedule in Keras's schema, as an
// optimizer's learning_rate holds it.
func Serialize(s LearningRateSchedule) (serialization.Object, error) {
	var class string
	var cfg serialization.Config
	switch v := s.(type) {
	case ExponentialDecay:
		class, cfg = "ExponentialDecay", serialization.Config{"initial_learning_rate": v.InitialLearningRate, "decay_steps": v.DecaySteps, "decay_rate": v.DecayRate, "staircase": v.Staircase, "name": "ExponentialDecay"}
	case InverseTimeDecay:
		class, cfg = "InverseTimeDecay", serialization.Config{"initial_learning_rate": v.InitialLearningRate, "decay_steps": v.DecaySteps, "decay_rate": v.DecayRate, "staircase": v.Staircase, "name": "InverseTimeDecay"}
	case PiecewiseConstantDecay:
		bounds := make([]any, len(v.Boundaries))
		for i, b := range v.Boundaries {
			bounds[i] = b
		}
		values := make([]any, len(v.Values))
		for i, x := range v.Values {
			values[i] = serialization.Float(x)
		}
		class, cfg = "PiecewiseConstantDecay", serialization.Config{"boundaries": bounds, "values": values, "name": "PiecewiseConstant"}
	case PolynomialDecay:
		end, power := v.resolved()
		class, cfg = "PolynomialDecay", serialization.Config{"initial_learning_rate": v.InitialLearningRate, "decay_steps": v.DecaySteps, "end_learning_rate": end, "power": power, "cycle": v.Cycle, "name": "PolynomialDecay"}
	case CosineDecay:
		var target any
		if v.WarmupSteps != 0 {
			target = v.WarmupTarget
		}
		class, cfg = "CosineDecay", serialization.Config{"initial_learning_rate": v.InitialLearningRate, "decay_steps": v.DecaySteps, "alpha": v.Alpha, "warmup_target": target, "warmup_steps": v.WarmupSteps, "name": "CosineDecay"}
	case CosineDecayRestarts:
		tMul, mMul := v.resolved()
		class, cfg = "CosineDecayRestarts", serialization.Config{"initial_learning_rate": v.InitialLearningRate, "first_decay_steps": v.FirstDecaySteps, "t_mul": tMul, "m_mul": mMul, "alpha": v.Alpha, "name": "SGDRDecay"}
	default:
		return serialization.Object{}, fmt.Errorf("learning-rate schedule %T cannot be saved in Keras's format: use one of package schedules' types", s)
	}
	// Rates are written as floats: Keras computes a schedule in the dtype
	// of its initial_learning_rate, so a 0 written as an int would make it
	// integer arithmetic. Step counts keep Go's form, as Keras's do.
	for _, k := range []string{"initial_learning_rate", "decay_rate", "end_learning_rate", "power", "alpha", "warmup_target", "t_mul", "m_mul"} {
		if f, ok := cfg[k].(float64); ok {
			cfg[k] = serialization.Float(f)
		}
	}
	return serialization.NewObject("keras.optimizers.schedules", class, cfg), nil
}

// Deserialize builds a schedule from Keras's schema.
func Deserialize(v any) (LearningRateSchedule, error) {
	class, cfg, ok := serialization.ClassOrName(v)
	if !ok || cfg == nil {
		return nil, fmt.Errorf("cannot read learning-rate schedule %v", v)
	}
	r := serialization.NewReader("learning-rate schedule "+class, cfg)
	r.Ignore("name")
	var s LearningRateSchedule
	switch class {
	case "ExponentialDecay":
		s = ExponentialDecay{InitialLearningRate: r.Float("initial_learning_rate", 0), DecaySteps: r.Float("decay_steps", 0), DecayRate: r.Float("decay_rate", 0), Staircase: r.Bool("staircase", false)}
	case "InverseTimeDecay":
		s = InverseTimeDecay{InitialLearningRate: r.Float("initial_learning_rate", 0), DecaySteps: r.Float("decay_steps", 0), DecayRate: r.Float("decay_rate", 0), Staircase: r.Bool("staircase", false)}
	case "PiecewiseConstantDecay":
		bounds := r.Floats("boundaries")
		p := PiecewiseConstantDecay{Values: r.Floats("values")}
		for _, b := range bounds {
			p.Boundaries = append(p.Boundaries, int64(math.Ceil(b)))
		}
		s = p
	case "PolynomialDecay":
		s = NewPolynomialDecay(r.Float("initial_learning_rate", 0), r.Float("decay_steps", 0), r.Float("end_learning_rate", 1e-4), r.Float("power", 1), r.Bool("cycle", false))
	case "CosineDecay":
		c := CosineDecay{InitialLearningRate: r.Float("initial_learning_rate", 0), DecaySteps: r.Float("decay_steps", 0), Alpha: r.Float("alpha", 0), WarmupSteps: r.Float("warmup_steps", 0)}
		if t, ok := r.Value("warmup_target"); ok && t != nil {
			c.WarmupTarget = r.Float("warmup_target", 0)
		} else {
			c.WarmupSteps = 0 // Keras skips the warmup without a target
		}
		s = c
	case "CosineDecayRestarts":
		s = NewCosineDecayRestarts(r.Float("initial_learning_rate", 0), r.Float("first_decay_steps", 0), r.Float("t_mul", 2), r.Float("m_mul", 1), r.Float("alpha", 0))
	default:
		return nil, fmt.Errorf("unknown learning-rate schedule %q: kerasgo has ExponentialDecay, InverseTimeDecay, PiecewiseConstantDecay, PolynomialDecay, CosineDecay and CosineDecayRestarts", class)
	}
	if err := r.Finish(); err != nil {
		return nil, err
	}
	return s, s.Check()
}
