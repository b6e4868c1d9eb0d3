package optimizers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
)

// Adagrad scales each step by the root of the parameter's accumulated
// squared gradients, keras.optimizers.Adagrad.
type Adagrad struct {
	LearningRate float64 // default 0.001
	// Schedule, when set, gives the learning rate of every step instead
	// of LearningRate.
	Schedule                schedules.LearningRateSchedule
	InitialAccumulatorValue float64 // default 0.1
	Epsilon                 float64 // default 1e-7
	Options
}

// NewAdagrad returns Adagrad with every setting as given, zeros included.
func NewAdagrad(learningRate, initialAccumulatorValue, epsilon float64) *Adagrad {
	return &Adagrad{LearningRate: learningRate, InitialAccumulatorValue: initialAccumulatorValue, Epsilon: epsilon, Options: Options{exact: true}}
}

// Name returns "adagrad".
func (*Adagrad) Name() string { return "adagrad" }

func (o *Adagrad) rate() (*float64, *schedules.LearningRateSchedule, float64) {
	return &o.LearningRate, &o.Schedule, 0.001
}

func (o *Adagrad) resolve() {
	o.InitialAccumulatorValue, o.Epsilon = o.or(o.InitialAccumulatorValue, 0.1), o.or(o.Epsilon, 1e-7)
}

// State declares one accumulator per parameter, starting at
// InitialAccumulatorValue.
func (o *Adagrad) State(params []backend.Shape) []StateSpec {
	s := slots(params, "accumulator")
	for i := range s {
		s[i].Init = o.or(o.InitialAccumulatorValue, 0.1)
	}
	return s
}

// Update implements Keras 3's rule: acc += g²; p -= lr*g/sqrt(acc+eps).
func (o *Adagrad) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	eps := b.Scalar(o.or(o.Epsilon, 1e-7))
	newP := make([]backend.Value, len(params))
	newS := make([]backend.Value, len(state))
	for i, p := range params {
		acc := b.Add(state[i], b.Square(grads[i]))
		newS[i] = acc
		newP[i] = b.Sub(p, b.Div(b.Mul(grads[i], hp.LearningRate), b.Sqrt(b.Add(acc, eps))))
	}
	return newP, newS
}
