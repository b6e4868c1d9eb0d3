package main

import (
	"context"
	"testing"

	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
)

// Grad-CAM runs on every engine (a gradient with respect to a layer's
// output, inside one compiled function): after 5 epochs on 4096
// Fashion-MNIST images the classifier learns, and its heatmaps fall on
// the garments more than their share of the image (the page shows one
// Xception heatmap on one photograph; there is no number to compare).
func TestGradCAMLooksAtTheGarment(t *testing.T) {
	example.EachEngine(t, func(t *testing.T, spec string) error {
		r, err := run(context.Background(), example.Options{Backend: spec, Epochs: 5, Train: 4096, Test: 500, Verbose: keras.Silent, Seed: 1})
		if err != nil {
			return err
		}
		t.Logf("%s: test accuracy %.3f; %.1f%% of the heatmaps' mass on the garments, which cover %.1f%% of the images",
			spec, r.accuracy, 100*r.onObject, 100*r.objectArea)
		if r.accuracy < 0.6 {
			t.Errorf("test accuracy %.3f: want above 0.6", r.accuracy)
		}
		// measured: 0.535 against 0.463 on both engines
		if r.onObject < r.objectArea+0.03 {
			t.Errorf("%.3f of the heatmaps on the garments, which cover %.3f: want at least 0.03 more", r.onObject, r.objectArea)
		}
		return nil
	})
}
