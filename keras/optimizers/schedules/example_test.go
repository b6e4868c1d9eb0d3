package schedules_test

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
)

// A linear warmup to 0.1 over 4 steps, then a cosine decay over 8 steps
// to a tenth of it: the rate of each step, as training would use it.
func ExampleCosineDecay() {
	s := schedules.CosineDecay{InitialLearningRate: 0, WarmupTarget: 0.1, WarmupSteps: 4, DecaySteps: 8, Alpha: 0.1}
	for step := int64(0); step <= 12; step += 2 {
		fmt.Printf("step %2d: %.4f\n", step, s.Rate(step))
	}
	// Output:
	// step  0: 0.0000
	// step  2: 0.0500
	// step  4: 0.1000
	// step  6: 0.0868
	// step  8: 0.0550
	// step 10: 0.0232
	// step 12: 0.0100
}

// An optimizer follows a schedule given in its Schedule field.
func ExampleExponentialDecay() {
	opt := &optimizers.SGD{Momentum: 0.9, Schedule: schedules.ExponentialDecay{
		InitialLearningRate: 0.1, DecaySteps: 1000, DecayRate: 0.5, Staircase: true}}
	for _, step := range []int64{0, 999, 1000, 2500} {
		fmt.Printf("step %4d: %g\n", step, optimizers.RateAt(opt, step))
	}
	// Output:
	// step    0: 0.1
	// step  999: 0.1
	// step 1000: 0.05
	// step 2500: 0.025
}
