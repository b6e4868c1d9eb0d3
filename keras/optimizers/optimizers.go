package optimizers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
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
	// PowerOf, when not zero, says the tensor is a scalar equal to
	// PowerOf^iterations (Adam's beta1^t): Keras does not save it, and
	// loading recomputes it from the saved iteration count.
	PowerOf float64
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
}

// Get returns the optimizer a Keras name denotes, with Keras's defaults:
// its name ("adam") or its class name ("Adam"), as Keras accepts both.
func Get(name string) (Optimizer, error) {
	switch name {
	case "sgd", "SGD":
		return &SGD{}, nil
	case "adam", "Adam":
		return &Adam{}, nil
	case "rmsprop", "RMSprop":
		return &RMSprop{}, nil
	case "adadelta", "Adadelta":
		return &Adadelta{}, nil
	}
	return nil, fmt.Errorf("unknown optimizer %q: use sgd, adam, rmsprop or adadelta (or pass an optimizers.Optimizer)", name)
}

func or(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

func slots(params []backend.Shape, names ...string) []StateSpec {
	var out []StateSpec
	for slot, n := range names {
		for i, p := range params {
			out = append(out, StateSpec{Name: fmt.Sprintf("%s_%d", n, i), Shape: p.Clone(), Param: i, Slot: slot})
		}
	}
	return out
}

// SGD is gradient descent with optional momentum and Nesterov momentum.
type SGD struct {
	LearningRate float64 // default 0.01
	Momentum     float64 // default 0
	Nesterov     bool
}

// Name returns "sgd".
func (*SGD) Name() string { return "sgd" }

// State declares one velocity per parameter when Momentum > 0.
func (o *SGD) State(params []backend.Shape) []StateSpec {
	if o.Momentum == 0 {
		return nil
	}
	return slots(params, "momentum")
}

// Update implements Keras 3's rule: v = momentum*v - lr*g; then
// p += v, or p += momentum*v - lr*g with Nesterov.
func (o *SGD) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	lr := hp.LearningRate
	newP := make([]backend.Value, len(params))
	newS := make([]backend.Value, len(state))
	for i, p := range params {
		step := b.Mul(grads[i], lr)
		if o.Momentum == 0 {
			newP[i] = b.Sub(p, step)
			continue
		}
		m := b.Scalar(o.Momentum)
		v := b.Sub(b.Mul(state[i], m), step)
		newS[i] = v
		if o.Nesterov {
			newP[i] = b.Add(p, b.Sub(b.Mul(v, m), step))
		} else {
			newP[i] = b.Add(p, v)
		}
	}
	return newP, newS
}

// Adam is Kingma and Ba's optimizer with Keras's defaults.
type Adam struct {
	LearningRate float64 // default 0.001
	Beta1        float64 // default 0.9
	Beta2        float64 // default 0.999
	Epsilon      float64 // default 1e-7
}

// Name returns "adam".
func (*Adam) Name() string { return "adam" }

// State declares beta1^t and beta2^t (scalars, starting at 1) and the first
// and second moments of every parameter.
func (o *Adam) State(params []backend.Shape) []StateSpec {
	powers := []StateSpec{
		{Name: "beta1_power", Shape: backend.Shape{}, Init: 1, Param: -1, PowerOf: or(o.Beta1, 0.9)},
		{Name: "beta2_power", Shape: backend.Shape{}, Init: 1, Param: -1, PowerOf: or(o.Beta2, 0.999)},
	}
	return append(powers, slots(params, "m", "v")...)
}

// Update implements Keras 3's rule:
// alpha = lr*sqrt(1-beta2^t)/(1-beta1^t); m += (g-m)(1-beta1);
// v += (g²-v)(1-beta2); p -= alpha*m/(sqrt(v)+eps).
func (o *Adam) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	b1, b2 := or(o.Beta1, 0.9), or(o.Beta2, 0.999)
	n := len(params)
	b1p := b.Mul(state[0], b.Scalar(b1))
	b2p := b.Mul(state[1], b.Scalar(b2))
	one := b.Scalar(1)
	alpha := b.Div(b.Mul(hp.LearningRate, b.Sqrt(b.Sub(one, b2p))), b.Sub(one, b1p))
	eps := or(o.Epsilon, 1e-7)
	newP := make([]backend.Value, n)
	newS := make([]backend.Value, len(state))
	newS[0], newS[1] = b1p, b2p
	for i, p := range params {
		newP[i], newS[2+i], newS[2+n+i] = b.AdamUpdate(p, grads[i], state[2+i], state[2+n+i], alpha, b1, b2, eps)
	}
	return newP, newS
}

// RMSprop divides the gradient by a running root mean square.
type RMSprop struct {
	LearningRate float64 // default 0.001
	Rho          float64 // default 0.9
	Epsilon      float64 // default 1e-7
}

// Name returns "rmsprop".
func (*RMSprop) Name() string { return "rmsprop" }

// State declares one running mean square per parameter.
func (o *RMSprop) State(params []backend.Shape) []StateSpec { return slots(params, "velocity") }

// Update implements Keras 3's rule: v = rho*v + (1-rho)*g²;
// p -= lr*g/sqrt(v+eps).
func (o *RMSprop) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	rho := or(o.Rho, 0.9)
	lr, eps := hp.LearningRate, b.Scalar(or(o.Epsilon, 1e-7))
	newP := make([]backend.Value, len(params))
	newS := make([]backend.Value, len(state))
	for i, p := range params {
		g := grads[i]
		v := b.Add(b.Mul(state[i], b.Scalar(rho)), b.Mul(b.Square(g), b.Scalar(1-rho)))
		newS[i] = v
		newP[i] = b.Sub(p, b.Div(b.Mul(g, lr), b.Sqrt(b.Add(v, eps))))
	}
	return newP, newS
}

// Adadelta adapts step sizes from running averages of squared gradients and
// squared updates.
type Adadelta struct {
	LearningRate float64 // default 0.001 (Keras 3); the classic examples used 1.0
	Rho          float64 // default 0.95
	Epsilon      float64 // default 1e-7
}

// Name returns "adadelta".
func (*Adadelta) Name() string { return "adadelta" }

// State declares the accumulated squared gradients and updates.
func (o *Adadelta) State(params []backend.Shape) []StateSpec {
	return slots(params, "accumulated_grad", "accumulated_delta_var")
}

// Update implements Keras 3's rule: G = rho*G + (1-rho)*g²;
// d = -sqrt(D+eps)*g/sqrt(G+eps); D = rho*D + (1-rho)*d²; p += lr*d.
func (o *Adadelta) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	rho := or(o.Rho, 0.95)
	lr, eps := hp.LearningRate, b.Scalar(or(o.Epsilon, 1e-7))
	r, r1 := b.Scalar(rho), b.Scalar(1-rho)
	n := len(params)
	newP := make([]backend.Value, n)
	newS := make([]backend.Value, len(state))
	for i, p := range params {
		g := grads[i]
		accG := b.Add(b.Mul(state[i], r), b.Mul(b.Square(g), r1))
		delta := b.Neg(b.Div(b.Mul(b.Sqrt(b.Add(state[n+i], eps)), g), b.Sqrt(b.Add(accG, eps))))
		accD := b.Add(b.Mul(state[n+i], r), b.Mul(b.Square(delta), r1))
		newS[i], newS[n+i] = accG, accD
		newP[i] = b.Add(p, b.Mul(delta, lr))
	}
	return newP, newS
}
