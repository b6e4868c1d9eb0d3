// Command distillation is Keras's example "Knowledge Distillation"
// (keras.io/examples/vision/knowledge_distillation) on Fashion-MNIST: a
// teacher convnet is trained, then a smaller student learns from the
// teacher's softened predictions as well as from the labels, through a
// Distiller train step that calls the teacher, a model outside the fitted
// student; a student trained from scratch is the baseline.
//
//	go run ./examples/distillation -epochs 3
//
// The page trains on MNIST (not shipped with Debian) for 5 + 3 epochs and
// reports a teacher at about 97.8% accuracy, the distilled student at
// about 97.2% and the scratch student at about 96.8%. The images come
// from Debian's dataset-fashion-mnist package (apt-get install
// dataset-fashion-mnist) or a copy in the kerasgo cache.
package main

import (
	"context"
	"fmt"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// convnet is the page's teacher and student: two strided convolutions
// with leaky ReLUs, a max pooling, and a dense layer of logits; filters
// sets their width (the page's teacher has 256 and 512, its student 16
// and 32).
func convnet(name string, filters int) (*keras.Model, error) {
	m, err := keras.NewSequential(
		&layers.InputLayer{Shape: []int{28, 28, 1}},
		&layers.Conv2D{Filters: filters, KernelSize: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same"},
		&layers.LeakyReLU{NegativeSlope: 0.2},
		&layers.MaxPooling2D{PoolSize: [2]int{2, 2}, Strides: [2]int{1, 1}, Padding: "same"},
		&layers.Conv2D{Filters: 2 * filters, KernelSize: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same"},
		&layers.Flatten{},
		&layers.Dense{Units: 10},
	)
	if err != nil {
		return nil, err
	}
	m.Name = name
	return m, nil
}

// distill is the page's Distiller.train_step, written with keras/ops:
// the teacher predicts in inference mode; the loss is alpha times the
// student's loss on the labels plus (1-alpha) times the KL divergence of
// the teacher's softened distribution from the student's, times
// temperature², and only the student's weights move.
func distill(teacher *keras.Model, alpha, temperature float64) keras.StepFunc {
	return func(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
		student := s.Model()
		teacherLogits := s.Call(teacher, false, d.X...)[0]
		studentLogits := s.Call(student, true, d.X...)
		studentLoss := s.ComputeLoss(d.Y, studentLogits, nil)
		t := s.Scalar(1 / temperature)
		p := ops.Softmax(s, ops.Multiply(s, teacherLogits, t), -1)
		q := ops.Softmax(s, ops.Multiply(s, studentLogits[0], t), -1)
		// Keras's KLDivergence: sum(p·log(p/q)), both clipped to [1e-7, 1]
		clip := func(v ops.Value) ops.Value { return ops.Clip(s, v, 1e-7, 1) }
		kl := ops.Mean(s, ops.Sum(s, ops.Multiply(s, clip(p), ops.Log(s, ops.Divide(s, clip(p), clip(q)))), ops.Axis(-1)))
		distillation := ops.Multiply(s, kl, s.Scalar(temperature*temperature))
		loss := ops.Add(s, ops.Multiply(s, s.Scalar(alpha), studentLoss), ops.Multiply(s, s.Scalar(1-alpha), distillation))
		vars := student.TrainableWeights()
		s.Apply(nil, s.Gradients(loss, vars), vars)
		return append(keras.StepLogs{{Name: "student_loss", Value: studentLoss}, {Name: "distillation_loss", Value: distillation}},
			s.ComputeMetrics(d.Y, studentLogits, nil)...), nil
	}
}

// result is the test accuracy of the three models and the distillation
// loss of each epoch.
type result struct {
	teacher, distilled, scratch float64
	distillationLoss            []float64
}

func run(ctx context.Context, o example.Options, teacherFilters, studentFilters int) (result, error) {
	x, y, xt, yt, err := example.FashionMNIST(ctx, o)
	if err != nil {
		return result{}, err
	}
	compile := func(m *keras.Model, step keras.StepFunc) error {
		return m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.LossOf(losses.SparseCategoricalCrossentropy{FromLogits: true}),
			Metrics: keras.Metrics("sparse_categorical_accuracy"), TrainStep: step, Backend: o.Backend, Seed: o.Seed})
	}
	fit := func(m *keras.Model) (*keras.History, float64, error) {
		h, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: o.Epochs, BatchSize: 64, Verbose: o.Verbose, Seed: o.Seed})
		if err != nil {
			return nil, 0, err
		}
		logs, err := m.Evaluate(ctx, xt, yt, keras.EvaluateOptions{Verbose: keras.Silent})
		acc, _ := logs.Get("sparse_categorical_accuracy")
		return h, acc, err
	}
	var r result
	teacher, err := convnet("teacher", teacherFilters)
	if err == nil {
		err = compile(teacher, nil)
	}
	if err != nil {
		return r, err
	}
	if _, r.teacher, err = fit(teacher); err != nil {
		return r, err
	}
	student, err := convnet("student", studentFilters)
	if err == nil {
		err = compile(student, distill(teacher, 0.1, 10))
	}
	if err != nil {
		return r, err
	}
	h, acc, err := fit(student)
	if err != nil {
		return r, err
	}
	r.distilled, r.distillationLoss = acc, h.Logs["distillation_loss"]
	scratch, err := convnet("student_scratch", studentFilters)
	if err == nil {
		err = compile(scratch, nil)
	}
	if err != nil {
		return r, err
	}
	_, r.scratch, err = fit(scratch)
	return r, err
}

func main() {
	o := example.ParseFlags(3, 60000, 10000)
	r, err := run(context.Background(), o, 64, 16)
	example.Exit("distillation", err)
	fmt.Printf("distillation loss by epoch: %.4f\n", r.distillationLoss)
	fmt.Printf("test accuracy: teacher %.4f, distilled student %.4f, student from scratch %.4f\n", r.teacher, r.distilled, r.scratch)
}
