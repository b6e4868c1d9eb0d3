package keras_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/internal/models"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// The Keras MNIST convnet's summary, with Keras's parameter counts:
// 320, 18496, 1179776, 1290; 1,199,882 in all.
func TestSummaryGolden(t *testing.T) {
	keras.ClearSession() // the first model of a session is "sequential", as in the golden file
	m, err := models.New("cnn")
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.Summary()
	if err != nil {
		t.Fatal(err)
	}
	if m.CountParams() != 1199882 {
		t.Errorf("CountParams = %d, Keras gives 1199882", m.CountParams())
	}
	golden(t, "convnet_summary.txt", s)
}

func TestProgressOutputFormat(t *testing.T) {
	x, y := blobs(100, 3, 3)
	for _, verbose := range []int{1, 2} {
		m := mlp(t, 2, 3, "softmax")
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Metrics: keras.Metrics("accuracy")}); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		_, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 2, BatchSize: 32, Verbose: verbose, Output: &out, ValidationSplit: 0.2})
		if err != nil {
			t.Fatal(err)
		}
		var line string
		if verbose == 1 { // not a terminal: one line per epoch
			line = `3/3 \[==============================\] - \d+s \d+(ms|us|s)/step - loss: \d\.\d{4} - accuracy: \d\.\d{4} - val_loss: \d\.\d{4} - val_accuracy: \d\.\d{4}\n`
		} else {
			line = `3/3 - \d+s - \d+(ms|us|s)/step - loss: \d\.\d{4} - accuracy: \d\.\d{4} - val_loss: \d\.\d{4} - val_accuracy: \d\.\d{4}\n`
		}
		want := regexp.MustCompile(`^Epoch 1/2\n` + line + `Epoch 2/2\n` + line + `$`)
		if !want.MatchString(out.String()) {
			t.Errorf("verbose %d output:\n%s", verbose, out.String())
		}
	}
}

func TestProgbarInPlace(t *testing.T) {
	live := true
	var out bytes.Buffer
	p := &callbacks.Progbar{W: &out, Verbose: 1, Live: &live}
	p.OnTrainBegin(callbacks.Params{Epochs: 1, Steps: 3})
	p.OnEpochBegin(0)
	p.OnTrainBatchEnd(0, callbacks.Logs{{Name: "loss", Value: 0.5}})
	first := regexp.MustCompile(`^Epoch 1/1\n\r1/3 \[=========>\.{20}\] - ETA: \d+s - loss: 0\.5000$`)
	if !first.MatchString(out.String()) {
		t.Errorf("output after the first batch %q", out.String())
	}
	p.OnTrainBatchEnd(1, callbacks.Logs{{Name: "loss", Value: 0.4}}) // redrawn at most every 50 ms
	p.OnTrainBatchEnd(2, callbacks.Logs{{Name: "loss", Value: 0.3}})
	p.OnEpochEnd(0, callbacks.Logs{{Name: "loss", Value: 0.25}})
	final := regexp.MustCompile(`\r3/3 \[={30}\] - \d+s \d+\w+/step - loss: 0\.2500\n$`)
	if !final.MatchString(out.String()) {
		t.Errorf("output %q", out.String())
	}
	// An epoch that ends early (a generator that ran out, a callback that
	// stopped training) ends its bar at the batches seen, as Keras's does.
	out.Reset()
	p.OnEpochBegin(0)
	p.OnTrainBatchEnd(0, callbacks.Logs{{Name: "loss", Value: 0.5}})
	p.OnEpochEnd(0, callbacks.Logs{{Name: "loss", Value: 0.25}})
	if early := regexp.MustCompile(`\r1/1 \[={30}\] - \d+s \d+\w+/step - loss: 0\.2500\n$`); !early.MatchString(out.String()) {
		t.Errorf("an epoch ended after 1 of 3 batches: output %q", out.String())
	}
	if got := callbacks.Bar(37, 469); got != " 37/469 [=>............................]" {
		t.Errorf("Bar(37, 469) = %q", got)
	}
	if got := callbacks.FormatLogs(callbacks.Logs{{Name: "loss", Value: 0.00012}}); got != " - loss: 1.2000e-04" {
		t.Errorf("small value formatted %q", got)
	}
}

func TestValidationAndHistory(t *testing.T) {
	x, y := blobs(200, 3, 4)
	vx, vy := blobs(50, 3, 5)
	m := mlp(t, 2, 3, "softmax")
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Metrics: keras.Metrics("accuracy")}); err != nil {
		t.Fatal(err)
	}
	h, err := m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 3, ValidationData: &keras.Data{X: vx, Y: vy}})
	if err != nil {
		t.Fatal(err)
	}
	names := h.Names()
	if len(names) != 4 || names[0] != "loss" || names[1] != "accuracy" || names[2] != "val_loss" || names[3] != "val_accuracy" {
		t.Errorf("history names %v", names)
	}
	if len(h.Epochs) != 3 || len(h.Logs["val_loss"]) != 3 {
		t.Errorf("history %+v", h)
	}
	// val_loss is the loss Evaluate reports on the same data.
	logs, err := m.Evaluate(context.Background(), vx, vy, keras.EvaluateOptions{Verbose: keras.Silent, BatchSize: 7})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := logs.Get("loss"); abs(v-h.Logs["val_loss"][2]) > 1e-5 {
		t.Errorf("Evaluate loss %v, last val_loss %v", v, h.Logs["val_loss"][2])
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

func TestFunctionalModelAndWeights(t *testing.T) {
	in := layers.Input(2)
	h := layers.Apply(&layers.Dense{Units: 4, Activation: "relu"}, in)
	out := layers.Apply(&layers.Dense{Units: 1}, h)
	m, err := keras.NewModel(in, out)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Seed: 7}); err != nil {
		t.Fatal(err)
	}
	w, err := m.GetWeights()
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != 4 || len(w[0]) != 8 || len(w[3]) != 1 {
		t.Fatalf("weights have sizes %d", len(w))
	}
	// Set known weights: out = sum(relu(x·I)) for x >= 0.
	w[0] = []float32{1, 0, 0, 0, 0, 1, 0, 0}
	w[1] = make([]float32, 4)
	w[2] = []float32{1, 1, 1, 1}
	w[3] = []float32{0.5}
	if err := m.SetWeights(w); err != nil {
		t.Fatal(err)
	}
	x := keras.Array{Shape: []int{3, 2}, Data: []float32{1, 2, 3, 4, 0, 0}}
	pred, err := m.Predict(context.Background(), x, keras.PredictOptions{BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{3.5, 7.5, 0.5}
	if len(pred.Data) != 3 || pred.Shape[0] != 3 || pred.Shape[1] != 1 {
		t.Fatalf("prediction %v", pred)
	}
	for i := range want {
		if pred.Data[i] != want[i] {
			t.Errorf("prediction %v, want %v", pred.Data, want)
		}
	}
	if err := m.SetWeights(w[:2]); err == nil {
		t.Error("SetWeights with too few arrays: no error")
	}
	// Compiling again keeps the weights.
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("mse")}); err != nil {
		t.Fatal(err)
	}
	again, _ := m.Predict(context.Background(), x, keras.PredictOptions{})
	for i := range want {
		if again.Data[i] != want[i] {
			t.Errorf("after recompiling: prediction %v, want %v", again.Data, want)
		}
	}
}

func TestSameSeedSameTraining(t *testing.T) {
	x, y := blobs(64, 3, 6)
	run := func() []float64 {
		m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{2}}, &layers.Dense{Units: 8, Activation: "relu"}, &layers.Dropout{Rate: 0.3}, &layers.Dense{Units: 3, Activation: "softmax"})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Seed: 5}); err != nil {
			t.Fatal(err)
		}
		h, err := m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 3, BatchSize: 16, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		return h.Logs["loss"]
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("two runs with the same seeds: losses %v and %v", a, b)
		}
	}
}

// The demo's small ResNet, with Keras's parameter counts worked out from
// its formulas: convolutions without bias 3*3*in*out (288, 9216, 9216,
// 18432, 36864, 36864), BatchNormalization 4 per channel of which the
// moving mean and variance are not trainable ((32+32+32+64+64+64)*2 =
// 576), and Dense 64*10+10 = 650.
func TestResNetSummaryCounts(t *testing.T) {
	m, err := models.New("resnet")
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.Summary()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Total params: 112682 ", "Trainable params: 112106 ", "Non-trainable params: 576 ", "Connected to", "add (Add)", "batch_normalization[0][0]"} {
		if !strings.Contains(s, want) {
			t.Errorf("Summary lacks %q:\n%s", want, s)
		}
	}
}

// A U-Net-like model (Conv2DTranspose upsampling, a Concatenate skip
// connection), with Keras's parameter counts: Conv2D 3*3*1*8+8 = 80 and
// 3*3*8*16+16 = 1168, Conv2DTranspose 2*2*8*16+8 = 520, Conv2D after the
// concatenation 3*3*16*8+8 = 1160, and the 1x1 head 8+1 = 9; it trains
// on every engine.
func TestUNetSummaryCounts(t *testing.T) {
	in := layers.Input(16, 16, 1)
	c1 := layers.Apply(&layers.Conv2D{Filters: 8, KernelSize: [2]int{3, 3}, Padding: "same", Activation: "relu"}, in)
	p1 := layers.Apply(&layers.MaxPooling2D{}, c1)
	c2 := layers.Apply(&layers.Conv2D{Filters: 16, KernelSize: [2]int{3, 3}, Padding: "same", Activation: "relu"}, p1)
	u1 := layers.Apply(&layers.Conv2DTranspose{Filters: 8, KernelSize: [2]int{2, 2}, Strides: [2]int{2, 2}}, c2)
	m := layers.Apply(&layers.Concatenate{}, u1, c1)
	c3 := layers.Apply(&layers.Conv2D{Filters: 8, KernelSize: [2]int{3, 3}, Padding: "same", Activation: "relu"}, m)
	out := layers.Apply(&layers.Conv2D{Filters: 1, KernelSize: [2]int{1, 1}, Activation: "sigmoid"}, c3)
	model, err := keras.NewModel(in, out)
	if err != nil {
		t.Fatal(err)
	}
	s, err := model.Summary()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Total params: 2937 ", "conv2d_transpose (Conv2DTrans", "(None, 16, 16, 16)", "conv2d_transpose[0][0], conv2d["} {
		if !strings.Contains(s, want) {
			t.Errorf("Summary lacks %q:\n%s", want, s)
		}
	}
	x := keras.Array{Shape: []int{8, 16, 16, 1}, Data: make([]float32, 8*256)}
	y := keras.Array{Shape: []int{8, 16, 16, 1}, Data: make([]float32, 8*256)}
	for i := range x.Data {
		x.Data[i] = float32((i*7)%13) / 13
		if x.Data[i] > 0.5 {
			y.Data[i] = 1
		}
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		if err := model.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("binary_crossentropy"), Backend: be.Name(), Seed: 1}); err != nil {
			t.Fatal(err)
		}
		h, err := model.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 5, BatchSize: 4, Verbose: keras.Silent})
		if err != nil {
			t.Fatal(err)
		}
		if l := h.Logs["loss"]; !(l[4] < l[0]) {
			t.Errorf("the U-Net's loss did not fall: %v", l)
		}
	})
}
