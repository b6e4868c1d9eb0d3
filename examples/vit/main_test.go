package main

import (
	"context"
	"testing"

	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
)

// The Vision Transformer learns on every engine: 7×7 patches of 4096
// Fashion-MNIST images, one block of 2 heads, 3 epochs (the page:
// CIFAR-100 at 72×72, 8 blocks, 100 epochs, about 55% top-1).
func TestViTLearns(t *testing.T) {
	example.EachEngine(t, func(t *testing.T, spec string) error {
		r, err := run(context.Background(), example.Options{Backend: spec, Epochs: 3, Train: 4096, Test: 500, Verbose: keras.Silent, Seed: 1},
			Config{PatchSize: 7, Dim: 32, Heads: 2, Blocks: 1, Classes: 10, MLPUnits: []int{64}})
		if err != nil {
			return err
		}
		t.Logf("%s: test accuracy %.3f; loss by epoch %.4f", spec, r.accuracy, r.loss)
		if r.accuracy < 0.6 {
			t.Errorf("test accuracy %.3f: want above 0.6 (chance is 0.1)", r.accuracy)
		}
		if l := r.loss; l[len(l)-1] >= l[0] {
			t.Errorf("loss %v did not fall", l)
		}
		return nil
	})
}
