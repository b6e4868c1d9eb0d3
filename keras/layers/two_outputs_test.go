package layers_test

import (
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// Keras's layers with two outputs: Bidirectional with merge_mode=None
// (forward, backward) and MultiHeadAttention with
// return_attention_scores (output, scores); their values are checked
// against Keras by the catalogue (TestKerasCatalogue).
func TestTwoOutputLayers(t *testing.T) {
	bi, err := layers.FromConfig("Bidirectional", decodeConfig(t,
		`{"name": "bi", "merge_mode": null, "layer": {"class_name": "GRU", "config": {"units": 3, "return_sequences": true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	outs := layers.ApplyOutputs(bi, layers.Input(5, 2))
	if len(outs) != 2 || !outs[0].Shape().Equal(backend.Shape{-1, 5, 3}) || !outs[1].Shape().Equal(backend.Shape{-1, 5, 3}) {
		t.Fatalf("Bidirectional merge_mode=None gives %d outputs %v", len(outs), outs)
	}
	cfg, err := layers.Config(bi)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := cfg["merge_mode"]; !ok || v != nil {
		t.Errorf("merge_mode saved as %v, want null", v)
	}

	mha := &layers.MultiHeadAttention{NumHeads: 2, KeyDim: 3}
	if !mha.SetCallKwarg("return_attention_scores", true) {
		t.Fatal("return_attention_scores refused")
	}
	outs = layers.ApplyOutputs(mha, layers.Input(4, 6), layers.Input(7, 6))
	if len(outs) != 2 || !outs[0].Shape().Equal(backend.Shape{-1, 4, 6}) || !outs[1].Shape().Equal(backend.Shape{-1, 2, 4, 7}) {
		t.Fatalf("MultiHeadAttention with scores gives %d outputs %v", len(outs), outs)
	}
	if kw := mha.CallKwargs(); kw["return_attention_scores"] != true {
		t.Errorf("call kwargs %v lack return_attention_scores", kw)
	}
}
