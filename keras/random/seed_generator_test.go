package random_test

import (
	"context"
	"math"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/random"
)

// twoDraws is a layer holding a SeedGenerator, as Keras's guide writes
// one: it adds one uniform draw to its input and subtracts another.
type twoDraws struct {
	layers.Base
	state *layers.Weight
}

func (*twoDraws) ClassName() string { return "TwoDraws" }

func (l *twoDraws) Build(in []backend.Shape) (backend.Shape, error) {
	w, err := l.AddWeight("seed_generator_state", backend.Shape{2}, random.SeedState{Seed: 42})
	if err != nil {
		return nil, err
	}
	w.Trainable = false
	l.state = w
	return in[0].Clone(), nil
}

func (l *twoDraws) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	gen := random.NewSeedGenerator(b, ctx.Weight(l.state))
	u1 := random.Uniform(b, x.Shape(), 0, 1, gen.Next())
	u2 := random.Uniform(b, x.Shape(), 0, 1, gen.Next())
	ctx.Assign(l.state, gen.State())
	return b.Sub(b.Add(x, u1), u2)
}

// A layer's SeedGenerator draws, at each training step, numbers that
// depend on its seed and the step alone: the logged sums equal the host's
// draws of backend.SeededUniform for the states (42, 2k) and (42, 2k+1)
// of step k, whatever the compile seed and on every engine, and the state
// variable ends at (42, 2·steps).
func TestSeedGeneratorDrawsFromItsOwnState(t *testing.T) {
	const batch, steps = 4, 5
	x := keras.Array{Shape: []int{batch * steps, 3}, Data: make([]float32, batch*steps*3)}
	step := func(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
		out := s.Call(s.Model(), true, d.X...)[0]
		return keras.StepLogs{{Name: "drawn", Value: s.Sum(s.Sub(out, d.X[0]))}}, nil
	}
	want := make([]float64, steps)
	for k := range want {
		for _, v := range backend.SeededUniform(42, uint64(2*k), batch*3, backend.Float32) {
			want[k] += v
		}
		for _, v := range backend.SeededUniform(42, uint64(2*k+1), batch*3, backend.Float32) {
			want[k] -= v
		}
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, compileSeed := range []int64{1, 2} {
			layer := &twoDraws{}
			m := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{3}}, layer))
			keras.MustOK(m.Compile(keras.CompileOptions{TrainStep: step, Backend: be.Name(), Seed: compileSeed}))
			var got []float64
			record := &callbacks.Lambda{TrainBatchEnd: func(_ int, logs callbacks.Logs) {
				v, _ := logs.Get("drawn")
				n := float64(len(got) + 1)
				got = append(got, v*n-sum(got)) // the running mean back to each batch's value
			}}
			if _, err := m.Fit(context.Background(), x, nil, keras.FitOptions{Epochs: 1, BatchSize: batch, NoShuffle: true, Verbose: keras.Silent, Callbacks: []callbacks.Callback{record}}); err != nil {
				t.Fatal(err)
			}
			for k := range want {
				if math.Abs(got[k]-want[k]) > 1e-4 {
					t.Errorf("compile seed %d, step %d: the draws sum to %v, the generator's state gives %v", compileSeed, k, got[k], want[k])
				}
			}
			state := keras.Must(layer.state.Value())
			if state[0] != 42 || state[1] != 2*steps {
				t.Errorf("compile seed %d: the state ends at %v, want [42 %d]", compileSeed, state, 2*steps)
			}
		}
	})
}

func sum(v []float64) float64 {
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t
}

// The generator's counter wraps at 2²⁴ into the seed, where float32
// stops counting: the states after (7, 2²⁴-1) are (8, 0) and (8, 1), and
// each draws other numbers; the Normal draws of a state look standard.
func TestSeedGeneratorCounterWrapsAndNormalDraws(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		start := backendtest.Array{Shape: []int{2}, Data: []float64{7, 1<<24 - 1}}
		out, err := backendtest.Eval(be, backend.Float32, func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
			gen := random.NewSeedGenerator(b, in[0])
			n := random.Normal(b, []int{20000}, 0, 1, gen.Next())
			gen.Next()
			return []backend.Value{gen.State(), n}, b.Err()
		}, []backendtest.Array{start})
		if err != nil {
			t.Fatal(err)
		}
		if s := out[0].Data; s[0] != 8 || s[1] != 1 {
			t.Errorf("after two draws from (7, 2²⁴-1) the state is %v, want [8 1]", s)
		}
		mean, sq := 0.0, 0.0
		for _, v := range out[1].Data {
			mean += v
			sq += v * v
		}
		mean /= 20000
		sd := math.Sqrt(sq/20000 - mean*mean)
		if math.Abs(mean) > 0.03 || math.Abs(sd-1) > 0.03 {
			t.Errorf("normal draws: mean %.4f, standard deviation %.4f", mean, sd)
		}
	})
}
