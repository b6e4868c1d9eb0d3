package layers_test

import (
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// The merge layers' output masks are Keras 3.15.1's (printed by Keras for
// two Embedding(mask_zero=True) outputs over ids [[1,2,3,0],[4,0,0,0]]
// and [[1,2,0,0],[4,5,6,0]], and one output without a mask): the
// elementwise merges give none when an input has none and otherwise
// keep a step that is data in any input; Concatenate counts an input
// without a mask as data everywhere, joining the masks along the steps.
func TestMergeMasksAreKeras(t *testing.T) {
	ma := backendtest.Array{Shape: backend.Shape{2, 4}, Data: []float64{1, 1, 1, 0, 1, 0, 0, 0}}
	mb := backendtest.Array{Shape: backend.Shape{2, 4}, Data: []float64{1, 1, 0, 0, 1, 1, 1, 0}}
	x := backendtest.Random(1, -1, 1, 2, 4, 2)
	cases := []struct {
		name     string
		layer    layers.Masker
		unmasked bool               // the second input has no mask
		want     *backendtest.Array // nil: no mask
	}{
		{"Add", &layers.Add{}, false, &backendtest.Array{Shape: backend.Shape{2, 4}, Data: []float64{1, 1, 1, 0, 1, 1, 1, 0}}},
		{"Add unmasked", &layers.Add{}, true, nil},
		{"Multiply unmasked", &layers.Multiply{}, true, nil},
		{"Maximum unmasked", &layers.Maximum{}, true, nil},
		{"Concatenate", &layers.Concatenate{}, false, &backendtest.Array{Shape: backend.Shape{2, 4}, Data: []float64{1, 1, 1, 0, 1, 1, 1, 0}}},
		{"Concatenate unmasked", &layers.Concatenate{}, true, &backendtest.Array{Shape: backend.Shape{2, 4}, Data: []float64{1, 1, 1, 1, 1, 1, 1, 1}}},
		{"Concatenate steps", &layers.Concatenate{Axis: 1}, false, &backendtest.Array{Shape: backend.Shape{2, 8}, Data: []float64{1, 1, 1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0}}},
		{"Concatenate steps unmasked", &layers.Concatenate{Axis: 1}, true, &backendtest.Array{Shape: backend.Shape{2, 8}, Data: []float64{1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1}}},
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, c := range cases {
			if out := layers.Apply(c.layer.(layers.Layer), layers.Input(4, 2), layers.Input(4, 2)); out.Err() != nil {
				t.Fatalf("%s: %v", c.name, out.Err())
			}
			var none bool
			got, err := backendtest.Eval(be, backend.Float32, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
				masks := []backend.Value{v[2], v[3]}
				if c.unmasked {
					masks[1] = nil
				}
				ctx := layers.NewContext(b, false, nil)
				m := c.layer.ComputeMask(ctx, v[:2], masks)
				if none = m == nil; none {
					return []backend.Value{v[0]}, nil
				}
				return []backend.Value{m}, nil
			}, []backendtest.Array{x, x, ma, mb})
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			switch {
			case c.want == nil && !none:
				t.Errorf("%s: a mask %v, Keras gives none", c.name, got[0].Data)
			case c.want != nil && none:
				t.Errorf("%s: no mask, Keras gives %v", c.name, c.want.Data)
			case c.want != nil:
				backendtest.AssertClose(t, c.name, got[0], *c.want, 0)
			}
		}
	})
}
