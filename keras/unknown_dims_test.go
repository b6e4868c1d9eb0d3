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
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// A model over sequences of any length (Keras's Input((None, 3))): it
// predicts and trains on data of different lengths, each step compiled
// for its shape, saves its input as (None, None, 3) and loads again; a
// layer that needs the length is refused naming it.
func TestUnknownLengths(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		in := layers.Input(-1, 3)
		seq := layers.Apply(&layers.LSTM{Units: 4, ReturnSequences: true}, in)
		out := layers.Apply(&layers.Dense{Units: 2}, seq)
		m, err := keras.NewFunctional([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("mse"), Backend: be.Name(), Seed: 1}); err != nil {
			t.Fatal(err)
		}
		for _, steps := range []int{5, 7} {
			x := backendtest.Random(uint64(steps), -1, 1, 4, steps, 3)
			xa := keras.Must(keras.NewArray(toFloat32(x.Data), 4, steps, 3))
			y := keras.Must(keras.NewArray(make([]float32, 4*steps*2), 4, steps, 2))
			if _, err := m.Fit(context.Background(), xa, y, keras.FitOptions{Epochs: 1, BatchSize: 2, Verbose: keras.Silent}); err != nil {
				t.Fatalf("%d steps: %v", steps, err)
			}
			p, err := m.Predict(context.Background(), xa, keras.PredictOptions{})
			if err != nil {
				t.Fatalf("%d steps: %v", steps, err)
			}
			if !backend.Shape(p.Shape).Equal(backend.Shape{4, steps, 2}) {
				t.Fatalf("%d steps: prediction of shape %v", steps, p.Shape)
			}
		}
		path := filepath.Join(t.TempDir(), "any_length.keras")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		back, err := keras.LoadModel(path, keras.LoadOptions{Backend: be.Name()})
		if err != nil {
			t.Fatal(err)
		}
		if s := back.Inputs()[0].Shape(); !s.Equal(backend.Shape{-1, -1, 3}) {
			t.Errorf("loaded input shape %v, want (None, None, 3)", s)
		}
	})
	flat := layers.Apply(&layers.Flatten{}, layers.Input(-1, 3))
	if err := flat.Err(); err == nil || !strings.Contains(err.Error(), `"flatten"`) && !strings.Contains(err.Error(), "Flatten") || !strings.Contains(err.Error(), "unknown length") {
		t.Errorf("Flatten over a sequence of any length: error %v, want one naming the layer and the unknown length", err)
	}
}

// anyLengthCase is a layer (or a few) applied to sequences of any
// length: build makes new layers each time it is called.
type anyLengthCase struct {
	name  string
	ids   bool // the input is token ids (with padding 0), not vectors
	build func(in *layers.KerasTensor) *layers.KerasTensor
}

// The sequence layers take inputs of any length (Keras's Input((None,
// ...))) on both engines, and compute for each length what the same
// layers built for that length compute with the same weights: masks (an
// Embedding's mask_zero, Masking) included.
func TestSequenceLayersTakeAnyLength(t *testing.T) {
	embed := func(in *layers.KerasTensor) *layers.KerasTensor {
		return layers.Apply(&layers.Embedding{InputDim: 9, OutputDim: 6, MaskZero: true}, in)
	}
	encoder := func(in *layers.KerasTensor) *layers.KerasTensor { // keras.io's TransformerEncoder
		x := embed(in)
		a := layers.Apply(&layers.MultiHeadAttention{NumHeads: 2, KeyDim: 3}, x, x)
		x = layers.Apply(&layers.LayerNormalization{}, layers.Apply(&layers.Add{}, x, a))
		f := layers.Apply(&layers.Dense{Units: 6}, layers.Apply(&layers.Dense{Units: 8, Activation: "relu"}, x))
		return layers.Apply(&layers.Dense{Units: 3}, layers.Apply(&layers.LayerNormalization{}, layers.Apply(&layers.Add{}, x, f)))
	}
	cases := []anyLengthCase{
		{"transformer_encoder", true, encoder},
		{"masking_lstm", false, func(in *layers.KerasTensor) *layers.KerasTensor {
			return layers.Apply(&layers.LSTM{Units: 3, ReturnSequences: true}, layers.Apply(&layers.Masking{}, in))
		}},
		{"bidirectional", true, func(in *layers.KerasTensor) *layers.KerasTensor {
			return layers.Apply(&layers.Bidirectional{Layer: &layers.GRU{Units: 3, ReturnSequences: true}}, embed(in))
		}},
		{"time_distributed", false, func(in *layers.KerasTensor) *layers.KerasTensor {
			return layers.Apply(&layers.TimeDistributed{Layer: &layers.Dense{Units: 2}}, in)
		}},
		{"conv1d_pools", false, func(in *layers.KerasTensor) *layers.KerasTensor {
			x := layers.Apply(&layers.Conv1D{Filters: 3, KernelSize: 3, Padding: "same", Activation: "relu"}, in)
			x = layers.Apply(&layers.Conv1D{Filters: 3, KernelSize: 2}, x)
			pool := &layers.MaxPooling1D{}
			pool.Strides, pool.Padding = 1, "same"
			return layers.Apply(&layers.AveragePooling1D{}, layers.Apply(pool, x))
		}},
		{"concatenate_steps", false, func(in *layers.KerasTensor) *layers.KerasTensor {
			return layers.Apply(&layers.Concatenate{Axis: 1}, in, layers.Apply(&layers.Dense{Units: 4}, in))
		}},
		{"attention_layers", true, func(in *layers.KerasTensor) *layers.KerasTensor {
			x := embed(in)
			a := layers.Apply(&layers.Attention{ScoreMode: "concat"}, x, x)
			return layers.Apply(&layers.Concatenate{}, a, layers.Apply(&layers.AdditiveAttention{}, x, x))
		}},
		{"normalizations", false, func(in *layers.KerasTensor) *layers.KerasTensor {
			x := layers.Apply(&layers.BatchNormalization{}, in)
			x = layers.Apply(&layers.GroupNormalization{Groups: 2}, x)
			return layers.Apply(&layers.Multiply{}, layers.Apply(&layers.ReLU{}, x), layers.Apply(&layers.Rescaling{Scale: 0.5}, x))
		}},
		{"padding_cropping", false, func(in *layers.KerasTensor) *layers.KerasTensor {
			x := layers.Apply(&layers.ZeroPadding1D{Padding: [2]int{1, 2}}, in)
			x = layers.Apply(&layers.UpSampling1D{Size: 2}, x)
			return layers.Apply(&layers.Cropping1D{Cropping: [2]int{2, 1}}, x)
		}},
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				input := func(steps int) *layers.KerasTensor {
					if c.ids {
						return layers.IntInput(steps)
					}
					return layers.Input(steps, 4)
				}
				model := func(steps int) *keras.Model {
					in := input(steps)
					m, err := keras.NewModel(in, c.build(in))
					if err != nil {
						t.Fatalf("%d steps: %v", steps, err)
					}
					if err := m.Compile(keras.CompileOptions{Loss: keras.Loss("mse"), Backend: be.Name(), Seed: 3}); err != nil {
						t.Fatal(err)
					}
					return m
				}
				anyLength := model(-1)
				weights, err := anyLength.GetWeights()
				if err != nil {
					t.Fatal(err)
				}
				for _, steps := range []int{4, 7} {
					x := anyLengthData(c.ids, 3, steps)
					got, err := anyLength.Predict(context.Background(), x, keras.PredictOptions{})
					if err != nil {
						t.Fatalf("%d steps: %v", steps, err)
					}
					fixed := model(steps)
					if err := fixed.SetWeights(weights); err != nil {
						t.Fatal(err)
					}
					want, err := fixed.Predict(context.Background(), x, keras.PredictOptions{})
					if err != nil {
						t.Fatal(err)
					}
					if !backend.Shape(got.Shape).Equal(backend.Shape(want.Shape)) {
						t.Fatalf("%d steps: output %v, the fixed-length model's %v", steps, got.Shape, want.Shape)
					}
					for i := range want.Data {
						if d := math.Abs(float64(got.Data[i] - want.Data[i])); d > 1e-5 {
							t.Fatalf("%d steps: output %d is %v, the fixed-length model's %v", steps, i, got.Data[i], want.Data[i])
						}
					}
				}
			})
		}
	})
}

// anyLengthData returns n sequences of steps token ids (padded with 0
// after a length of 2 to steps) or of steps vectors of 4 features
// (zeroed there, as Masking pads).
func anyLengthData(ids bool, n, steps int) keras.Array {
	if ids {
		data := make([]int32, n*steps)
		for i := range n {
			for s := range min(steps, 2+i*2) {
				data[i*steps+s] = int32(1 + (i*5+s*3)%8)
			}
		}
		return keras.Must(keras.NewIntArray(data, n, steps))
	}
	data := make([]float32, n*steps*4)
	for i := range n {
		for s := range min(steps, 2+i*2) {
			for f := range 4 {
				data[(i*steps+s)*4+f] = float32(math.Sin(float64(i*31 + s*7 + f)))
			}
		}
	}
	return keras.Must(keras.NewArray(data, n, steps, 4))
}

// newAnyLengthEncoder is keras.io's NLP pattern: token ids of any length
// (Input(shape=(None,), dtype="int64")), an Embedding with mask_zero, a
// TransformerEncoder block, and a tag per step.
func newAnyLengthEncoder(t *testing.T, be backend.Backend) *keras.Model {
	t.Helper()
	in := layers.IntInput(-1)
	x := layers.Apply(&layers.Embedding{InputDim: 9, OutputDim: 8, MaskZero: true}, in)
	a := layers.Apply(&layers.MultiHeadAttention{NumHeads: 2, KeyDim: 4}, x, x)
	x = layers.Apply(&layers.LayerNormalization{}, layers.Apply(&layers.Add{}, x, a))
	f := layers.Apply(&layers.Dense{Units: 8}, layers.Apply(&layers.Dense{Units: 16, Activation: "relu"}, x))
	x = layers.Apply(&layers.LayerNormalization{}, layers.Apply(&layers.Add{}, x, f))
	m := keras.Must(keras.NewModel(in, layers.Apply(&layers.Dense{Units: 3, Activation: "softmax"}, x)))
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{LearningRate: 0.01}, Loss: keras.Loss("sparse_categorical_crossentropy"),
		Metrics: keras.Metrics("accuracy"), Backend: be.Name(), Seed: 5}); err != nil {
		t.Fatal(err)
	}
	return m
}

// taggingData returns n padded id sequences of steps ids and a tag per
// step (the id's parity, 2 for padding: the encoder's residual sums drop
// the mask, as in Keras, so the padding is learned too).
func taggingData(n, steps int) (keras.Array, keras.Array) {
	x := anyLengthData(true, n, steps)
	y := make([]float32, len(x.Ints))
	for i, id := range x.Ints {
		y[i] = float32(id % 2)
		if id == 0 {
			y[i] = 2
		}
	}
	return x, keras.Must(keras.NewArray(y, n, steps))
}

// The keras.io NLP pattern trains on batches of different lengths, saves
// with its input of any length, loads, and predicts what it predicted.
func TestAnyLengthEncoderTrainsSavesAndLoads(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m := newAnyLengthEncoder(t, be)
		var first, last float64
		for epoch := range 8 {
			for _, steps := range []int{5, 9} {
				x, y := taggingData(8, steps)
				h, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, BatchSize: 4, Verbose: keras.Silent})
				if err != nil {
					t.Fatalf("%d steps: %v", steps, err)
				}
				loss := h.Logs["loss"][0]
				if epoch == 0 && steps == 5 {
					first = loss
				}
				last = loss
			}
		}
		if !(last < first*0.8) {
			t.Errorf("the loss went from %v to %v: it did not learn", first, last)
		}
		path := filepath.Join(t.TempDir(), "encoder.keras")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		back, err := keras.LoadModel(path, keras.LoadOptions{Backend: be.Name()})
		if err != nil {
			t.Fatal(err)
		}
		if s := back.Inputs()[0].Shape(); !s.Equal(backend.Shape{-1, -1}) {
			t.Errorf("loaded input shape %v, want (None, None)", s)
		}
		for _, steps := range []int{3, 11} {
			x, _ := taggingData(4, steps)
			want, err := m.Predict(context.Background(), x, keras.PredictOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := back.Predict(context.Background(), x, keras.PredictOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range want.Data {
				if math.Abs(float64(got.Data[i]-want.Data[i])) > 1e-6 {
					t.Fatalf("%d steps: the loaded model predicts %v at %d, the saved one %v", steps, got.Data[i], i, want.Data[i])
				}
			}
		}
	})
}
