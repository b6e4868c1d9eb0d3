package keras_test

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/metrics"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// ticketModel has two named inputs and two named outputs, like Keras's
// functional API guide's ticket classifier: a "priority" score
// (regression) and a "department" (3 classes).
func ticketModel(t *testing.T) *keras.Model {
	t.Helper()
	title := layers.NamedInput("title", 8)
	meta := layers.NamedInput("meta", 3)
	a := layers.Apply(&layers.Dense{Units: 8, Activation: "relu"}, title)
	b := layers.Apply(&layers.Dense{Units: 8, Activation: "relu"}, meta)
	h := layers.Apply(&layers.Add{}, a, b)
	priority := layers.Apply(layers.Named("priority", &layers.Dense{Units: 1}), h)
	department := layers.Apply(layers.Named("department", &layers.Dense{Units: 3, Activation: "softmax"}), h)
	m, err := keras.NewFunctional([]*layers.KerasTensor{title, meta}, []*layers.KerasTensor{priority, department})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// ticketData: priority depends on both inputs, department on the title.
func ticketData(n int) (title, meta, priority, department keras.Array) {
	title = keras.Array{Shape: []int{n, 8}, Data: make([]float32, n*8)}
	meta = keras.Array{Shape: []int{n, 3}, Data: make([]float32, n*3)}
	priority = keras.Array{Shape: []int{n, 1}, Data: make([]float32, n)}
	department = keras.Array{Shape: []int{n}, Data: make([]float32, n)}
	for i := 0; i < n; i++ {
		for j := 0; j < 8; j++ {
			title.Data[i*8+j] = float32(math.Sin(float64(i*5+j*3)) * 1.5)
		}
		for j := 0; j < 3; j++ {
			meta.Data[i*3+j] = float32(math.Cos(float64(i*3 + j*7)))
		}
		priority.Data[i] = title.Data[i*8]*0.5 + meta.Data[i*3]
		switch {
		case title.Data[i*8+1] > 0.5:
			department.Data[i] = 2
		case title.Data[i*8+1] < -0.5:
			department.Data[i] = 1
		}
	}
	return
}

// A two-input two-output model trains with a loss per output and loss
// weights, and logs Keras's names: loss, <output>_loss, <output>_<metric>.
// Evaluate's numbers agree with the same quantities computed here from
// PredictOutputs; inputs and targets given by name equal those given by
// position; the model saves and loads with its compile settings.
func TestTwoInputsTwoOutputs(t *testing.T) {
	title, meta, priority, department := ticketData(96)
	x := keras.Arrays{title, meta}
	y := keras.NamedArrays{"priority": priority, "department": department}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m := ticketModel(t)
		if n := m.CountParams(); n != 72+32+9+27 {
			t.Errorf("CountParams = %d, Keras gives 140 (8*8+8, 3*8+8, 8+1, 8*3+3)", n)
		}
		opts := keras.CompileOptions{
			Optimizer: &optimizers.Adam{},
			Loss: keras.ByName(map[string]losses.Loss{
				"priority":   losses.MeanSquaredError{},
				"department": losses.SparseCategoricalCrossentropy{},
			}),
			LossWeights: keras.ByName(map[string]float64{"priority": 2, "department": 0.5}),
			Metrics: keras.ByName(map[string][]metrics.Metric{
				"priority":   {metrics.Named("mae")},
				"department": {metrics.Named("accuracy")},
			}),
			Backend: be.Name(), Seed: 3,
		}
		if err := m.Compile(opts); err != nil {
			t.Fatal(err)
		}
		h, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 30, BatchSize: 16, Seed: 5, Verbose: keras.Silent, ValidationSplit: 0.25})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"loss", "priority_loss", "department_loss", "priority_mae", "department_accuracy",
			"val_loss", "val_priority_loss", "val_department_loss", "val_priority_mae", "val_department_accuracy"}
		if got := strings.Join(h.Names(), ","); got != strings.Join(want, ",") {
			t.Fatalf("logs %s, want %s", got, strings.Join(want, ","))
		}
		if l := h.Logs["loss"]; !(l[len(l)-1] < 0.6*l[0]) {
			t.Errorf("the total loss did not fall: %v", l)
		}

		logs, err := m.Evaluate(context.Background(), x, y, keras.EvaluateOptions{Verbose: keras.Silent})
		if err != nil {
			t.Fatal(err)
		}
		preds, err := m.PredictOutputs(context.Background(), x, keras.PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(preds) != 2 || preds[0].Shape[1] != 1 || preds[1].Shape[1] != 3 {
			t.Fatalf("PredictOutputs shapes: %v", preds)
		}
		mse, mae, cce, acc := 0.0, 0.0, 0.0, 0.0
		n := float64(priority.Samples())
		for i := range priority.Data {
			d := float64(preds[0].Data[i] - priority.Data[i])
			mse += d * d / n
			mae += math.Abs(d) / n
			p := preds[1].Data[i*3 : i*3+3]
			c := int(department.Data[i])
			cce -= math.Log(math.Max(float64(p[c]), 1e-7)) / n
			best := 0
			for k := range p {
				if p[k] > p[best] {
					best = k
				}
			}
			if best == c {
				acc += 1 / n
			}
		}
		for name, want := range map[string]float64{"priority_loss": mse, "department_loss": cce, "priority_mae": mae, "department_accuracy": acc, "loss": 2*mse + 0.5*cce} {
			got, ok := logs.Get(name)
			if !ok || math.Abs(got-want) > 1e-4*math.Max(1, want) {
				t.Errorf("Evaluate %s = %v, computed from the predictions: %v", name, got, want)
			}
		}

		// By name and by position give the same training.
		w := map[bool][][]float32{}
		for _, named := range []bool{false, true} {
			m2 := ticketModel(t)
			if err := m2.Compile(opts); err != nil {
				t.Fatal(err)
			}
			var xs, ys keras.ArraySet = x, keras.Arrays{priority, department}
			if named {
				xs, ys = keras.NamedArrays{"meta": meta, "title": title}, y
			}
			if _, err := m2.Fit(context.Background(), xs, ys, keras.FitOptions{Epochs: 2, BatchSize: 16, Seed: 5, Verbose: keras.Silent}); err != nil {
				t.Fatal(err)
			}
			w[named], _ = m2.GetWeights()
		}
		for i := range w[false] {
			if d := maxDiff(w[false][i], w[true][i]); d > 1e-6 {
				t.Errorf("weight %d: arrays by name and by position trained differently (%g)", i, d)
			}
		}

		path := filepath.Join(t.TempDir(), "ticket.keras")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		loaded, err := keras.LoadModel(path, keras.LoadOptions{Backend: be.Name()})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(loaded.InputNames(), ",") + ";" + strings.Join(loaded.OutputNames(), ","); got != "title,meta;priority,department" {
			t.Errorf("loaded model's inputs;outputs = %s", got)
		}
		again, err := loaded.Evaluate(context.Background(), x, y, keras.EvaluateOptions{Verbose: keras.Silent})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range logs {
			if v, ok := again.Get(l.Name); !ok || math.Abs(v-l.Value) > 1e-5 {
				t.Errorf("after loading, %s = %v, before saving %v", l.Name, v, l.Value)
			}
		}
	})
}

// A layer applied twice shares its weights (counted once), and the
// Summary shows it once with both calls in Keras's "Connected to" column.
func TestSharedLayer(t *testing.T) {
	left, right := layers.NamedInput("left", 4), layers.NamedInput("right", 4)
	shared := &layers.Dense{Units: 3, Activation: "tanh"}
	a, b := layers.Apply(shared, left), layers.Apply(shared, right)
	out := layers.Apply(&layers.Dense{Units: 1, Activation: "sigmoid"}, layers.Apply(&layers.Subtract{}, a, b))
	m, err := keras.NewFunctional([]*layers.KerasTensor{left, right}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	if n := m.CountParams(); n != 15+4 {
		t.Errorf("CountParams = %d, want 19 (the shared Dense counted once)", n)
	}
	s, err := m.Summary()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Connected to", "left (InputLayer)", "right (InputLayer)", "left[0][0], right[0][0]", "dense[0][0], dense[1][0]", "Total params: 19 "} {
		if !strings.Contains(s, want) {
			t.Errorf("Summary lacks %q:\n%s", want, s)
		}
	}
	if strings.Count(s, "dense (Dense)") != 1 {
		t.Errorf("the shared layer should have one row:\n%s", s)
	}
	n := 64
	xl := keras.Array{Shape: []int{n, 4}, Data: make([]float32, n*4)}
	xr := keras.Array{Shape: []int{n, 4}, Data: make([]float32, n*4)}
	y := keras.Array{Shape: []int{n, 1}, Data: make([]float32, n)}
	for i := range xl.Data {
		xl.Data[i], xr.Data[i] = float32(math.Sin(float64(i))), float32(math.Cos(float64(i*3)))
	}
	for i := 0; i < n; i++ {
		if xl.Data[i*4] > xr.Data[i*4] {
			y.Data[i] = 1
		}
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("binary_crossentropy"), Metrics: keras.Metrics("accuracy"), Backend: be.Name(), Seed: 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Fit(context.Background(), keras.Arrays{xl, xr}, y, keras.FitOptions{Epochs: 2, BatchSize: 16, Verbose: keras.Silent}); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "shared.keras")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		loaded, err := keras.LoadModel(path, keras.LoadOptions{Backend: be.Name()})
		if err != nil {
			t.Fatal(err)
		}
		p1, _ := m.Predict(context.Background(), keras.Arrays{xl, xr}, keras.PredictOptions{})
		p2, err := loaded.Predict(context.Background(), keras.NamedArrays{"left": xl, "right": xr}, keras.PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(p1.Data, p2.Data); d > 1e-6 || loaded.CountParams() != 19 {
			t.Errorf("the loaded model differs: predictions by %g, %d params", d, loaded.CountParams())
		}
		// The sharing survives the file: one Dense, applied twice, whose
		// one set of variables both branches use.
		dense, err := loaded.GetLayer("dense")
		if err != nil {
			t.Fatal(err)
		}
		if n := len(loaded.Weights()); n != 4 || len(dense.Common().Weights()) != 2 {
			t.Errorf("the loaded model has %d variables (want 4) and its shared Dense %d (want 2)", n, len(dense.Common().Weights()))
		}
		if err := dense.Common().Weights()[0].Assign(make([]float32, 12)); err != nil {
			t.Fatal(err)
		}
		p3, err := loaded.Predict(context.Background(), keras.NamedArrays{"left": xl, "right": xr}, keras.PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// A zero shared kernel makes both branches equal (tanh of the
		// bias), so their difference is 0 and every prediction is the
		// head's sigmoid of its bias: all the same.
		for i := range p3.Data {
			if math.Abs(float64(p3.Data[i]-p3.Data[0])) > 1e-6 {
				t.Fatalf("with the shared kernel zeroed, prediction %d is %v, prediction 0 %v: the two calls do not share the layer", i, p3.Data[i], p3.Data[0])
			}
		}
	})
}

// Mistakes with several inputs and outputs are errors that name the
// inputs or outputs and say what to give, at Compile or at Fit as Keras
// reports them.
func TestFunctionalErrors(t *testing.T) {
	ctx := context.Background()
	title, meta, priority, department := ticketData(8)
	x := keras.Arrays{title, meta}
	y := keras.Arrays{priority, department}
	compiled := func() *keras.Model {
		m := ticketModel(t)
		if err := m.Compile(keras.CompileOptions{Loss: keras.ByPosition[losses.Loss](losses.MeanSquaredError{}, losses.SparseCategoricalCrossentropy{})}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := compiled()
	_, err := m.Fit(ctx, title, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 1})
	wantErr(t, err, "2 inputs [title meta]", "keras.Arrays")
	_, err = m.Fit(ctx, keras.NamedArrays{"title": title}, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 1})
	wantErr(t, err, `no array for input "meta"`)
	_, err = m.Fit(ctx, keras.NamedArrays{"title": title, "meta": meta, "body": meta}, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 1})
	wantErr(t, err, "unknown inputs [body]")
	_, err = m.Fit(ctx, x, keras.Arrays{priority}, keras.FitOptions{Verbose: keras.Silent, Epochs: 1})
	wantErr(t, err, "2 outputs [priority department]", "got 1 arrays")
	_, err = m.Fit(ctx, keras.Arrays{title, keras.Array{Shape: []int{7, 3}, Data: make([]float32, 21)}}, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 1})
	wantErr(t, err, `input "meta" has 7 samples`)
	_, err = m.Predict(ctx, x, keras.PredictOptions{})
	wantErr(t, err, "PredictOutputs")

	for _, c := range []struct {
		opts keras.CompileOptions
		want []string
	}{
		{keras.CompileOptions{Loss: keras.Loss("mse"), Metrics: keras.Metrics("accuracy")}, []string{"one entry per output", "every output of the 2 outputs"}},
		{keras.CompileOptions{Loss: keras.Loss("mse"), Metrics: keras.ByPosition([]metrics.Metric{metrics.Named("mae")})}, []string{"Metrics list has 1 entries", "2 outputs"}},
		{keras.CompileOptions{Loss: keras.ByPosition[losses.Loss](losses.MeanSquaredError{})}, []string{"Loss list has 1 losses", "2 outputs"}},
		{keras.CompileOptions{Loss: keras.ByName(map[string]losses.Loss{"priority": losses.MeanSquaredError{}, "dept": losses.MeanSquaredError{}})}, []string{`names output "dept"`, "[priority department]"}},
		{keras.CompileOptions{Loss: keras.ByPosition[losses.Loss](nil, nil)}, []string{"no output has a loss"}},
		{keras.CompileOptions{Loss: keras.Loss("mse"), LossWeights: keras.ByPosition(1.0)}, []string{"LossWeights list has 1 weights", "2 outputs"}},
		{keras.CompileOptions{Loss: keras.Loss("mse"), LossWeights: keras.ForAll(0.5)}, []string{"LossWeights is one number", "2 outputs"}},
		{keras.CompileOptions{Loss: keras.Loss("mse"), LossWeights: keras.ByName(map[string]float64{"priority": math.NaN()})}, []string{`output "priority" the weight NaN`}},
	} {
		wantErr(t, ticketModel(t).Compile(c.opts), c.want...)
	}

	in := layers.Input(3)
	other := layers.Input(3)
	out := layers.Apply(&layers.Add{}, in, other)
	_, err = keras.NewModel(in, out)
	wantErr(t, err, "not among the model's inputs")
	_, err = keras.NewFunctional([]*layers.KerasTensor{in, other, layers.Input(2)}, []*layers.KerasTensor{out})
	wantErr(t, err, "input 2", "not used by any output")
	dup := layers.NamedInput("x", 3)
	_, err = keras.NewFunctional([]*layers.KerasTensor{dup, layers.NamedInput("x", 3)}, []*layers.KerasTensor{layers.Apply(&layers.Dense{Units: 1}, dup)})
	wantErr(t, err, "not used by any output")
	a, b := layers.NamedInput("a", 2), layers.NamedInput("a", 2)
	_, err = keras.NewFunctional([]*layers.KerasTensor{a, b}, []*layers.KerasTensor{layers.Apply(&layers.Add{}, a, b)})
	wantErr(t, err, `two layers are named "a"`)

	// An output that is not trained (loss nil) is still predicted.
	m = ticketModel(t)
	if err := m.Compile(keras.CompileOptions{Loss: keras.ByPosition[losses.Loss](losses.MeanSquaredError{}, nil), Metrics: keras.ByPosition(nil, []metrics.Metric{metrics.Named("accuracy")})}); err != nil {
		t.Fatal(err)
	}
	var names []string
	cb := &callbacks.Lambda{EpochEnd: func(_ int, logs callbacks.Logs) { names = logs.Names() }}
	if _, err := m.Fit(ctx, x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 1, Callbacks: []callbacks.Callback{cb}}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names, ","); got != "loss,department_accuracy" {
		t.Errorf("logs with one trained output: %s, want loss,department_accuracy", got)
	}
}

// Fit, Evaluate and Predict leave the caller's Arrays as they were: float
// token ids for an int input are converted in a copy (they were written
// back into the caller's slice, which then held no float data).
func TestArraysAreNotChangedByFit(t *testing.T) {
	in := layers.IntInput(3)
	m := keras.Must(keras.NewModel(in, layers.Apply(&layers.Dense{Units: 1}, layers.Apply(&layers.Embedding{InputDim: 5, OutputDim: 2}, in))))
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse")}); err != nil {
		t.Fatal(err)
	}
	ids := keras.Must(keras.NewArray([]float32{1, 2, 3, 4, 0, 1}, 2, 3))
	x := keras.Arrays{ids}
	y := keras.Must(keras.NewArray(make([]float32, 6), 2, 3, 1))
	if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, Verbose: keras.Silent}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Predict(context.Background(), x, keras.PredictOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(x[0].Data) != 6 || x[0].Ints != nil {
		t.Errorf("the caller's array became %+v", x[0])
	}
}
