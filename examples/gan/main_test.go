package main

import (
	"context"
	"math"
	"testing"

	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
)

// The GAN trains on every engine with its own step and two optimizers,
// and its losses move as in Keras's guide: the discriminator soon tells
// generated images from real ones better than chance (d_loss under
// ln 2), and the generator, fooling it less, has g_loss above ln 2.
func TestGANTrains(t *testing.T) {
	example.EachEngine(t, func(t *testing.T, spec string) error {
		r, err := run(context.Background(), example.Options{Backend: spec, Epochs: 2, Train: 1536, Verbose: keras.Silent, Seed: 1}, sizes{latent: 16, filters: 8})
		if err != nil {
			return err
		}
		t.Logf("%s: d_loss %v, g_loss %v", spec, r.dLoss, r.gLoss)
		for e := range r.dLoss {
			if math.IsNaN(r.dLoss[e]) || math.IsNaN(r.gLoss[e]) {
				t.Fatalf("epoch %d: NaN loss", e+1)
			}
		}
		last := len(r.dLoss) - 1
		if r.dLoss[last] >= math.Ln2 || r.gLoss[last] <= math.Ln2 {
			t.Errorf("last epoch d_loss %.4f, g_loss %.4f: want the discriminator better than chance (< ln 2) and g_loss above ln 2", r.dLoss[last], r.gLoss[last])
		}
		lo, hi := float32(1), float32(0)
		for _, v := range r.samples.Data {
			lo, hi = min(lo, v), max(hi, v)
		}
		if lo < 0 || hi > 1 || hi-lo < 0.01 {
			t.Errorf("generated pixels span [%v, %v]: want a sigmoid's range with some contrast", lo, hi)
		}
		return nil
	})
}
