package main

import (
	"context"
	"testing"

	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
)

// The Distiller trains a student from an outside teacher on every engine,
// on 4096 Fashion-MNIST images for 3 epochs (the page: MNIST, 5 + 3
// epochs, teacher 97.8%, distilled 97.2%, scratch 96.8%): the teacher
// and the distilled student learn, and the distillation loss falls.
func TestDistillationLearns(t *testing.T) {
	example.EachEngine(t, func(t *testing.T, spec string) error {
		r, err := run(context.Background(), example.Options{Backend: spec, Epochs: 3, Train: 4096, Test: 1000, Verbose: keras.Silent, Seed: 1}, 32, 8)
		if err != nil {
			return err
		}
		t.Logf("%s: test accuracy teacher %.3f, distilled student %.3f, scratch student %.3f; distillation loss by epoch %.4f",
			spec, r.teacher, r.distilled, r.scratch, r.distillationLoss)
		if r.teacher < 0.6 || r.distilled < 0.6 {
			t.Errorf("teacher %.3f and distilled student %.3f: want both above 0.6 (chance is 0.1)", r.teacher, r.distilled)
		}
		if l := r.distillationLoss; l[len(l)-1] >= l[0] {
			t.Errorf("distillation loss %v did not fall", l)
		}
		return nil
	})
}
