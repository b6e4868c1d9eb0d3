package keras_test

import (
	"math"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// transformCase is one case of scripts/keras-transforms.py: a random
// transform layer with a one-value range, applied by Keras in training.
type transformCase struct {
	Name          string               `json:"name"`
	Class         string               `json:"class"`
	Config        serialization.Config `json:"config"`
	Input, Output refArray
}

// RandomRotation, RandomZoom and RandomTranslation in training compute
// Keras's transform: with a range of one value (so that Keras's draw is
// known), on every fill mode and interpolation, kerasgo's training output
// on every engine equals what Keras computes, within 1e-5 (Keras
// computes the coordinates in float32).
func TestRandomTransformsMatchKeras(t *testing.T) {
	var index struct {
		Keras string          `json:"keras"`
		Cases []transformCase `json:"cases"`
	}
	transformsCorpus.Build(t, &index)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, c := range index.Cases {
			t.Run(c.Name, func(t *testing.T) {
				l, err := layers.FromConfig(c.Class, c.Config)
				if err != nil {
					t.Fatal(err)
				}
				if out := layers.Apply(l, layers.Input(c.Input.Shape[1:]...)); out.Err() != nil {
					t.Fatal(out.Err())
				}
				in := backendtest.Array{Shape: c.Input.Shape, Data: c.Input.Data}
				got, err := backendtest.Eval(be, backend.Float32, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
					ctx := layers.NewContext(b, true, map[*layers.Weight]backend.Value{})
					return []backend.Value{l.Call(ctx, v)}, nil
				}, []backendtest.Array{in})
				if err != nil {
					t.Fatal(err)
				}
				worst, at := 0.0, 0
				for i, w := range c.Output.Data {
					if d := math.Abs(got[0].Data[i] - w); d > worst {
						worst, at = d, i
					}
				}
				if worst > 1e-5 {
					t.Fatalf("value %d is %v, Keras %v (largest difference %g)", at, got[0].Data[at], c.Output.Data[at], worst)
				}
			})
		}
	})
	if len(index.Cases) < 48 {
		t.Fatalf("only %d cases", len(index.Cases))
	}
}
