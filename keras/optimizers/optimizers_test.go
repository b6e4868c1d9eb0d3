package optimizers_test

import (
	"math"
	"strings"
	"testing"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// reference is a plain-Go float64 implementation of an update rule, written
// from the formulas in Keras's documentation: it updates p in place from g
// at step t (1-based), keeping its own state.
type reference func(p, g []float64, t int)

func sgdRef(lr, momentum float64, nesterov bool) reference {
	var v []float64
	return func(p, g []float64, _ int) {
		if v == nil {
			v = make([]float64, len(p))
		}
		for i := range p {
			v[i] = momentum*v[i] - lr*g[i]
			if nesterov {
				p[i] += momentum*v[i] - lr*g[i]
			} else {
				p[i] += v[i]
			}
		}
	}
}

func adamRef(lr, b1, b2, eps float64) reference {
	var m, v []float64
	return func(p, g []float64, t int) {
		if m == nil {
			m, v = make([]float64, len(p)), make([]float64, len(p))
		}
		lrT := lr * math.Sqrt(1-math.Pow(b2, float64(t))) / (1 - math.Pow(b1, float64(t)))
		for i := range p {
			m[i] = b1*m[i] + (1-b1)*g[i]
			v[i] = b2*v[i] + (1-b2)*g[i]*g[i]
			p[i] -= lrT * m[i] / (math.Sqrt(v[i]) + eps)
		}
	}
}

func rmspropRef(lr, rho, eps float64) reference {
	var v []float64
	return func(p, g []float64, _ int) {
		if v == nil {
			v = make([]float64, len(p))
		}
		for i := range p {
			v[i] = rho*v[i] + (1-rho)*g[i]*g[i]
			p[i] -= lr * g[i] / math.Sqrt(v[i]+eps)
		}
	}
}

func adadeltaRef(lr, rho, eps float64) reference {
	var eg, ed []float64
	return func(p, g []float64, _ int) {
		if eg == nil {
			eg, ed = make([]float64, len(p)), make([]float64, len(p))
		}
		for i := range p {
			eg[i] = rho*eg[i] + (1-rho)*g[i]*g[i]
			d := -math.Sqrt(ed[i]+eps) / math.Sqrt(eg[i]+eps) * g[i]
			ed[i] = rho*ed[i] + (1-rho)*d*d
			p[i] += lr * d
		}
	}
}

// TestUpdatesMatchKerasFormulas runs three steps of each optimizer (with
// Keras's defaults and with explicit settings) on every engine and compares
// the parameters with the reference after each step.
func TestUpdatesMatchKerasFormulas(t *testing.T) {
	cases := []struct {
		name string
		opt  optimizers.Optimizer
		ref  func() reference
	}{
		{"sgd", mustGet("sgd"), func() reference { return sgdRef(0.01, 0, false) }},
		{"sgdMomentum", &optimizers.SGD{LearningRate: 0.1, Momentum: 0.9}, func() reference { return sgdRef(0.1, 0.9, false) }},
		{"sgdNesterov", &optimizers.SGD{LearningRate: 0.1, Momentum: 0.9, Nesterov: true}, func() reference { return sgdRef(0.1, 0.9, true) }},
		{"adam", mustGet("adam"), func() reference { return adamRef(0.001, 0.9, 0.999, 1e-7) }},
		{"adamCustom", &optimizers.Adam{LearningRate: 0.01, Beta1: 0.8, Beta2: 0.99, Epsilon: 1e-3}, func() reference { return adamRef(0.01, 0.8, 0.99, 1e-3) }},
		{"rmsprop", mustGet("rmsprop"), func() reference { return rmspropRef(0.001, 0.9, 1e-7) }},
		{"adadelta", mustGet("adadelta"), func() reference { return adadeltaRef(0.001, 0.95, 1e-7) }},
		{"adadeltaClassic", &optimizers.Adadelta{LearningRate: 1}, func() reference { return adadeltaRef(1, 0.95, 1e-7) }},
	}
	shapes := []backend.Shape{{2, 3}, {3}}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				optimizers.ResolveDefaults(c.opt)
				specs := c.opt.State(shapes)
				nP, nS := len(shapes), len(specs)
				fn := func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
					hp := optimizers.Hyperparameters{LearningRate: b.Scalar(*optimizers.LearningRate(c.opt))}
					p, s := c.opt.Update(b, hp, v[:nP], v[nP:2*nP], v[2*nP:])
					return append(p, s...), nil
				}
				params := []backendtest.Array{backendtest.Random(1, -1, 1, 2, 3), backendtest.Random(2, -1, 1, 3)}
				state := make([]backendtest.Array, nS)
				for i, s := range specs {
					state[i] = backendtest.Array{Shape: s.Shape, Data: make([]float64, s.Shape.Size())}
					for j := range state[i].Data {
						state[i].Data[j] = s.Init
					}
				}
				refs := []reference{c.ref(), c.ref()}
				want := []backendtest.Array{clone(params[0]), clone(params[1])}
				for step := 1; step <= 3; step++ {
					grads := []backendtest.Array{backendtest.Random(uint64(10*step), -1, 1, 2, 3), backendtest.Random(uint64(10*step+1), -1, 1, 3)}
					in := append(append(append([]backendtest.Array{}, params...), grads...), state...)
					out, err := backendtest.Eval(be, backend.Float64, fn, in)
					if err != nil {
						t.Fatal(err)
					}
					for i := range refs {
						refs[i](want[i].Data, grads[i].Data, step)
						backendtest.AssertClose(t, c.name+" param", out[i], want[i], 1e-9)
					}
					params, state = out[:nP], out[nP:]
				}
			})
		}
	})
}

func clone(a backendtest.Array) backendtest.Array {
	return backendtest.Array{Shape: a.Shape, Data: append([]float64(nil), a.Data...)}
}

func mustGet(name string) optimizers.Optimizer {
	o, err := optimizers.Get(name)
	if err != nil {
		panic(err)
	}
	return o
}

func TestUnknownOptimizer(t *testing.T) {
	if _, err := optimizers.Get("adamw2"); err == nil || !strings.Contains(err.Error(), "use sgd, adam, rmsprop or adadelta") {
		t.Errorf("error = %v", err)
	}
}
