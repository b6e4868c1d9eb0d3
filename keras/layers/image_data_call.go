package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// ImageTensors are the symbolic values of an ImageData in a graph
// (ApplyImageData), nil for an absent one.
type ImageTensors struct {
	Images, Boxes, BoxLabels, Labels, SegmentationMasks *KerasTensor
}

// imageDataCall is a call of an image layer on ImageData in a graph:
// its inputs are the present values of ImageData in its order, and so
// are its outputs.
type imageDataCall struct {
	inner   Layer
	present [5]bool
	outs    []backend.Shape
	Base
}

// ClassName returns the inner layer's class.
func (l *imageDataCall) ClassName() string { return l.inner.ClassName() }

// ApplyImageData applies an image layer (a Pipeline of them) to images
// and what goes with them, as Keras's layer({"images": ...,
// "bounding_boxes": ..., "labels": ..., "segmentation_masks": ...}) does,
// and returns the transformed values. It is for data pipelines (keras.ImageAugmenter
// runs it): a model holding such a call cannot be saved; save the layer
// instead.
func ApplyImageData(layer Layer, in ImageTensors) ImageTensors {
	if in.Images == nil {
		return ImageTensors{Images: &KerasTensor{err: fmt.Errorf("ApplyImageData: Images is nil")}}
	}
	call := &imageDataCall{inner: layer}
	var args []*KerasTensor
	for i, t := range []*KerasTensor{in.Images, in.Boxes, in.BoxLabels, in.Labels, in.SegmentationMasks} {
		if t != nil {
			call.present[i] = true
			args = append(args, t)
		}
	}
	call.Name = layer.Common().Name
	outs := ApplyOutputs(call, args...)
	for len(outs) < len(args) { // a failed call has one output, carrying its error
		outs = append(outs, outs[0])
	}
	res := spread(call.present, outs)
	return ImageTensors{Images: res[0], Boxes: res[1], BoxLabels: res[2], Labels: res[3], SegmentationMasks: res[4]}
}

// Build checks the data's shapes with the inner layer.
func (l *imageDataCall) Build(inputs []backend.Shape) (backend.Shape, error) {
	s := spread(l.present, inputs)
	out, err := buildImageData(l.inner, ImageDataShapes{Images: s[0], Boxes: s[1], BoxLabels: s[2], Labels: s[3], SegmentationMasks: s[4]})
	if err != nil {
		return nil, err
	}
	l.outs = gather(l.present, [5]backend.Shape{out.Images, out.Boxes, out.BoxLabels, out.Labels, out.SegmentationMasks})
	return l.outs[0], nil
}

// OutputShapes returns the shapes of the transformed values.
func (l *imageDataCall) OutputShapes() []backend.Shape { return l.outs }

// Call returns the transformed images.
func (l *imageDataCall) Call(ctx *Context, in []backend.Value) backend.Value {
	return l.CallOutputs(ctx, in)[0]
}

// CallOutputs transforms the data with one draw of the inner layer.
func (l *imageDataCall) CallOutputs(ctx *Context, in []backend.Value) []backend.Value {
	v := spread(l.present, in)
	d := callImageData(ctx, l.inner, ImageData{Images: v[0], Boxes: v[1], BoxLabels: v[2], Labels: v[3], SegmentationMasks: v[4]})
	return gather(l.present, [5]backend.Value{d.Images, d.Boxes, d.BoxLabels, d.Labels, d.SegmentationMasks})
}

// spread puts the values of the present parts of an ImageData, in its
// order, in their places.
func spread[T any](present [5]bool, values []T) [5]T {
	var out [5]T
	k := 0
	for i, p := range present {
		if p {
			out[i] = values[k]
			k++
		}
	}
	return out
}

// gather is spread's inverse: the present parts' values, in order.
func gather[T any](present [5]bool, parts [5]T) []T {
	var out []T
	for i, p := range present {
		if p {
			out = append(out, parts[i])
		}
	}
	return out
}

// GetConfig refuses: a call on image data belongs to a data pipeline.
func (l *imageDataCall) GetConfig() (serialization.Config, error) {
	return nil, fmt.Errorf("%s transforms images with their boxes or labels, which is a data pipeline's work: save the layer itself, or a model that takes the images alone", Describe(l.inner))
}

// trainsByDefault: image augmentation trains by default, as in Keras.
func (*imageDataCall) trainsByDefault() {}
