package keras

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// ImageBatch is a batch of images with what moves with them, as host
// arrays: Keras's dict {"images", "bounding_boxes": {"boxes", "labels"},
// "labels", "segmentation_masks"}. Every field but Images may be the
// zero Array (absent).
type ImageBatch struct {
	// Images is (batch, height, width, channels).
	Images Array
	// Boxes is (batch, boxes, 4), in the layers' BoundingBoxFormat; pad
	// images with fewer boxes with -1 (MaxNumBoundingBoxes does).
	Boxes Array
	// BoxLabels is (batch, boxes): each box's class, -1 for padding. The
	// result holds them as Data (float32) whichever way they came.
	BoxLabels Array
	// Labels are the images' own labels, (batch, classes), which MixUp
	// and CutMix mix.
	Labels Array
	// SegmentationMasks is (batch, height, width, channels), a class per
	// pixel, moved with the pixels (sampled at the nearest pixel). The
	// result holds them as Data (float32) whichever way they came.
	SegmentationMasks Array
}

// ImageAugmenter runs an image preprocessing layer, or a layers.Pipeline
// of them, over batches of images with their bounding boxes, labels and
// segmentation masks, as Keras's dataset.map(augmenter) runs one over
// {"images", "bounding_boxes", "labels", "segmentation_masks"} dicts: one
// random draw per layer moves an image, its boxes, its labels and its
// masks together. Use it where the batches are
// made, in a Dataset's Batch or a generator for keras.Batches:
//
//	aug := &keras.ImageAugmenter{Layer: &layers.Pipeline{Layers: []layers.Layer{
//		&layers.RandomFlip{Mode: "horizontal", BoundingBoxFormat: "xyxy"},
//		&layers.MaxNumBoundingBoxes{MaxNumber: 32, BoundingBoxFormat: "xyxy"},
//	}}}
//	out, err := aug.Call(ctx, keras.ImageBatch{Images: images, Boxes: boxes, BoxLabels: classes})
//
// Call is safe for concurrent use (a Dataset's loader goroutines); it
// compiles the layer once per set of input shapes.
type ImageAugmenter struct {
	// Layer is the image layer (a Pipeline) to run.
	Layer layers.Layer
	// Backend is the engine it runs on ("" is the default engine).
	Backend string
	// Inference runs the layers in inference mode (no augmentation), as
	// Keras's augmenter(data, training=False).
	Inference bool

	mu   sync.Mutex
	runs map[string]*augmenterRun // by the inputs' shapes
}

// augmenterRun is the layer compiled for one set of input shapes.
type augmenterRun struct {
	once sync.Once
	fn   *Function
	err  error
}

// Call transforms one batch.
func (a *ImageAugmenter) Call(ctx context.Context, batch ImageBatch) (ImageBatch, error) {
	if a.Layer == nil {
		return ImageBatch{}, errors.New("ImageAugmenter: Layer is nil: give the image layer (a layers.Pipeline) to run")
	}
	arrays := [5]Array{batch.Images, batch.Boxes, batch.BoxLabels, batch.Labels, batch.SegmentationMasks}
	names := [5]string{"Images", "Boxes", "BoxLabels", "Labels", "SegmentationMasks"}
	var present [5]bool
	var xs Arrays
	key := ""
	for i, arr := range arrays {
		if i > 0 && arr.Shape == nil && arr.Len() == 0 {
			continue
		}
		if err := arr.Validate("ImageAugmenter: " + names[i]); err != nil {
			return ImageBatch{}, err
		}
		if (i == 2 || i == 4) && arr.Ints != nil { // class ids; the engine takes them as floats
			arr = floatsOf(arr)
		}
		if arr.Strings != nil || arr.Ints != nil {
			return ImageBatch{}, fmt.Errorf("ImageAugmenter: %s must hold float Data", names[i])
		}
		present[i] = true
		xs = append(xs, arr)
		key += fmt.Sprintf("%s%v;", names[i], arr.Shape)
	}
	run := a.run(key)
	run.once.Do(func() { run.fn, run.err = a.compile(xs, present) })
	if run.err != nil {
		return ImageBatch{}, run.err
	}
	outs, err := run.fn.Run(ctx, xs)
	if err != nil {
		return ImageBatch{}, fmt.Errorf("ImageAugmenter: %w", err)
	}
	var res [5]Array
	k := 0
	for i, p := range present {
		if p {
			res[i] = outs[k]
			k++
		}
	}
	return ImageBatch{Images: res[0], Boxes: res[1], BoxLabels: res[2], Labels: res[3], SegmentationMasks: res[4]}, nil
}

// run returns the compiled run for inputs of these shapes.
func (a *ImageAugmenter) run(key string) *augmenterRun {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.runs == nil {
		a.runs = map[string]*augmenterRun{}
	}
	r, ok := a.runs[key]
	if !ok {
		r = &augmenterRun{}
		a.runs[key] = r
	}
	return r
}

// compile builds a model of the layer's call on the present inputs and
// a Function that runs it in the augmenter's mode.
func (a *ImageAugmenter) compile(xs Arrays, present [5]bool) (*Function, error) {
	var ins [5]*layers.KerasTensor
	var inputs []*layers.KerasTensor
	k := 0
	for i, p := range present {
		if p {
			ins[i] = layers.NewInput(&layers.InputLayer{Shape: xs[k].Shape[1:]})
			inputs = append(inputs, ins[i])
			k++
		}
	}
	out := layers.ApplyImageData(a.Layer, layers.ImageTensors{Images: ins[0], Boxes: ins[1], BoxLabels: ins[2], Labels: ins[3], SegmentationMasks: ins[4]})
	var outputs []*layers.KerasTensor
	for i, t := range []*layers.KerasTensor{out.Images, out.Boxes, out.BoxLabels, out.Labels, out.SegmentationMasks} {
		if present[i] {
			if err := t.Err(); err != nil {
				return nil, fmt.Errorf("ImageAugmenter: %w", err)
			}
			outputs = append(outputs, t)
		}
	}
	m, err := NewFunctional(inputs, outputs)
	if err != nil {
		return nil, fmt.Errorf("ImageAugmenter: %w", err)
	}
	if a.Backend != "" {
		if err := m.Compile(CompileOptions{Backend: a.Backend}); err != nil {
			return nil, fmt.Errorf("ImageAugmenter: %w", err)
		}
	}
	training := !a.Inference
	return m.NewFunction(func(s *Step, xs []backend.Value) ([]backend.Value, error) {
		return s.Call(s.Model(), training, xs...), nil
	})
}
