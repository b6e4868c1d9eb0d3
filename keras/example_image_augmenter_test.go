package keras_test

import (
	"context"
	"fmt"
	"log"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// Images resized to a square with their boxes, and every image given
// three boxes, as an object detector's batches need them: Keras's
// dataset.map(augmenter) over {"images", "bounding_boxes"} dicts.
func ExampleImageAugmenter() {
	ctx := context.Background()
	// Two 4x8 images with two boxes each (xyxy pixels; -1 pads image 2).
	images := keras.Array{Shape: []int{2, 4, 8, 1}, Data: make([]float32, 64)}
	boxes := keras.Array{Shape: []int{2, 2, 4}, Data: []float32{0, 0, 4, 2, 4, 2, 8, 4, 2, 1, 6, 3, -1, -1, -1, -1}}
	classes := keras.Array{Shape: []int{2, 2}, Ints: []int32{1, 2, 3, -1}}
	augmenter := &keras.ImageAugmenter{Layer: &layers.Pipeline{Layers: []layers.Layer{
		&layers.Resizing{Height: 8, Width: 8, PadToAspectRatio: true, BoundingBoxFormat: "xyxy"},
		&layers.MaxNumBoundingBoxes{MaxNumber: 3, BoundingBoxFormat: "xyxy"},
	}}}
	out, err := augmenter.Call(ctx, keras.ImageBatch{Images: images, Boxes: boxes, BoxLabels: classes})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Images.Shape, out.Boxes.Shape)
	fmt.Println(out.Boxes.Data[:8])
	fmt.Println(out.BoxLabels.Data)
	// Output:
	// [2 8 8 1] [2 3 4]
	// [0 2 4 4 4 4 8 6]
	// [1 2 -1 3 -1 -1]
}
