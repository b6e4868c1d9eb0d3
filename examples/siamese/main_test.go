package main

import (
	"context"
	"testing"

	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
)

// The Siamese network learns on every engine: on 2048 pairs from 1024
// Fashion-MNIST images for 3 epochs (the page: MNIST, 60000 pairs, 10
// epochs, about 99% test accuracy), test-pair accuracy is well above
// chance (0.5) and the contrastive loss falls.
func TestSiameseLearns(t *testing.T) {
	example.EachEngine(t, func(t *testing.T, spec string) error {
		r, err := run(context.Background(), example.Options{Backend: spec, Epochs: 3, Train: 1024, Test: 500, Verbose: keras.Silent, Seed: 1})
		if err != nil {
			return err
		}
		t.Logf("%s: test pairs accuracy %.3f, loss %.4f; training loss by epoch %.4f", spec, r.accuracy, r.loss, r.trainLoss)
		if r.accuracy < 0.75 {
			t.Errorf("test pair accuracy %.3f: want above 0.75 (chance is 0.5)", r.accuracy)
		}
		if l := r.trainLoss; l[len(l)-1] >= l[0] {
			t.Errorf("contrastive loss %v did not fall", l)
		}
		return nil
	})
}
