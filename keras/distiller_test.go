package keras_test

import (
	"context"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// distill is the train step of keras.io's "Knowledge Distillation"
// Distiller, fitted on the student: the teacher, a model outside the
// student, predicts in inference mode; the loss is alpha times the
// student's loss plus (1-alpha) times the KL divergence of the softened
// distributions, times temperature squared.
func distill(teacher *keras.Model, alpha, temperature float64) keras.StepFunc {
	return func(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
		student := s.Model()
		teacherLogits := s.Call(teacher, false, d.X...)[0]
		studentLogits := s.Call(student, true, d.X...)
		studentLoss := s.ComputeLoss(d.Y, studentLogits, nil)
		t := s.Scalar(1 / temperature)
		p := s.Softmax(s.Mul(teacherLogits, t))
		logQ := s.LogSoftmax(s.Mul(studentLogits[0], t))
		kl := s.Mean(s.Sum(s.Mul(p, s.Sub(s.Log(s.Maximum(p, s.Scalar(1e-7))), logQ)), 1))
		distillation := s.Mul(kl, s.Scalar(temperature*temperature))
		loss := s.Add(s.Mul(s.Scalar(alpha), studentLoss), s.Mul(s.Scalar(1-alpha), distillation))
		vars := student.TrainableWeights()
		s.Apply(nil, s.Gradients(loss, vars), vars)
		return append(keras.StepLogs{{Name: "student_loss", Value: studentLoss}, {Name: "distillation_loss", Value: distillation}},
			s.ComputeMetrics(d.Y, studentLogits, nil)...), nil
	}
}

// A Distiller's step calls a teacher outside the fitted student: the
// student learns, and the teacher is unchanged (issue 40).
func TestDistillerCallsAnOutsideTeacher(t *testing.T) {
	ctx := context.Background()
	x, y := smallData(96)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		teacher := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{6}}, &layers.Dense{Units: 32, Activation: "relu"}, &layers.Dense{Units: 3}))
		teacher.Name = "teacher"
		if err := teacher.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{LearningRate: 0.01}, Loss: keras.LossOf(lossFromLogits()), Backend: be.Name(), Seed: 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := teacher.Fit(ctx, x, y, keras.FitOptions{Epochs: 30, BatchSize: 16, Verbose: keras.Silent}); err != nil {
			t.Fatal(err)
		}
		teacherBefore := weightValues(t, teacher.Weights())

		student := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{6}}, &layers.Dense{Units: 8, Activation: "relu"}, &layers.Dense{Units: 3}))
		student.Name = "student"
		if err := student.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{LearningRate: 0.01}, Loss: keras.LossOf(lossFromLogits()),
			Metrics: keras.Metrics("sparse_categorical_accuracy"), TrainStep: distill(teacher, 0.1, 3), Backend: be.Name(), Seed: 2}); err != nil {
			t.Fatal(err)
		}
		h, err := student.Fit(ctx, x, y, keras.FitOptions{Epochs: 30, BatchSize: 16, Verbose: keras.Silent})
		if err != nil {
			t.Fatal(err)
		}
		dl := h.Logs["distillation_loss"]
		if dl[len(dl)-1] >= dl[0]/2 {
			t.Errorf("distillation loss %v -> %v: the student did not learn the teacher", dl[0], dl[len(dl)-1])
		}
		if acc := h.Logs["sparse_categorical_accuracy"]; acc[len(acc)-1] <= acc[0] {
			t.Errorf("student accuracy %v -> %v", acc[0], acc[len(acc)-1])
		}
		for i, v := range weightValues(t, teacher.Weights()) {
			if maxDiff(v, teacherBefore[i]) != 0 {
				t.Errorf("the teacher's variable %d changed", i)
			}
		}
		t.Logf("%s: distillation loss %.4f -> %.4f, student accuracy %.3f -> %.3f", be.Name(), dl[0], dl[len(dl)-1],
			h.Logs["sparse_categorical_accuracy"][0], h.Logs["sparse_categorical_accuracy"][len(dl)-1])
	})
}

func lossFromLogits() losses.Loss { return losses.SparseCategoricalCrossentropy{FromLogits: true} }
