package keras_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// Masks travel as in Keras: with Embedding(MaskZero), a model fed
// sequences padded with zeros at the end predicts what it predicts on the
// sequences without the padding (within 1e-5), for an LSTM, a
// Bidirectional GRU (whose backward half meets the padding first), a
// GlobalAveragePooling1D and a self-attention block, on every engine.
func TestMaskedPaddingChangesNothing(t *testing.T) {
	bodies := map[string]func(x *layers.KerasTensor) *layers.KerasTensor{
		"LSTM": func(x *layers.KerasTensor) *layers.KerasTensor {
			return layers.Apply(&layers.LSTM{Units: 3}, layers.Apply(&layers.Dense{Units: 4, Activation: "tanh"}, x))
		},
		"BidirectionalGRU": func(x *layers.KerasTensor) *layers.KerasTensor {
			seq := layers.Apply(&layers.Bidirectional{Layer: &layers.GRU{Units: 3, ReturnSequences: true}}, x)
			return layers.Apply(&layers.GlobalAveragePooling1D{}, seq)
		},
		"GlobalAveragePooling1D": func(x *layers.KerasTensor) *layers.KerasTensor {
			return layers.Apply(&layers.GlobalAveragePooling1D{}, x)
		},
		"SelfAttention": func(x *layers.KerasTensor) *layers.KerasTensor {
			a := layers.Apply(&layers.MultiHeadAttention{NumHeads: 2, KeyDim: 3}, x, x)
			return layers.Apply(&layers.GlobalAveragePooling1D{}, layers.Apply(&layers.Add{}, x, a))
		},
	}
	build := func(t *testing.T, steps int, body func(*layers.KerasTensor) *layers.KerasTensor, spec string, maskZero bool) *keras.Model {
		in := layers.IntInput(steps) // ids as int32 (the mask casts them)
		x := layers.Apply(&layers.Embedding{InputDim: 20, OutputDim: 4, MaskZero: maskZero}, in)
		out := layers.Apply(&layers.Dense{Units: 2}, body(x))
		m, err := keras.NewModel(in, out)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(keras.CompileOptions{Optimizer: "sgd", Loss: "mse", Backend: spec, Seed: 7}); err != nil {
			if strings.Contains(err.Error(), "built without") {
				t.Skip(err)
			}
			t.Fatal(err)
		}
		return m
	}
	short := keras.Array{Shape: []int{3, 5}, Data: []float32{3, 1, 4, 15, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3}}
	padded := keras.Array{Shape: []int{3, 8}, Data: make([]float32, 3*8)}
	for i := range 3 {
		copy(padded.Data[i*8:i*8+5], short.Data[i*5:i*5+5])
	}
	for _, spec := range backendtest.Engines() {
		for name, body := range bodies {
			t.Run(spec+"/"+name, func(t *testing.T) {
				long, cut, unmasked := build(t, 8, body, spec, true), build(t, 5, body, spec, true), build(t, 8, body, spec, false)
				w, err := long.GetWeights()
				if err != nil {
					t.Fatal(err)
				}
				if err := cut.SetWeights(w); err != nil {
					t.Fatal(err)
				}
				if err := unmasked.SetWeights(w); err != nil {
					t.Fatal(err)
				}
				a, err := long.Predict(context.Background(), padded, keras.PredictOptions{})
				if err != nil {
					t.Fatal(err)
				}
				b, err := cut.Predict(context.Background(), short, keras.PredictOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if d := maxDiff(a.Data, b.Data); d > 1e-5 {
					t.Errorf("padded %v vs unpadded %v: differ by %.3g", a.Data, b.Data, d)
				}
				// Without the mask the padding does change the result.
				c, err := unmasked.Predict(context.Background(), padded, keras.PredictOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if d := maxDiff(c.Data, b.Data); d < 1e-3 {
					t.Errorf("without a mask the padding changed the predictions by only %.3g: the test cannot tell", d)
				}
			})
		}
	}
}

// Masking marks steps whose features all equal the mask value: an LSTM
// after it ignores them.
func TestMaskingLayer(t *testing.T) {
	build := func(steps int) *keras.Model {
		m, err := keras.NewSequential(layers.Input(steps, 2), &layers.Masking{MaskValue: -1}, &layers.LSTM{Units: 3}, &layers.Dense{Units: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(keras.CompileOptions{Optimizer: "sgd", Loss: "mse", Seed: 2}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	long, cut := build(4), build(2)
	w, _ := long.GetWeights()
	if err := cut.SetWeights(w); err != nil {
		t.Fatal(err)
	}
	x := keras.Array{Shape: []int{1, 4, 2}, Data: []float32{0.5, 0.2, -1, -1, 0.3, -0.7, -1, -1}}
	xs := keras.Array{Shape: []int{1, 2, 2}, Data: []float32{0.5, 0.2, 0.3, -0.7}}
	a, err := long.Predict(context.Background(), x, keras.PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := cut.Predict(context.Background(), xs, keras.PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(a.Data, b.Data); d > 1e-6 {
		t.Errorf("with masked steps %v, without them %v", a.Data, b.Data)
	}
}
