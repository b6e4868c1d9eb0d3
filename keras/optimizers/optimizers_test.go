package optimizers_test

import (
	"fmt"
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

// amsgradRef is Adam with amsgrad=True (keras/src/optimizers/adam.py).
func amsgradRef(lr, b1, b2, eps float64) reference {
	var m, v, vHat []float64
	return func(p, g []float64, t int) {
		if m == nil {
			m, v, vHat = make([]float64, len(p)), make([]float64, len(p)), make([]float64, len(p))
		}
		lrT := lr * math.Sqrt(1-math.Pow(b2, float64(t))) / (1 - math.Pow(b1, float64(t)))
		for i := range p {
			m[i] = b1*m[i] + (1-b1)*g[i]
			v[i] = b2*v[i] + (1-b2)*g[i]*g[i]
			vHat[i] = math.Max(vHat[i], v[i])
			p[i] -= lrT * m[i] / (math.Sqrt(vHat[i]) + eps)
		}
	}
}

// rmspropCenteredRef is RMSprop with momentum and centered=True
// (keras/src/optimizers/rmsprop.py).
func rmspropCenteredRef(lr, rho, momentum, eps float64) reference {
	var v, a, mom []float64
	return func(p, g []float64, _ int) {
		if v == nil {
			v, a, mom = make([]float64, len(p)), make([]float64, len(p)), make([]float64, len(p))
		}
		for i := range p {
			v[i] = rho*v[i] + (1-rho)*g[i]*g[i]
			a[i] = rho*a[i] + (1-rho)*g[i]
			mom[i] = momentum*mom[i] + lr*g[i]/math.Sqrt(v[i]-a[i]*a[i]+eps)
			p[i] -= mom[i]
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

func adagradRef(lr, init, eps float64) reference {
	var acc []float64
	return func(p, g []float64, _ int) {
		if acc == nil {
			acc = make([]float64, len(p))
			for i := range acc {
				acc[i] = init
			}
		}
		for i := range p {
			acc[i] += g[i] * g[i]
			p[i] -= lr * g[i] / math.Sqrt(acc[i]+eps)
		}
	}
}

func adamaxRef(lr, b1, b2, eps float64) reference {
	var m, u []float64
	return func(p, g []float64, t int) {
		if m == nil {
			m, u = make([]float64, len(p)), make([]float64, len(p))
		}
		for i := range p {
			m[i] = b1*m[i] + (1-b1)*g[i]
			u[i] = math.Max(b2*u[i], math.Abs(g[i]))
			p[i] -= lr * m[i] / ((1 - math.Pow(b1, float64(t))) * (u[i] + eps))
		}
	}
}

// nadamRef follows Dozat's Nadam with Keras's momentum schedule
// u_t = beta1*(1 - 0.5*0.96^t).
func nadamRef(lr, b1, b2, eps float64) reference {
	var m, v []float64
	uProduct := 1.0
	return func(p, g []float64, t int) {
		if m == nil {
			m, v = make([]float64, len(p)), make([]float64, len(p))
		}
		u := func(k int) float64 { return b1 * (1 - 0.5*math.Pow(0.96, float64(k))) }
		uProduct *= u(t)
		for i := range p {
			m[i] = b1*m[i] + (1-b1)*g[i]
			v[i] = b2*v[i] + (1-b2)*g[i]*g[i]
			mHat := u(t+1)*m[i]/(1-uProduct*u(t+1)) + (1-u(t))*g[i]/(1-uProduct)
			vHat := v[i] / (1 - math.Pow(b2, float64(t)))
			p[i] -= lr * mHat / (math.Sqrt(vHat) + eps)
		}
	}
}

func lionRef(lr, b1, b2 float64) reference {
	var m []float64
	return func(p, g []float64, _ int) {
		if m == nil {
			m = make([]float64, len(p))
		}
		for i := range p {
			c := b1*m[i] + (1-b1)*g[i]
			sign := 0.0
			if c > 0 {
				sign = 1
			} else if c < 0 {
				sign = -1
			}
			p[i] -= lr * sign
			m[i] = b2*m[i] + (1-b2)*g[i]
		}
	}
}

func ftrlRef(lr, power, init, l1, l2, shrink, beta float64) reference {
	var acc, lin []float64
	return func(p, g []float64, _ int) {
		if acc == nil {
			acc, lin = make([]float64, len(p)), make([]float64, len(p))
			for i := range acc {
				acc[i] = init
			}
		}
		l2r := l2 + beta/(2*lr)
		for i := range p {
			use := g[i] + 2*shrink*p[i]
			na := acc[i] + g[i]*g[i]
			lin[i] += use - (math.Pow(na, -power)-math.Pow(acc[i], -power))/lr*p[i]
			quad := math.Pow(na, -power)/lr + 2*l2r
			clipped := math.Max(-l1, math.Min(l1, lin[i]))
			p[i] = (clipped - lin[i]) / quad
			acc[i] = na
		}
	}
}

// prepare is what Keras's Optimizer.apply does before the update rule:
// gradient clipping and decoupled weight decay, on all parameters at once.
type prepare func(p, g [][]float64, lr float64)

func clipNorm(c float64) prepare {
	return func(_, g [][]float64, _ float64) {
		for _, gi := range g {
			scaleBy(gi, c/math.Max(norm(gi), c))
		}
	}
}

func clipGlobalNorm(c float64) prepare {
	return func(_, g [][]float64, _ float64) {
		sq := 0.0
		for _, gi := range g {
			sq += norm(gi) * norm(gi)
		}
		for _, gi := range g {
			scaleBy(gi, c/math.Max(math.Sqrt(sq), c))
		}
	}
}

func clipValue(c float64) prepare {
	return func(_, g [][]float64, _ float64) {
		for _, gi := range g {
			for j := range gi {
				gi[j] = math.Max(-c, math.Min(c, gi[j]))
			}
		}
	}
}

func weightDecay(wd float64) prepare {
	return func(p, _ [][]float64, lr float64) {
		for _, pi := range p {
			scaleBy(pi, 1-wd*lr)
		}
	}
}

func norm(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

func scaleBy(x []float64, f float64) {
	for i := range x {
		x[i] *= f
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
		pre  prepare
		lr   float64 // for pre
	}{
		{"sgd", mustGet("sgd"), func() reference { return sgdRef(0.01, 0, false) }, nil, 0},
		{"sgdMomentum", &optimizers.SGD{LearningRate: 0.1, Momentum: 0.9}, func() reference { return sgdRef(0.1, 0.9, false) }, nil, 0},
		{"sgdNesterov", &optimizers.SGD{LearningRate: 0.1, Momentum: 0.9, Nesterov: true}, func() reference { return sgdRef(0.1, 0.9, true) }, nil, 0},
		{"adam", mustGet("adam"), func() reference { return adamRef(0.001, 0.9, 0.999, 1e-7) }, nil, 0},
		{"adamCustom", &optimizers.Adam{LearningRate: 0.01, Beta1: 0.8, Beta2: 0.99, Epsilon: 1e-3}, func() reference { return adamRef(0.01, 0.8, 0.99, 1e-3) }, nil, 0},
		{"rmsprop", mustGet("rmsprop"), func() reference { return rmspropRef(0.001, 0.9, 1e-7) }, nil, 0},
		{"rmspropCenteredMomentum", &optimizers.RMSprop{LearningRate: 0.05, Momentum: 0.5, Centered: true}, func() reference { return rmspropCenteredRef(0.05, 0.9, 0.5, 1e-7) }, nil, 0},
		{"amsgrad", &optimizers.Adam{LearningRate: 0.1, AMSGrad: true}, func() reference { return amsgradRef(0.1, 0.9, 0.999, 1e-7) }, nil, 0},
		{"adamwAmsgrad", &optimizers.AdamW{LearningRate: 0.1, AMSGrad: true, Options: optimizers.Options{WeightDecay: 0.5}}, func() reference { return amsgradRef(0.1, 0.9, 0.999, 1e-7) }, weightDecay(0.5), 0.1},
		{"adadelta", mustGet("adadelta"), func() reference { return adadeltaRef(0.001, 0.95, 1e-7) }, nil, 0},
		{"adadeltaClassic", &optimizers.Adadelta{LearningRate: 1}, func() reference { return adadeltaRef(1, 0.95, 1e-7) }, nil, 0},
		{"adamw", mustGet("adamw"), func() reference { return adamRef(0.001, 0.9, 0.999, 1e-7) }, weightDecay(0.004), 0.001},
		{"adamwCustom", &optimizers.AdamW{LearningRate: 0.1, Options: optimizers.Options{WeightDecay: 0.5}}, func() reference { return adamRef(0.1, 0.9, 0.999, 1e-7) }, weightDecay(0.5), 0.1},
		{"adamwNoDecay", optimizers.NewAdamW(0.1, 0, 0.9, 0.999, 1e-7), func() reference { return adamRef(0.1, 0.9, 0.999, 1e-7) }, nil, 0},
		{"adagrad", mustGet("adagrad"), func() reference { return adagradRef(0.001, 0.1, 1e-7) }, nil, 0},
		{"adagradCustom", &optimizers.Adagrad{LearningRate: 0.5, InitialAccumulatorValue: 1, Epsilon: 1e-3}, func() reference { return adagradRef(0.5, 1, 1e-3) }, nil, 0},
		{"adamax", mustGet("adamax"), func() reference { return adamaxRef(0.001, 0.9, 0.999, 1e-7) }, nil, 0},
		{"adamaxCustom", &optimizers.Adamax{LearningRate: 0.2, Beta1: 0.5, Beta2: 0.8}, func() reference { return adamaxRef(0.2, 0.5, 0.8, 1e-7) }, nil, 0},
		{"nadam", mustGet("nadam"), func() reference { return nadamRef(0.001, 0.9, 0.999, 1e-7) }, nil, 0},
		{"nadamCustom", &optimizers.Nadam{LearningRate: 0.3, Beta1: 0.7, Beta2: 0.9, Epsilon: 1e-4}, func() reference { return nadamRef(0.3, 0.7, 0.9, 1e-4) }, nil, 0},
		{"lion", mustGet("lion"), func() reference { return lionRef(0.001, 0.9, 0.99) }, nil, 0},
		{"lionCustom", &optimizers.Lion{LearningRate: 0.1, Beta1: 0.5, Beta2: 0.7}, func() reference { return lionRef(0.1, 0.5, 0.7) }, nil, 0},
		{"ftrl", mustGet("ftrl"), func() reference { return ftrlRef(0.001, -0.5, 0.1, 0, 0, 0, 0) }, nil, 0},
		{"ftrlRegularized", &optimizers.Ftrl{LearningRate: 0.5, LearningRatePower: -0.7, L1RegularizationStrength: 0.01, L2RegularizationStrength: 0.1, L2ShrinkageRegularizationStrength: 0.05, Beta: 0.2},
			func() reference { return ftrlRef(0.5, -0.7, 0.1, 0.01, 0.1, 0.05, 0.2) }, nil, 0},
		{"adamBeta1Zero", optimizers.NewAdam(0.1, 0, 0.99, 1e-7), func() reference { return adamRef(0.1, 0, 0.99, 1e-7) }, nil, 0},
		{"sgdRateZero", optimizers.NewSGD(0, 0), func() reference { return sgdRef(0, 0, false) }, nil, 0},
		{"sgdClipNorm", &optimizers.SGD{LearningRate: 0.1, Options: optimizers.Options{ClipNorm: 0.5}}, func() reference { return sgdRef(0.1, 0, false) }, clipNorm(0.5), 0.1},
		{"sgdGlobalClipNorm", &optimizers.SGD{LearningRate: 0.1, Options: optimizers.Options{GlobalClipNorm: 0.7}}, func() reference { return sgdRef(0.1, 0, false) }, clipGlobalNorm(0.7), 0.1},
		{"adamClipValue", &optimizers.Adam{LearningRate: 0.1, Options: optimizers.Options{ClipValue: 0.3}}, func() reference { return adamRef(0.1, 0.9, 0.999, 1e-7) }, clipValue(0.3), 0.1},
		{"rmspropDecayAndClip", &optimizers.RMSprop{LearningRate: 0.05, Options: optimizers.Options{ClipNorm: 0.4, WeightDecay: 0.1}}, func() reference { return rmspropRef(0.05, 0.9, 1e-7) }, func(p, g [][]float64, lr float64) { clipNorm(0.4)(p, g, lr); weightDecay(0.1)(p, g, lr) }, 0.05},
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
					p, s := optimizers.Apply(b, c.opt, hp, v[:nP], v[nP:2*nP], v[2*nP:])
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
					g := [][]float64{append([]float64(nil), grads[0].Data...), append([]float64(nil), grads[1].Data...)}
					if c.pre != nil {
						c.pre([][]float64{want[0].Data, want[1].Data}, g, c.lr)
					}
					for i := range refs {
						refs[i](want[i].Data, g[i], step)
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
	if _, err := optimizers.Get("adamw2"); err == nil || !strings.Contains(err.Error(), "use sgd, adam, adamw, rmsprop") {
		t.Errorf("error = %v", err)
	}
	for _, name := range []string{"lamb", "Adafactor", "schedulefreeadamw", "ScheduleFreeAdamW"} {
		if _, err := optimizers.Get(name); err != nil {
			t.Errorf("Get(%q): %v", name, err)
		}
	}
}

// Lamb, Adafactor and ScheduleFreeAdamW refuse settings Keras's rule
// cannot run with, naming them.
func TestNewOptimizersRefuseBadSettings(t *testing.T) {
	for _, c := range []struct {
		o    optimizers.Optimizer
		want string
	}{
		{&optimizers.Adafactor{ClipThreshold: -1}, "ClipThreshold must be > 0, got -1"},
		{&optimizers.ScheduleFreeAdamW{Beta1: 1.5}, "Beta1 must be in (0, 1], got 1.5"},
		{&optimizers.ScheduleFreeAdamW{WarmupSteps: -2}, "WarmupSteps must be >= 0, got -2"},
		{&optimizers.Lamb{LearningRate: -1}, "LearningRate must be a finite number >= 0"},
		{&optimizers.Muon{ExcludeLayers: []string{"dense_(1"}}, `ExcludeLayers "dense_(1"`},
		{optimizers.NewMuonExact(), "NSSteps must be at least 1, got 0"},
	} {
		if err := optimizers.Check(c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.o.Name(), err, c.want)
		}
	}
}

// EMA of the weights and gradient accumulation follow Keras 3's base
// optimizer (JAX backend) on every engine: with GradientAccumulationSteps
// 2 the weights move every second step by the mean of two gradients,
// while the moving average follows average = 0.9*average + 0.1*weight
// every step, with momentum 0 while Keras's optimizer.iterations (the
// update count, step/2) is 0; with EMAOverwriteFrequency 3 the weights
// become their average on the steps where (step/2 + 1) % 3 == 0.
func TestEMAAndAccumulation(t *testing.T) {
	lr := 0.1
	opt := &optimizers.SGD{LearningRate: lr, Options: optimizers.Options{UseEMA: true, EMAMomentum: 0.9, EMAOverwriteFrequency: 3, GradientAccumulationSteps: 2}}
	optimizers.ResolveDefaults(opt)
	shapes := []backend.Shape{{3}}
	specs := optimizers.States(opt, shapes)
	if len(specs) != 2 || !specs[0].Base || !specs[1].Base {
		t.Fatalf("states %+v, want an average and an accumulator", specs)
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		p := []float64{0.5, -0.2, 1}
		avg, acc := make([]float64, 3), make([]float64, 3)
		params := backendtest.Array{Shape: backend.Shape{3}, Data: append([]float64(nil), p...)}
		state := []backendtest.Array{{Shape: backend.Shape{3}, Data: make([]float64, 3)}, {Shape: backend.Shape{3}, Data: make([]float64, 3)}}
		for step := int64(0); step < 6; step++ {
			g := backendtest.Random(uint64(50+step), -1, 1, 3)
			apply, overwrite := optimizers.StepFlags(opt, step)
			fn := func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
				hp := optimizers.Hyperparameters{LearningRate: b.Scalar(lr), Iteration: b.Scalar(float64(optimizers.Updates(opt, step))), ApplyUpdate: b.Scalar(apply), OverwriteWithEMA: b.Scalar(overwrite)}
				np, ns := optimizers.Apply(b, opt, hp, v[:1], v[1:2], v[2:])
				return append(np, ns...), nil
			}
			out, err := backendtest.Eval(be, backend.Float64, fn, []backendtest.Array{params, g, state[0], state[1]})
			if err != nil {
				t.Fatal(err)
			}
			// The reference, from Keras 3's base_optimizer.py.
			for i := range p {
				if (step+1)%2 == 0 {
					p[i] -= lr * (g.Data[i] + acc[i]) / 2
					acc[i] = 0
				} else {
					acc[i] += g.Data[i]
				}
				m := 0.9
				if step/2 == 0 {
					m = 0
				}
				avg[i] = m*avg[i] + (1-m)*p[i]
				if (step/2+1)%3 == 0 {
					p[i] = avg[i]
				}
			}
			backendtest.AssertClose(t, fmt.Sprintf("weights after step %d", step+1), out[0], backendtest.Array{Shape: backend.Shape{3}, Data: p}, 1e-12)
			backendtest.AssertClose(t, fmt.Sprintf("average after step %d", step+1), out[1], backendtest.Array{Shape: backend.Shape{3}, Data: avg}, 1e-12)
			params, state = out[0], out[1:]
		}
	})
}

// Muon gives AdamW (a momentum and a velocity) to the weights Keras's
// _should_use_adamw picks, by shape and by path, and Muon (a momentum) to
// the others; its training is checked against Keras's by
// TestKerasTrainingParity.
func TestMuonSplitsByShapeAndPath(t *testing.T) {
	shapes := []backend.Shape{{3, 4}, {4}, {10, 3}, {2, 2}, {3, 3, 1, 2}}
	paths := []string{"dense/kernel", "dense/bias", "embedding/embeddings", "head/kernel", "conv/kernel"}
	for _, c := range []struct {
		o    *optimizers.Muon
		want []int // state tensors per weight
	}{
		{&optimizers.Muon{}, []int{1, 2, 2, 1, 2}},
		{&optimizers.Muon{IncludeEmbeddings: true, ExcludeLayers: []string{"^head/"}}, []int{1, 2, 1, 2, 2}},
	} {
		optimizers.ResolveDefaults(c.o)
		specs := optimizers.States(optimizers.ForVariables(c.o, paths), shapes)
		count := make([]int, len(shapes))
		for _, s := range specs {
			count[s.Param]++
		}
		if fmt.Sprint(count) != fmt.Sprint(c.want) {
			t.Errorf("%+v: state tensors per weight %v, want %v", c.o, count, c.want)
		}
	}
}

// LossScaleOptimizer, as Keras 3.15's: a step with a non-finite gradient
// changes no weight and halves the scale; finite steps update through
// the inner optimizer and count, and every DynamicGrowthSteps-th doubles
// the scale (the counter back at 0); on every engine.
func TestLossScaleOptimizerSkipsAndGrows(t *testing.T) {
	opt := &optimizers.LossScaleOptimizer{Inner: &optimizers.SGD{LearningRate: 0.5}, InitialScale: 4, DynamicGrowthSteps: 2}
	optimizers.ResolveDefaults(opt)
	if err := optimizers.Check(opt); err != nil {
		t.Fatal(err)
	}
	specs := optimizers.States(opt, []backend.Shape{{2}})
	if len(specs) != 2 || specs[1].Init != 4 {
		t.Fatalf("states %+v, want the step counter and the scale (4)", specs)
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		p, counter, scale := []float64{1, 2}, 0.0, 4.0
		for step, g := range [][]float64{{0.2, 0.4}, {math.Inf(1), 0}, {0.2, -0.2}, {0.4, 0}, {math.NaN(), 1}} {
			fn := func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
				hp := optimizers.Hyperparameters{LearningRate: b.Scalar(0.5), Iteration: b.Scalar(float64(step)), ApplyUpdate: b.Scalar(1), OverwriteWithEMA: b.Scalar(0)}
				np, ns := optimizers.Apply(b, opt, hp, v[:1], v[1:2], v[2:])
				return append(np, ns...), nil
			}
			out, err := backendtest.Eval(be, backend.Float64, fn, []backendtest.Array{
				{Shape: backend.Shape{2}, Data: p}, {Shape: backend.Shape{2}, Data: g},
				{Shape: backend.Shape{}, Data: []float64{counter}}, {Shape: backend.Shape{}, Data: []float64{scale}}})
			if err != nil {
				t.Fatal(err)
			}
			finite := !math.IsInf(g[0], 0) && !math.IsNaN(g[0])
			want := append([]float64(nil), p...)
			switch {
			case !finite:
				counter, scale = 0, scale/2
			case counter == 1:
				want[0], want[1] = p[0]-0.5*g[0], p[1]-0.5*g[1]
				counter, scale = 0, scale*2
			default:
				want[0], want[1] = p[0]-0.5*g[0], p[1]-0.5*g[1]
				counter++
			}
			if fmt.Sprint(out[0].Data) != fmt.Sprint(want) || out[1].Data[0] != counter || out[2].Data[0] != scale {
				t.Fatalf("step %d (gradient %v): weights %v counter %v scale %v, want %v %v %v", step, g, out[0].Data, out[1].Data, out[2].Data, want, counter, scale)
			}
			p = out[0].Data
		}
	})
}
