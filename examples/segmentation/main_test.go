package main

import (
	"context"
	"testing"

	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
)

// The U-Net learns to segment on every engine (512 drawings of 32×32, 8
// epochs): held-out pixels are classified well above the background's
// share (about 0.90), and both shapes are found; measured: pixel accuracy
// 0.954, IoU disc 0.61 and square 0.24 on both engines (the page shows
// masks of pets; there is no number to compare).
func TestSegmentationLearns(t *testing.T) {
	example.EachEngine(t, func(t *testing.T, spec string) error {
		r, err := run(context.Background(), example.Options{Backend: spec, Epochs: 8, Train: 512, Test: 64, Verbose: keras.Silent, Seed: 1}, 8, []int{16, 32})
		if err != nil {
			return err
		}
		t.Logf("%s: pixel accuracy %.3f; IoU background %.3f, disc %.3f, square %.3f; loss by epoch %.4f", spec, r.accuracy, r.iou[0], r.iou[1], r.iou[2], r.loss)
		if r.accuracy < 0.93 || r.iou[1] < 0.4 || r.iou[2] < 0.15 {
			t.Errorf("pixel accuracy %.3f, IoU disc %.3f and square %.3f: want above 0.93, 0.4 and 0.15", r.accuracy, r.iou[1], r.iou[2])
		}
		return nil
	})
}
