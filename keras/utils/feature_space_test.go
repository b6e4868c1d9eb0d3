package utils_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/utils"
)

// heartTable is a small table of keras.io's heart-disease kind, with a
// target that depends on the features (sex and thal, and age crossed
// with sex).
func heartTable(n int) (keras.NamedArrays, keras.Array) {
	sex := keras.Array{Shape: []int{n}, Ints: make([]int32, n)}
	ca := keras.Array{Shape: []int{n}, Ints: make([]int32, n)}
	age := keras.Array{Shape: []int{n}, Data: make([]float32, n)}
	bps := keras.Array{Shape: []int{n}, Data: make([]float32, n)}
	thal := keras.Array{Shape: []int{n}, Strings: make([]string, n)}
	y := keras.Array{Shape: []int{n, 1}, Data: make([]float32, n)}
	for i := range n {
		sex.Ints[i] = int32(i % 2)
		ca.Ints[i] = int32(i * 7 % 4)
		age.Data[i] = float32(30 + (i*7)%40)
		bps.Data[i] = float32(100 + (i*13)%60)
		thal.Strings[i] = []string{"normal", "fixed", "reversible"}[i*5%3]
		if (sex.Ints[i] == 1) != (age.Data[i] > 50) || thal.Strings[i] == "fixed" {
			y.Data[i] = 1
		}
	}
	return keras.NamedArrays{"sex": sex, "ca": ca, "age": age, "trestbps": bps, "thal": thal}, y
}

func heartSpace() *utils.FeatureSpace {
	return &utils.FeatureSpace{
		Features: map[string]utils.Feature{
			"sex":      {Type: utils.IntegerCategorical, NoOOVIndices: true},
			"ca":       {Type: utils.IntegerCategorical, NoOOVIndices: true},
			"thal":     {Type: utils.StringCategorical, NoOOVIndices: true},
			"age":      {Type: utils.FloatDiscretized, NumBins: 8},
			"trestbps": {Type: utils.FloatNormalized},
		},
		Crosses: []utils.Cross{{FeatureNames: []string{"sex", "age"}, CrossingDim: 16}, {FeatureNames: []string{"thal", "ca"}, CrossingDim: 8}},
	}
}

// keras.io's end-to-end model: the FeatureSpace's inputs and encoded
// features under a small classifier, trained on the raw columns, saved,
// loaded, and predicting the same, on every engine.
func TestFeatureSpaceEndToEndModel(t *testing.T) {
	ctx := context.Background()
	x, y := heartTable(256)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		fs := heartSpace()
		if err := fs.Adapt(ctx, x); err != nil {
			t.Fatal(err)
		}
		ins, err := fs.InputList()
		if err != nil {
			t.Fatal(err)
		}
		enc, err := fs.EncodedFeatures()
		if err != nil {
			t.Fatal(err)
		}
		// age 8 + ca 4 + sex 2 + thal 3 + trestbps 1, then 16 + 8 crossed
		if got := enc.Shape(); len(got) != 2 || got[1] != 42 {
			t.Fatalf("encoded features of shape %v, want (batch, 42)", got)
		}
		h := layers.Apply(&layers.Dense{Units: 16, Activation: "relu"}, enc)
		m, err := keras.NewFunctional(ins, []*layers.KerasTensor{layers.Apply(&layers.Dense{Units: 1, Activation: "sigmoid"}, h)})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{LearningRate: 0.02}, Loss: keras.Loss("binary_crossentropy"),
			Metrics: keras.Metrics("accuracy"), Backend: be.Name(), Seed: 1}); err != nil {
			t.Fatal(err)
		}
		hist, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: 30, BatchSize: 32, Verbose: keras.Silent})
		if err != nil {
			t.Fatal(err)
		}
		acc := hist.Logs["accuracy"]
		t.Logf("%s: accuracy %.3f -> %.3f", be.Name(), acc[0], acc[len(acc)-1])
		if acc[len(acc)-1] < 0.9 {
			t.Errorf("accuracy %.3f after 30 epochs: the model on the encoded features did not learn the rule", acc[len(acc)-1])
		}
		path := filepath.Join(t.TempDir(), "heart.keras")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		back, err := keras.LoadModel(path, keras.LoadOptions{Backend: be.Name()})
		if err != nil {
			t.Fatal(err)
		}
		p1, err := m.Predict(ctx, x, keras.PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p2, err := back.Predict(ctx, x, keras.PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range p1.Data {
			if d := p1.Data[i] - p2.Data[i]; d > 1e-6 || d < -1e-6 {
				t.Fatalf("prediction %d is %v after loading, %v before", i, p2.Data[i], p1.Data[i])
			}
		}
	})
}

// Output mode "dict" gives each feature and cross by name, with
// "int"-mode features left as indices.
func TestFeatureSpaceDict(t *testing.T) {
	x, _ := heartTable(64)
	fs := &utils.FeatureSpace{OutputMode: "dict", Features: map[string]utils.Feature{
		"thal": {Type: utils.StringCategorical, OutputMode: "int"},
		"age":  {Type: utils.FloatDiscretized, NumBins: 4},
	}, Crosses: []utils.Cross{{FeatureNames: []string{"thal", "age"}, CrossingDim: 8, OutputMode: "int"}}}
	if err := fs.Adapt(context.Background(), x); err != nil {
		t.Fatal(err)
	}
	enc, err := fs.EncodedFeatureMap()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]backend.DType{"thal": backend.Int64, "age": backend.Float32, "thal_X_age": backend.Int64} {
		v, ok := enc[name]
		if !ok {
			t.Fatalf("no encoded feature %q in %v", name, enc)
		}
		if v.DType() != want {
			t.Errorf("feature %q is %v, want %v", name, v.DType(), want)
		}
	}
	if got := enc["age"].Shape(); got[1] != 4 {
		t.Errorf("age one-hot of shape %v, want (batch, 4)", got)
	}
	if _, err := fs.EncodedFeatures(); err == nil || !strings.Contains(err.Error(), "EncodedFeatureMap") {
		t.Errorf("EncodedFeatures in dict mode: got %v, want an error pointing to EncodedFeatureMap", err)
	}
}

// Bad settings and data get Keras's kind of error: the name, the value,
// and what is allowed.
func TestFeatureSpaceErrors(t *testing.T) {
	ctx := context.Background()
	x, _ := heartTable(40)
	cases := []struct {
		name string
		fs   *utils.FeatureSpace
		data keras.NamedArrays
		want []string
	}{
		{"no features", &utils.FeatureSpace{}, x, []string{"Features cannot be empty"}},
		{"unknown type", &utils.FeatureSpace{Features: map[string]utils.Feature{"age": {Type: "float_normalised"}}}, x,
			[]string{`feature "age"`, `"float_normalised"`, "float_normalized"}},
		{"bad output mode", &utils.FeatureSpace{OutputMode: "stack", Features: map[string]utils.Feature{"age": {Type: utils.FloatFeature}}}, x,
			[]string{`OutputMode "stack"`, `"concat" or "dict"`}},
		{"one_hot of floats", &utils.FeatureSpace{Features: map[string]utils.Feature{"age": {Type: utils.FloatNormalized, OutputMode: "one_hot"}}}, x,
			[]string{`feature "age"`, "gives floats", `"float"`}},
		{"unknown cross feature", &utils.FeatureSpace{Features: map[string]utils.Feature{"sex": {Type: utils.IntegerCategorical}},
			Crosses: []utils.Cross{{FeatureNames: []string{"sex", "smoker"}}}}, x, []string{`"smoker"`, "present in Features"}},
		{"int feature in concat", &utils.FeatureSpace{Features: map[string]utils.Feature{"thal": {Type: utils.StringCategorical, OutputMode: "int"}}}, x,
			[]string{"cannot concatenate", `"thal"`, `OutputMode "dict"`}},
		{"missing column", heartSpace(), keras.NamedArrays{"sex": x["sex"]}, []string{"no column", `"age"`}},
		{"strings as numbers", &utils.FeatureSpace{Features: map[string]utils.Feature{"thal": {Type: utils.IntegerCategorical}}}, x,
			[]string{`column "thal"`, "integer feature", "Ints"}},
		{"no preprocessor", &utils.FeatureSpace{Features: map[string]utils.Feature{"x": {}}}, x, []string{`feature "x"`, "no Type and no Preprocessor"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.fs.Adapt(ctx, c.data)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	unadapted := heartSpace()
	if _, err := unadapted.Call(ctx, x); err == nil || !strings.Contains(err.Error(), "call Adapt") {
		t.Errorf("Call before Adapt: got %v, want an error saying to call Adapt", err)
	}
}

// An adapted FeatureSpace is called from many goroutines at once (the
// first calls race to make its model), each getting the same encoding.
func TestFeatureSpaceConcurrentCall(t *testing.T) {
	ctx := context.Background()
	x, _ := heartTable(48)
	fs := heartSpace()
	if err := fs.Adapt(ctx, x); err != nil {
		t.Fatal(err)
	}
	outs := make([]keras.Array, 8)
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = fs.Call(ctx, x)
		}()
	}
	wg.Wait()
	for i := range outs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !slices.Equal(outs[i].Data, outs[0].Data) {
			t.Fatalf("call %d encoded differently from call 0", i)
		}
	}
}
