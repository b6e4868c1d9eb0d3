package keras_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/internal/testcheck"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

func mlp(t *testing.T, in, out int, act string) *keras.Model {
	t.Helper()
	m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{in}}, &layers.Dense{Units: 8, Activation: "relu"}, &layers.Dense{Units: out, Activation: act})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	testcheck.WantErr(t, err, parts...)
}

func TestCompileRejectsUnknownNames(t *testing.T) {
	m := mlp(t, 2, 3, "softmax")
	var unmade *optimizers.AdamW
	wantErr(t, m.Compile(keras.CompileOptions{Optimizer: unmade, Loss: keras.Loss("mse")}), "nil *optimizers.AdamW", "&optimizers.Adam{}")
	wantErr(t, m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("hinge9")}), `unknown loss "hinge9"`)
	wantErr(t, m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Metrics: keras.Metrics("f1")}), `unknown metric "f1"`)
	wantErr(t, m.Compile(keras.CompileOptions{Loss: keras.Loss("mse"), Backend: "tensorflow"}), `unknown kerasgo backend "tensorflow"`, "gorgonia", "import _")
	wantErr(t, m.Compile(keras.CompileOptions{Loss: keras.Loss("mse"), Backend: "gorgonia:cuda"}), "not supported")
}

// Compile without a loss is allowed, as Keras's compile() (a model that
// predicts, or runs Functions); Fit and Evaluate then say what is missing.
func TestFitWithoutALossSaysSo(t *testing.T) {
	ctx := context.Background()
	m := mlp(t, 2, 3, "softmax")
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}}); err != nil {
		t.Fatal(err)
	}
	x := keras.Array{Shape: []int{4, 2}, Data: make([]float32, 8)}
	y := keras.Array{Shape: []int{4}, Data: make([]float32, 4)}
	if _, err := m.Predict(ctx, x, keras.PredictOptions{}); err != nil {
		t.Fatalf("Predict after Compile without a loss: %v", err)
	}
	_, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: 1, Verbose: keras.Silent})
	wantErr(t, err, "Compile got no Loss", "CompileOptions.Loss")
	_, err = m.Evaluate(ctx, x, y, keras.EvaluateOptions{Verbose: keras.Silent})
	wantErr(t, err, "Compile got no Loss", "a Loss")
}

func TestFitRejectsBadData(t *testing.T) {
	ctx := context.Background()
	m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{4, 4, 1}}, &layers.Flatten{}, &layers.Dense{Units: 3, Activation: "softmax"})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("sparse_categorical_crossentropy")}); err != nil {
		t.Fatal(err)
	}
	x := keras.Array{Shape: []int{2, 16}, Data: make([]float32, 32)}
	y := keras.Array{Shape: []int{2}, Data: []float32{0, 1}}
	_, err = m.Fit(ctx, x, y, keras.FitOptions{Verbose: keras.Silent})
	wantErr(t, err, `layer "input_layer"`, "expected shape (None, 4, 4, 1)", "received data of shape (2, 16)")

	x = keras.Array{Shape: []int{2, 4, 4, 1}, Data: make([]float32, 32)}
	_, err = m.Fit(ctx, x, keras.Array{Shape: []int{2}, Data: []float32{0, 3}}, keras.FitOptions{Verbose: keras.Silent})
	wantErr(t, err, "label 3 at index 1 is out of range", "3 classes")

	_, err = m.Fit(ctx, x, keras.Array{Shape: []int{3}, Data: []float32{0, 1, 2}}, keras.FitOptions{Verbose: keras.Silent})
	wantErr(t, err, "x has 2 samples but y has 3")

	_, err = m.Fit(ctx, keras.Array{Shape: []int{2, 4, 4, 1}, Data: make([]float32, 31)}, y, keras.FitOptions{Verbose: keras.Silent})
	wantErr(t, err, "holds 31 values")

	_, err = m.Evaluate(ctx, x, keras.Array{Shape: []int{2, 3}, Data: make([]float32, 6)}, keras.EvaluateOptions{Verbose: keras.Silent})
	wantErr(t, err, "not class indices", "categorical_crossentropy")
}

func TestUncompiledAndUnbuilt(t *testing.T) {
	m, err := keras.NewSequential(&layers.Dense{Units: 2})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Summary()
	wantErr(t, err, "not built yet")
	// Evaluate needs a loss, so Compile, as in Keras; Predict does not
	// (see TestPredictWithoutCompile).
	x := keras.Array{Shape: []int{1, 3}, Data: []float32{1, 2, 3}}
	y := keras.Array{Shape: []int{1, 2}, Data: []float32{1, 2}}
	_, err = m.Evaluate(context.Background(), x, y, keras.EvaluateOptions{Verbose: keras.Silent})
	wantErr(t, err, "must be compiled")
}

func TestNaNLossStopsTrainingAndKeepsWeights(t *testing.T) {
	m := mlp(t, 2, 1, "")
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{LearningRate: 1e30}, Loss: keras.Loss("mse")}); err != nil {
		t.Fatal(err)
	}
	x := keras.Array{Shape: []int{8, 2}, Data: []float32{1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8}}
	y := keras.Array{Shape: []int{8, 1}, Data: []float32{1, 2, 3, 4, 5, 6, 7, 8}}
	_, err := m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 5, BatchSize: 2})
	if !errors.Is(err, keras.ErrNaNLoss) {
		t.Fatalf("error = %v, want ErrNaNLoss", err)
	}
	wantErr(t, err, "at epoch", "batch", "TerminateOnNaN")
	w, err := m.GetWeights()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range w {
		for _, f := range v {
			if math.IsNaN(float64(f)) {
				t.Fatal("weights hold NaN after the stop; want those of the last good step")
			}
		}
	}
}

// The weights after a step whose loss is not finite are exactly those of
// the step before (an engine that updates in place, given the old weights
// by Fit, must leave them alone), not merely free of NaN.
func TestNaNLossKeepsTheLastGoodStepsWeights(t *testing.T) {
	for _, spec := range backendtest.Engines() {
		t.Run(spec, func(t *testing.T) { checkNaNKeepsWeights(t, spec) })
	}
}

func checkNaNKeepsWeights(t *testing.T, spec string) {
	m := mlp(t, 2, 1, "")
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{LearningRate: 1e30}, Loss: keras.Loss("mse"), Backend: spec}); err != nil {
		if strings.Contains(err.Error(), "built without") {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	x := keras.Array{Shape: []int{8, 2}, Data: []float32{1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8}}
	y := keras.Array{Shape: []int{8, 1}, Data: []float32{1, 2, 3, 4, 5, 6, 7, 8}}
	var good, atNaN [][]float32
	// The callback reads the weights after every batch, the bad one
	// included (a reader while Fit still holds the model).
	record := &callbacks.Lambda{TrainBatchEnd: func(batch int, logs callbacks.Logs) {
		w, err := m.GetWeights()
		if err != nil {
			t.Error(err)
		}
		if v, ok := logs.Get("loss"); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			good = w
		} else if atNaN == nil {
			atNaN = w
		}
	}}
	_, err := m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 5, BatchSize: 2, NoShuffle: true, Callbacks: []callbacks.Callback{record}})
	if !errors.Is(err, keras.ErrNaNLoss) {
		t.Fatalf("error = %v, want ErrNaNLoss", err)
	}
	if good == nil {
		t.Fatal("no step had a finite loss: the test needs one")
	}
	w, err := m.GetWeights()
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string][][]float32{"after Fit": w, "in the callback of the bad batch": atNaN} {
		for i := range got {
			for j := range got[i] {
				if got[i][j] != good[i][j] {
					t.Fatalf("%s, weight %d[%d] is %v; %v after the last good step", name, i, j, got[i][j], good[i][j])
				}
			}
		}
	}
}

func TestFitStopsOnCancel(t *testing.T) {
	m := mlp(t, 2, 3, "softmax")
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy")}); err != nil {
		t.Fatal(err)
	}
	x, y := blobs(64, 3, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := m.Fit(ctx, x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 2})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
}

// The shape a Fit error asks for is printed correctly for every input rank
// (it once read "(samples20,))").
func TestFitShapeMismatchSuggestsTheRightShape(t *testing.T) {
	cases := []struct {
		input     []int
		data      []int
		want      string
		wantModel string
	}{
		{[]int{20}, []int{2, 19}, "reshape the data to (samples, 20)", "expected shape (None, 20)"},
		{[]int{1}, []int{2, 3}, "reshape the data to (samples, 1)", "expected shape (None, 1)"},
		{[]int{4, 4, 1}, []int{2, 16}, "reshape the data to (samples, 4, 4, 1)", "expected shape (None, 4, 4, 1)"},
		{[]int{3, 5}, []int{2, 5, 3}, "reshape the data to (samples, 3, 5)", "expected shape (None, 3, 5)"},
	}
	for _, c := range cases {
		m, err := keras.NewSequential(&layers.InputLayer{Shape: c.input}, &layers.Flatten{}, &layers.Dense{Units: 2, Activation: "softmax"})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("sparse_categorical_crossentropy")}); err != nil {
			t.Fatal(err)
		}
		n := 1
		for _, d := range c.data {
			n *= d
		}
		x := keras.Array{Shape: c.data, Data: make([]float32, n)}
		y := keras.Array{Shape: []int{c.data[0]}, Data: make([]float32, c.data[0])}
		_, err = m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent})
		wantErr(t, err, c.want, c.wantModel)
	}
}
