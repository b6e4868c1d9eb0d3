package schedules_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
)

// The expected rates are worked out by hand from the formulas in Keras 3's
// learning_rate_schedule.py docstrings.
func TestRates(t *testing.T) {
	cases := []struct {
		name string
		s    schedules.LearningRateSchedule
		step int64
		want float64
	}{
		{"exponential/0", schedules.ExponentialDecay{InitialLearningRate: 0.1, DecaySteps: 100, DecayRate: 0.96}, 0, 0.1},
		{"exponential/100", schedules.ExponentialDecay{InitialLearningRate: 0.1, DecaySteps: 100, DecayRate: 0.96}, 100, 0.096},
		{"exponential/50", schedules.ExponentialDecay{InitialLearningRate: 0.1, DecaySteps: 100, DecayRate: 0.96}, 50, 0.1 * math.Sqrt(0.96)},
		{"exponentialStaircase/150", schedules.ExponentialDecay{InitialLearningRate: 0.1, DecaySteps: 100, DecayRate: 0.96, Staircase: true}, 150, 0.096},
		{"inverseTime/20", schedules.InverseTimeDecay{InitialLearningRate: 0.1, DecaySteps: 10, DecayRate: 0.5}, 20, 0.05},
		{"inverseTimeStaircase/15", schedules.InverseTimeDecay{InitialLearningRate: 0.1, DecaySteps: 10, DecayRate: 0.5, Staircase: true}, 15, 0.1 / 1.5},
		{"piecewise/10", schedules.PiecewiseConstantDecay{Boundaries: []int64{10, 20}, Values: []float64{1, 0.5, 0.1}}, 10, 1},
		{"piecewise/11", schedules.PiecewiseConstantDecay{Boundaries: []int64{10, 20}, Values: []float64{1, 0.5, 0.1}}, 11, 0.5},
		{"piecewise/20", schedules.PiecewiseConstantDecay{Boundaries: []int64{10, 20}, Values: []float64{1, 0.5, 0.1}}, 20, 0.5},
		{"piecewise/21", schedules.PiecewiseConstantDecay{Boundaries: []int64{10, 20}, Values: []float64{1, 0.5, 0.1}}, 21, 0.1},
		{"polynomial/50", schedules.PolynomialDecay{InitialLearningRate: 0.1, DecaySteps: 100, EndLearningRate: 0.01}, 50, 0.055},
		{"polynomial/200", schedules.PolynomialDecay{InitialLearningRate: 0.1, DecaySteps: 100, EndLearningRate: 0.01}, 200, 0.01},
		{"polynomialDefaultEnd/100", schedules.PolynomialDecay{InitialLearningRate: 0.1, DecaySteps: 100}, 100, 1e-4},
		{"polynomialSquare/50", schedules.PolynomialDecay{InitialLearningRate: 0.1, DecaySteps: 100, EndLearningRate: 0.01, Power: 2}, 50, 0.09*0.25 + 0.01},
		{"polynomialCycle/150", schedules.PolynomialDecay{InitialLearningRate: 0.1, DecaySteps: 100, EndLearningRate: 0.01, Cycle: true}, 150, 0.09*0.25 + 0.01},
		{"polynomialExactZeroEnd/100", schedules.NewPolynomialDecay(0.1, 100, 0, 1, false), 100, 0},
		{"cosine/5", schedules.CosineDecay{InitialLearningRate: 1, DecaySteps: 10}, 5, 0.5},
		{"cosine/20", schedules.CosineDecay{InitialLearningRate: 1, DecaySteps: 10}, 20, 0},
		{"cosineAlpha/10", schedules.CosineDecay{InitialLearningRate: 1, DecaySteps: 10, Alpha: 0.1}, 10, 0.1},
		{"cosineWarmup/5", schedules.CosineDecay{DecaySteps: 10, WarmupTarget: 1, WarmupSteps: 10}, 5, 0.5},
		{"cosineWarmup/10", schedules.CosineDecay{DecaySteps: 10, WarmupTarget: 1, WarmupSteps: 10}, 10, 1},
		{"cosineWarmup/15", schedules.CosineDecay{DecaySteps: 10, WarmupTarget: 1, WarmupSteps: 10}, 15, 0.5},
		{"cosineWarmup/100", schedules.CosineDecay{DecaySteps: 10, WarmupTarget: 1, WarmupSteps: 10}, 100, 0},
		{"restarts/5", schedules.CosineDecayRestarts{InitialLearningRate: 1, FirstDecaySteps: 10, MMul: 0.5}, 5, 0.5},
		{"restarts/10", schedules.CosineDecayRestarts{InitialLearningRate: 1, FirstDecaySteps: 10, MMul: 0.5}, 10, 0.5},
		{"restarts/20", schedules.CosineDecayRestarts{InitialLearningRate: 1, FirstDecaySteps: 10, MMul: 0.5}, 20, 0.25},
		{"restarts/30", schedules.CosineDecayRestarts{InitialLearningRate: 1, FirstDecaySteps: 10, MMul: 0.5}, 30, 0.25},
		{"restartsEqualPeriods/15", schedules.CosineDecayRestarts{InitialLearningRate: 1, FirstDecaySteps: 10, TMul: 1}, 15, 0.5},
		{"func", schedules.Func(func(step int64) float64 { return float64(step) / 10 }), 3, 0.3},
	}
	for _, c := range cases {
		if err := c.s.Check(); err != nil {
			t.Errorf("%s: Check: %v", c.name, err)
		}
		if got := c.s.Rate(c.step); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: Rate(%d) = %v, want %v", c.name, c.step, got, c.want)
		}
	}
}

func TestCheckNamesTheSetting(t *testing.T) {
	for _, c := range []struct {
		s    schedules.LearningRateSchedule
		want string
	}{
		{schedules.ExponentialDecay{InitialLearningRate: 0.1, DecayRate: 0.9}, "ExponentialDecay.DecaySteps must be positive"},
		{schedules.CosineDecay{InitialLearningRate: 0.1, DecaySteps: -1}, "CosineDecay.DecaySteps must be positive"},
		{schedules.PiecewiseConstantDecay{Boundaries: []int64{1, 2}, Values: []float64{1}}, "one more value than boundaries"},
		{schedules.PiecewiseConstantDecay{Boundaries: []int64{5, 2}, Values: []float64{1, 2, 3}}, "must increase"},
		{schedules.Func(nil), "nil"},
	} {
		if err := c.s.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%#v: Check() = %v, want an error containing %q", c.s, err, c.want)
		}
	}
}

// Every built-in schedule survives Keras's JSON schema (as saved in a
// .keras file's compile_config) with the same rates.
func TestSerializeRoundTrip(t *testing.T) {
	for _, s := range []schedules.LearningRateSchedule{
		schedules.ExponentialDecay{InitialLearningRate: 0.1, DecaySteps: 100, DecayRate: 0.96, Staircase: true},
		schedules.InverseTimeDecay{InitialLearningRate: 0.1, DecaySteps: 10, DecayRate: 0.5},
		schedules.PiecewiseConstantDecay{Boundaries: []int64{10, 20}, Values: []float64{1, 0.5, 0.1}},
		schedules.PolynomialDecay{InitialLearningRate: 0.1, DecaySteps: 100, Power: 2, Cycle: true},
		schedules.CosineDecay{InitialLearningRate: 0.01, DecaySteps: 10, Alpha: 0.1, WarmupTarget: 1, WarmupSteps: 5},
		schedules.CosineDecayRestarts{InitialLearningRate: 1, FirstDecaySteps: 10, MMul: 0.5},
	} {
		obj, err := schedules.Serialize(s)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(obj)
		var decoded map[string]any
		if err := json.Unmarshal(data, &decoded); err != nil {
			t.Fatal(err)
		}
		back, err := schedules.Deserialize(decoded)
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		for _, step := range []int64{0, 3, 7, 12, 25, 160} {
			if a, b := s.Rate(step), back.Rate(step); math.Abs(a-b) > 1e-12 {
				t.Errorf("%s: step %d: %v before saving, %v after", obj.ClassName, step, a, b)
			}
		}
	}
	if _, err := schedules.Serialize(schedules.Func(func(int64) float64 { return 1 })); err == nil {
		t.Error("a Go function schedule was serialized")
	}
	if _, err := schedules.Deserialize(map[string]any{"class_name": "NoSuchDecay", "config": map[string]any{}}); err == nil || !strings.Contains(err.Error(), "unknown learning-rate schedule") {
		t.Errorf("unknown class: %v", err)
	}
}
