package keras_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
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
		// Not a residual Add(x, attention): Keras's MultiHeadAttention
		// takes the mask off x, so the sum has none (seq2seq_masked in
		// TestKerasTrainingParity trains such a model beside Keras).
		"SelfAttention": func(x *layers.KerasTensor) *layers.KerasTensor {
			a := layers.Apply(&layers.MultiHeadAttention{NumHeads: 2, KeyDim: 3}, x, x)
			return layers.Apply(&layers.GlobalAveragePooling1D{}, a)
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
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Backend: spec, Seed: 7}); err != nil {
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
		m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{steps, 2}}, &layers.Masking{MaskValue: -1}, &layers.LSTM{Units: 3}, &layers.Dense{Units: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Seed: 2}); err != nil {
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

// As in Keras, a Bidirectional that returns sequences outputs zeros at
// masked steps (its layers' zero_output_for_mask), where a plain LSTM
// repeats its previous output, on every engine.
func TestBidirectionalZeroOutputForMask(t *testing.T) {
	ids := keras.Array{Shape: []int{2, 4}, Data: []float32{3, 5, 0, 0, 7, 0, 0, 0}}
	for _, spec := range backendtest.Engines() {
		t.Run(spec, func(t *testing.T) {
			in := layers.IntInput(4)
			x := layers.Apply(&layers.Embedding{InputDim: 10, OutputDim: 3, MaskZero: true}, in)
			bi := layers.Apply(&layers.Bidirectional{Layer: &layers.LSTM{Units: 2, ReturnSequences: true}}, x)
			plain := layers.Apply(&layers.LSTM{Units: 2, ReturnSequences: true}, x)
			m, err := keras.NewFunctional([]*layers.KerasTensor{in}, []*layers.KerasTensor{bi, plain})
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Compile(keras.CompileOptions{Loss: keras.Loss("mse"), Backend: spec, Seed: 3}); err != nil {
				if strings.Contains(err.Error(), "built without") {
					t.Skip(err)
				}
				t.Fatal(err)
			}
			outs, err := m.PredictOutputs(context.Background(), ids, keras.PredictOptions{})
			if err != nil {
				t.Fatal(err)
			}
			biOut, plainOut := outs[0].Data, outs[1].Data // (2, 4, 4) and (2, 4, 2)
			for s := range 2 {
				for step := range 4 {
					masked := ids.Data[s*4+step] == 0
					row := biOut[(s*4+step)*4 : (s*4+step+1)*4]
					zero := row[0] == 0 && row[1] == 0 && row[2] == 0 && row[3] == 0
					if masked != zero {
						t.Errorf("sample %d step %d (masked %v): Bidirectional output %v", s, step, masked, row)
					}
				}
			}
			// The plain LSTM repeats its last output at a masked step.
			if plainOut[2*2] != plainOut[1*2] || plainOut[2*2] == 0 {
				t.Errorf("the plain LSTM's output at masked step 2 is %v, want step 1's %v", plainOut[4:6], plainOut[2:4])
			}
		})
	}
}

// sequenceEncoder holds its layers and calls them with Context.Apply, as
// a Keras layer's call does: the Embedding's mask reaches the LSTM, and
// the LSTM's the pooling, through the values.
type sequenceEncoder struct {
	layers.Base
	Embed *layers.Embedding
	RNN   *layers.LSTM
	Pool  *layers.GlobalAveragePooling1D
}

func (*sequenceEncoder) ClassName() string { return "SequenceEncoder" }

func (e *sequenceEncoder) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	return ctx.Apply(e.Pool, ctx.Apply(e.RNN, ctx.Apply(e.Embed, in[0])))
}

// Masks follow the values inside a layer that holds layers: padding
// changes nothing with MaskZero, and does without it.
func TestHeldLayersPassMasksOn(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		predict := func(x keras.Array, maskZero bool) []float32 {
			in := layers.IntInput(x.Shape[1])
			enc := &sequenceEncoder{Embed: &layers.Embedding{InputDim: 20, OutputDim: 4, MaskZero: maskZero},
				RNN: &layers.LSTM{Units: 3, ReturnSequences: true}, Pool: &layers.GlobalAveragePooling1D{}}
			m, err := keras.NewModel(in, layers.Apply(enc, in))
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Backend: be.Name(), Seed: 7}); err != nil {
				t.Fatal(err)
			}
			p, err := m.Predict(context.Background(), x, keras.PredictOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return p.Data
		}
		short := keras.Array{Shape: []int{2, 3}, Data: []float32{3, 1, 4, 15, 9, 2}}
		padded := keras.Array{Shape: []int{2, 6}, Data: []float32{3, 1, 4, 0, 0, 0, 15, 9, 2, 0, 0, 0}}
		if d := maxDiff(predict(padded, true), predict(short, true)); d > 1e-5 {
			t.Errorf("with MaskZero the padding changed the predictions by %.3g", d)
		}
		if d := maxDiff(predict(padded, false), predict(short, false)); d < 1e-3 {
			t.Errorf("without a mask the padding changed the predictions by only %.3g: the test cannot tell", d)
		}
	})
}
