package keras_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/kerasgo/kerasgo/internal/kerasref"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// imageDataCase is a case of scripts/keras-image-data.py.
type imageDataCase struct {
	Name      string           `json:"name"`
	Layer     any              `json:"layer"`
	Inputs    []kerasref.Array `json:"inputs"`
	Outputs   []kerasref.Array `json:"outputs"`
	Unflipped []kerasref.Array `json:"unflipped"`
}

// Every case of scripts/keras-image-data.py: Keras 3.15's image layers
// (read from Keras's own serialized config, bounding_box_format
// included) on images with boxes and labels, run by ImageAugmenter, give
// Keras's boxes and labels within 1e-3 pixels (1e-5 of the relative
// formats' fractions) and its images within 1e-3 of the 0-255 range, on
// every engine. RandomFlip draws its flips, RandomShear the sign of each
// image's shear: each image's output must be Keras's for the outcome
// kerasgo's image shows ("outputs", flipped or sheared forwards, or
// "unflipped", the other).
func TestImageAugmenterMatchesKeras(t *testing.T) {
	python := kerasref.Python(t)
	dir := t.TempDir()
	kerasref.Run(t, python, kerasref.Script(t, "keras-image-data.py"), dir)
	var idx struct {
		Keras string          `json:"keras"`
		Cases []imageDataCase `json:"cases"`
	}
	kerasref.ReadJSON(t, filepath.Join(dir, "index.json"), &idx)
	if len(idx.Cases) < 25 {
		t.Fatalf("only %d cases from the script", len(idx.Cases))
	}
	ctx := context.Background()
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, c := range idx.Cases {
			t.Run(c.Name, func(t *testing.T) {
				class, cfg, ok := serialization.ClassOrName(c.Layer)
				if !ok {
					t.Fatalf("cannot read the layer %v", c.Layer)
				}
				l, err := layers.FromConfig(class, cfg)
				if err != nil {
					t.Fatal(err)
				}
				in := func(i int) keras.Array { return keras.Array{Shape: c.Inputs[i].Shape, Data: c.Inputs[i].Float32()} }
				batch := keras.ImageBatch{Images: in(0), Boxes: in(1), BoxLabels: in(2)}
				out, err := (&keras.ImageAugmenter{Layer: l, Backend: be.Name()}).Call(ctx, batch)
				if err != nil {
					t.Fatal(err)
				}
				got := []keras.Array{out.Images, out.Boxes, out.BoxLabels}
				if c.Unflipped == nil {
					for k, want := range c.Outputs {
						if err := imageDataClose(got[k], want, k, 0, want.Shape[0]); err != nil {
							t.Fatal(err)
						}
					}
					return
				}
				for i := range c.Inputs[0].Shape[0] {
					want, outcome := c.Unflipped, "the other outcome"
					if imageDataClose(got[0], c.Outputs[0], 0, i, i+1) == nil {
						want, outcome = c.Outputs, "flipped or sheared forwards"
					}
					for k := range want {
						if err := imageDataClose(got[k], want[k], k, i, i+1); err != nil {
							t.Fatalf("image %d (%s): %v", i, outcome, err)
						}
					}
				}
			})
		}
	})
}

// imageDataClose compares images from to to of got with want: images (k 0)
// within 1e-3, boxes (k 1) within 1e-3 pixels or 1e-5 of a fraction,
// labels (k 2) exactly.
func imageDataClose(got keras.Array, want kerasref.Array, k, from, to int) error {
	if fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) {
		return fmt.Errorf("output %d has shape %v, Keras's %v", k, got.Shape, want.Shape)
	}
	per := len(want.Data) / want.Shape[0]
	for j := from * per; j < to*per; j++ {
		g, w := float64(got.Data[j]), want.Data[j]
		tol := [3]float64{1e-3, 1e-3, 0}[k]
		if k == 1 && math.Abs(w) <= 1.5 {
			tol = 1e-5
		}
		if math.Abs(g-w) > tol*math.Max(1, math.Abs(w)) {
			return fmt.Errorf("output %d: value %d (image %d) is %v, Keras's %v", k, j, j/per, g, w)
		}
	}
	return nil
}
