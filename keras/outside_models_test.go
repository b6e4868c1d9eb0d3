package keras_test

import (
	"context"
	"math"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// This file: custom steps over models outside the fitted one (issue 40's
// "custom steps over any model"): trained with their own optimizer,
// moved toward the trained model by Assign, their moving statistics
// updated by a training-mode call, and called in a test step.

// outsideNet is the small network these tests train, named name.
func outsideNet(name string, batchNorm bool) *keras.Model {
	ls := []layers.Layer{&layers.InputLayer{Shape: []int{6}}, &layers.Dense{Units: 8, Activation: "tanh"}}
	if batchNorm {
		ls = append(ls, &layers.BatchNormalization{})
	}
	m := keras.Must(keras.NewSequential(append(ls, &layers.Dense{Units: 3})...))
	m.Name = name
	return m
}

// A step may train a model outside its own with that model's own
// optimizer (a GAN's discriminator kept beside the generator, a critic):
// the outside model ends where its own Fit on the same batches ends, and
// its losses are that Fit's, on every engine.
func TestStepTrainsAnOutsideModel(t *testing.T) {
	ctx := context.Background()
	x, y := smallData(64)
	fit := keras.FitOptions{Epochs: 3, BatchSize: 16, NoShuffle: true, Verbose: keras.Silent}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		reference, critic := outsideNet("reference", false), outsideNet("critic", false)
		keras.MustOK(reference.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{LearningRate: 0.1}, Loss: keras.LossOf(lossFromLogits()), Backend: be.Name(), Seed: 3}))
		start := keras.Must(reference.GetWeights())
		keras.MustOK(critic.SetWeights(start))
		criticOpt := &optimizers.SGD{LearningRate: 0.1}
		step := func(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
			pred := s.Call(s.Model(), true, d.X...)
			loss := s.ComputeLoss(d.Y, pred, nil)
			own := s.Model().TrainableWeights()
			s.Apply(nil, s.Gradients(loss, own), own)
			criticLoss := s.ComputeLoss(d.Y, s.Call(critic, true, d.X...), nil)
			cw := critic.TrainableWeights()
			s.Apply(criticOpt, s.Gradients(criticLoss, cw), cw)
			return keras.StepLogs{{Name: "loss", Value: loss}, {Name: "critic_loss", Value: criticLoss}}, nil
		}
		fitted := outsideNet("fitted", false)
		keras.MustOK(fitted.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{LearningRate: 0.01}, Loss: keras.LossOf(lossFromLogits()), TrainStep: step, Backend: be.Name(), Seed: 4}))
		h, err := fitted.Fit(ctx, x, y, fit)
		if err != nil {
			t.Fatal(err)
		}
		want, err := reference.Fit(ctx, x, y, fit)
		if err != nil {
			t.Fatal(err)
		}
		got := keras.Must(critic.GetWeights())
		moved := 0.0
		for i, w := range keras.Must(reference.GetWeights()) {
			if d := maxDiff(got[i], w); d > 1e-5 {
				t.Errorf("critic's weight %d is %g from the reference's trained by its own Fit", i, d)
			}
			moved = math.Max(moved, maxDiff(w, start[i]))
		}
		if moved < 1e-3 {
			t.Errorf("the weights moved by %g: nothing was trained", moved)
		}
		for e := range fit.Epochs {
			if d := math.Abs(h.Logs["critic_loss"][e] - want.Logs["loss"][e]); d > 1e-5 {
				t.Errorf("epoch %d: critic_loss %v, the reference's loss %v", e+1, h.Logs["critic_loss"][e], want.Logs["loss"][e])
			}
		}
		t.Logf("%s: critic loss %.4f -> %.4f, as its own Fit's %.4f -> %.4f", be.Name(), h.Logs["critic_loss"][0], h.Logs["critic_loss"][2], want.Logs["loss"][0], want.Logs["loss"][2])
	})
}

// A step may set an outside model's variables (Keras's variable.assign):
// a target network moved toward the trained model after every step
// (Polyak averaging, as DQN and DDPG do) holds, after each TrainOnBatch,
// (1-tau)·target + tau·weights, computed here on the host; and serves its
// own predictions from them.
func TestStepMovesATargetNetwork(t *testing.T) {
	ctx := context.Background()
	x, y := smallData(48)
	const tau = 0.25
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		online, target := outsideNet("online", false), outsideNet("target", false)
		step := func(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
			loss := s.ComputeLoss(d.Y, s.Call(s.Model(), true, d.X...), nil)
			own := s.Model().TrainableWeights()
			s.Apply(nil, s.Gradients(loss, own), own)
			for i, w := range target.Weights() {
				moved := s.Add(s.Mul(s.Value(w), s.Scalar(1-tau)), s.Mul(s.Value(own[i]), s.Scalar(tau)))
				s.Assign(w, moved)
			}
			// The loss does not depend on the target: its gradient is zero.
			unused := s.Gradients(loss, target.Weights()[:1])[0]
			return keras.StepLogs{{Name: "loss", Value: loss}, {Name: "unused_gradient", Value: s.Sum(s.Abs(unused))}}, nil
		}
		keras.MustOK(online.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{LearningRate: 0.05}, Loss: keras.LossOf(lossFromLogits()), TrainStep: step, Backend: be.Name(), Seed: 5}))
		keras.MustOK(target.Compile(keras.CompileOptions{Backend: be.Name(), Seed: 6}))
		want := keras.Must(target.GetWeights())
		for b := 0; b < 3; b++ {
			xb := keras.Array{Shape: []int{16, 6}, Data: x.Data[b*96 : (b+1)*96]}
			yb := keras.Array{Shape: []int{16}, Data: y.Data[b*16 : (b+1)*16]}
			logs, err := online.TrainOnBatch(ctx, xb, yb, keras.OnBatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if g, _ := logs.Get("unused_gradient"); g != 0 {
				t.Errorf("the gradient with respect to a variable the loss does not use sums to %v, want 0", g)
			}
			trained := keras.Must(online.GetWeights())
			for i := range want {
				for j := range want[i] {
					want[i][j] = (1-tau)*want[i][j] + tau*trained[i][j]
				}
			}
			got := keras.Must(target.GetWeights())
			for i := range want {
				if d := maxDiff(got[i], want[i]); d > 1e-6 {
					t.Fatalf("after step %d the target's weight %d is %g from (1-tau)·target + tau·weights", b+1, i, d)
				}
			}
		}
		// The target serves predictions with its new weights.
		p := keras.Must(target.Predict(ctx, x, keras.PredictOptions{}))
		want0 := denseTanhDense(x.Data[:6], want)
		if d := maxDiff(p.Data[:3], want0); d > 1e-5 {
			t.Errorf("the target predicts %v, its weights give %v", p.Data[:3], want0)
		}
	})
}

// denseTanhDense is outsideNet's forward pass for one sample, on the host.
func denseTanhDense(x []float32, w [][]float32) []float32 {
	hidden := make([]float32, 8)
	for j := range hidden {
		s := w[1][j]
		for i := range x {
			s += x[i] * w[0][i*8+j]
		}
		hidden[j] = float32(math.Tanh(float64(s)))
	}
	out := make([]float32, 3)
	for k := range out {
		s := w[3][k]
		for j := range hidden {
			s += hidden[j] * w[2][j*3+k]
		}
		out[k] = s
	}
	return out
}

// Calling an outside model in training mode in a step updates its
// layers' moving statistics, as Keras does (a teacher called with
// training=True), and nothing else of it: its Dense layers, to which no
// optimizer is applied, keep their values.
func TestStepUpdatesAnOutsideModelsMovingStatistics(t *testing.T) {
	ctx := context.Background()
	x, y := smallData(32)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		other := outsideNet("other", true)
		keras.MustOK(other.Compile(keras.CompileOptions{Backend: be.Name(), Seed: 1}))
		before := keras.Must(other.GetWeights())
		step := func(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
			out := s.Call(other, true, d.X...)
			pred := s.Call(s.Model(), true, d.X...)
			loss := s.ComputeLoss(d.Y, pred, nil)
			own := s.Model().TrainableWeights()
			s.Apply(nil, s.Gradients(loss, own), own)
			return keras.StepLogs{{Name: "loss", Value: loss}, {Name: "other_mean", Value: s.Mean(out[0])}}, nil
		}
		m := outsideNet("fitted", false)
		keras.MustOK(m.Compile(keras.CompileOptions{Loss: keras.LossOf(lossFromLogits()), TrainStep: step, Backend: be.Name(), Seed: 1}))
		if _, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: 2, BatchSize: 16, Verbose: keras.Silent}); err != nil {
			t.Fatal(err)
		}
		after := keras.Must(other.GetWeights())
		names := []string{}
		for _, w := range other.Weights() {
			names = append(names, w.Name)
		}
		for i, name := range names {
			changed := maxDiff(after[i], before[i]) > 0
			want := name == "moving_mean" || name == "moving_variance"
			if changed != want {
				t.Errorf("the outside model's %s (weight %d) changed: %v, want %v", name, i, changed, want)
			}
		}
	})
}

// A test step may call a model outside its own (a teacher scored beside
// the student): Evaluate then gives the outside model's own loss, on
// every engine.
func TestTestStepCallsAnOutsideModel(t *testing.T) {
	ctx := context.Background()
	x, y := smallData(40)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		teacher := outsideNet("teacher", false)
		keras.MustOK(teacher.Compile(keras.CompileOptions{Loss: keras.LossOf(lossFromLogits()), Backend: be.Name(), Seed: 2}))
		test := func(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
			loss := s.ComputeLoss(d.Y, s.Call(s.Model(), false, d.X...), nil)
			teacherLoss := s.ComputeLoss(d.Y, s.Call(teacher, false, d.X...), nil)
			return keras.StepLogs{{Name: "loss", Value: loss}, {Name: "teacher_loss", Value: teacherLoss}}, nil
		}
		student := outsideNet("student", false)
		keras.MustOK(student.Compile(keras.CompileOptions{Loss: keras.LossOf(lossFromLogits()), TestStep: test, Backend: be.Name(), Seed: 3}))
		opts := keras.EvaluateOptions{BatchSize: 16, Verbose: keras.Silent}
		for round := range 2 { // the second Evaluate reuses the first's plan
			got := keras.Must(student.Evaluate(ctx, x, y, opts))
			want := keras.Must(teacher.Evaluate(ctx, x, y, opts))
			g, _ := got.Get("teacher_loss")
			w, _ := want.Get("loss")
			if math.Abs(g-w) > 1e-5 {
				t.Errorf("round %d: teacher_loss %v, the teacher's own Evaluate %v", round, g, w)
			}
			// The teacher moves on between the rounds: the test step sees it.
			keras.MustOK(teacher.SetWeights(scaled(keras.Must(teacher.GetWeights()), 0.5)))
		}
	})
}

func scaled(ws [][]float32, f float32) [][]float32 {
	for _, w := range ws {
		for i := range w {
			w[i] *= f
		}
	}
	return ws
}

// An optimizer applied to an outside model's frozen variables is an
// error naming the variable, the model and the fix, on every engine.
func TestStepCannotTrainAFrozenOutsideModel(t *testing.T) {
	x, y := smallData(16)
	teacher := outsideNet("teacher", false)
	teacher.SetTrainable(false)
	step := func(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
		loss := s.ComputeLoss(d.Y, s.Call(teacher, false, d.X...), nil)
		vars := teacher.Weights()
		s.Apply(nil, s.Gradients(loss, vars), vars)
		return keras.StepLogs{{Name: "loss", Value: loss}}, nil
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		student := outsideNet("student", false)
		keras.MustOK(student.Compile(keras.CompileOptions{Loss: keras.LossOf(lossFromLogits()), TrainStep: step, Backend: be.Name(), Seed: 1}))
		before := keras.Must(teacher.GetWeights())
		_, err := student.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, BatchSize: 8, Verbose: keras.Silent})
		wantErr(t, err, `the variable "kernel" of model "teacher"`, "frozen", "SetTrainable(true)")
		for i, w := range keras.Must(teacher.GetWeights()) {
			if maxDiff(w, before[i]) != 0 {
				t.Errorf("the frozen teacher's weight %d changed", i)
			}
		}
	})
}

// An outside model serves predictions from other goroutines while a step
// moves it: each Predict sees its weights of one step (run with -race).
func TestOutsideModelServesWhileAStepMovesIt(t *testing.T) {
	ctx := context.Background()
	x, y := smallData(64)
	online, target := outsideNet("online", false), outsideNet("target", false)
	step := func(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
		loss := s.ComputeLoss(d.Y, s.Call(s.Model(), true, d.X...), nil)
		own := s.Model().TrainableWeights()
		s.Apply(nil, s.Gradients(loss, own), own)
		for i, w := range target.Weights() {
			s.Assign(w, s.Value(own[i]))
		}
		return keras.StepLogs{{Name: "loss", Value: loss}}, nil
	}
	keras.MustOK(online.Compile(keras.CompileOptions{Loss: keras.LossOf(lossFromLogits()), TrainStep: step, Seed: 5}))
	keras.MustOK(target.Compile(keras.CompileOptions{Seed: 6}))
	done := make(chan error)
	go func() {
		_, err := online.Fit(ctx, x, y, keras.FitOptions{Epochs: 5, BatchSize: 8, Verbose: keras.Silent})
		done <- err
	}()
	for serving := true; serving; {
		select {
		case err := <-done:
			keras.MustOK(err)
			serving = false
		default:
			if _, err := target.Predict(ctx, x, keras.PredictOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// After the last step the target is the trained model.
	want := keras.Must(online.Predict(ctx, x, keras.PredictOptions{}))
	got := keras.Must(target.Predict(ctx, x, keras.PredictOptions{}))
	if d := maxDiff(got.Data, want.Data); d > 1e-6 {
		t.Errorf("the target predicts %g from the model it copies", d)
	}
}
