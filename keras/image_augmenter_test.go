package keras_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// This file: bounding-box-aware augmentation (issue 41), checked by what
// the pixels do: each image holds one bright rectangle whose box is
// given; after the layer, the box it returns must be the bounding box of
// the bright pixels it returns. MixUp's and CutMix's labels are checked
// the same way, from the mixed pixels.

// rectangles makes n images h×w (one channel), image i zero but for a
// rectangle of ones, and its xyxy box; a second box per image lies along
// the left edge, with label 100+i.
func rectangles(n, h, w int) (images, boxes, labels keras.Array) {
	images = keras.Array{Shape: []int{n, h, w, 1}, Data: make([]float32, n*h*w)}
	boxes = keras.Array{Shape: []int{n, 2, 4}, Data: make([]float32, n*8)}
	labels = keras.Array{Shape: []int{n, 2}, Ints: make([]int32, n*2)}
	for i := range n {
		x1, y1 := 3+i%4, 2+i%3
		x2, y2 := x1+4+i%3, y1+3+i%2
		for r := y1; r < y2; r++ {
			for c := x1; c < x2; c++ {
				images.Data[(i*h+r)*w+c] = 1
			}
		}
		copy(boxes.Data[i*8:], []float32{float32(x1), float32(y1), float32(x2), float32(y2), 0, 4, 2, 9})
		labels.Ints[2*i], labels.Ints[2*i+1] = int32(i+1), int32(100+i)
	}
	return images, boxes, labels
}

// brightBox is the xyxy box of image i's pixels above 0.5 (pixel edges).
func brightBox(images keras.Array, i int) (box [4]float64, any bool) {
	h, w := images.Shape[1], images.Shape[2]
	box = [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for r := range h {
		for c := range w {
			if images.Data[(i*h+r)*w+c] > 0.5 {
				any = true
				box[0], box[1] = math.Min(box[0], float64(c)), math.Min(box[1], float64(r))
				box[2], box[3] = math.Max(box[2], float64(c+1)), math.Max(box[3], float64(r+1))
			}
		}
	}
	return box, any
}

// checkBoxesFollowPixels checks that each image's first box is the box of
// its bright pixels, within tol pixels.
func checkBoxesFollowPixels(t *testing.T, out keras.ImageBatch, tol float64) {
	t.Helper()
	for i := range out.Images.Shape[0] {
		want, ok := brightBox(out.Images, i)
		if !ok {
			t.Fatalf("image %d lost its rectangle", i)
		}
		for k := range 4 {
			if got := float64(out.Boxes.Data[i*8+k]); math.Abs(got-want[k]) > tol {
				t.Fatalf("image %d: box %v, but its bright pixels span %v", i, out.Boxes.Data[i*8:i*8+4], want)
			}
		}
		if got := out.BoxLabels.Data[2*i]; got != float32(i+1) {
			t.Fatalf("image %d: the rectangle's label became %v, want %d", i, got, i+1)
		}
	}
}

func TestImageAugmenterMovesBoxesWithPixels(t *testing.T) {
	ctx := context.Background()
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		t.Run("flip", func(t *testing.T) {
			images, boxes, labels := rectangles(6, 12, 16)
			aug := &keras.ImageAugmenter{Backend: be.Name(), Layer: &layers.RandomFlip{BoundingBoxFormat: "xyxy"}}
			changed := false
			for range 6 {
				out, err := aug.Call(ctx, keras.ImageBatch{Images: images, Boxes: boxes, BoxLabels: labels})
				if err != nil {
					t.Fatal(err)
				}
				checkBoxesFollowPixels(t, out, 1e-4)
				for i, v := range out.Images.Data {
					changed = changed || v != images.Data[i]
				}
			}
			if !changed {
				t.Fatal("RandomFlip flipped no image in 36 draws")
			}
		})
		t.Run("translation", func(t *testing.T) {
			images, boxes, labels := rectangles(6, 12, 16)
			// 3 pixels down, 2 left: the edge box leaves the image.
			aug := &keras.ImageAugmenter{Backend: be.Name(), Layer: &layers.RandomTranslation{HeightRange: [2]float64{0.25, 0.25}, WidthRange: [2]float64{-0.125, -0.125},
				FillMode: "constant", Interpolation: "nearest", BoundingBoxFormat: "xyxy"}}
			out, err := aug.Call(ctx, keras.ImageBatch{Images: images, Boxes: boxes, BoxLabels: labels})
			if err != nil {
				t.Fatal(err)
			}
			checkBoxesFollowPixels(t, out, 1e-4)
			for i := range 6 {
				if got := out.BoxLabels.Data[2*i+1]; got != -1 {
					t.Fatalf("image %d: the box shifted out of the image has label %v, want -1", i, got)
				}
			}
		})
		t.Run("perspective", func(t *testing.T) {
			// The corners carried by the warp; the image sampled at pixel
			// centres, so within a pixel and a half.
			images, boxes, labels := rectangles(6, 16, 16)
			aug := &keras.ImageAugmenter{Backend: be.Name(), Layer: &layers.RandomPerspective{FactorRange: [2]float64{1, 1}, Scale: 0.4, Interpolation: "nearest", BoundingBoxFormat: "xyxy"}}
			for range 3 {
				out, err := aug.Call(ctx, keras.ImageBatch{Images: images, Boxes: boxes, BoxLabels: labels})
				if err != nil {
					t.Fatal(err)
				}
				checkBoxesFollowPixels(t, out, 1.5)
			}
		})
		t.Run("crop", func(t *testing.T) {
			images, boxes, labels := rectangles(6, 12, 16)
			crop := &layers.RandomCrop{Height: 8, Width: 10, BoundingBoxFormat: "xyxy"}
			for range 4 {
				out, err := (&keras.ImageAugmenter{Backend: be.Name(), Layer: crop}).Call(ctx, keras.ImageBatch{Images: images, Boxes: boxes, BoxLabels: labels})
				if err != nil {
					t.Fatal(err)
				}
				checkBoxesFollowPixels(t, out, 1e-4)
			}
			// Outside training: the centred window, resized (bilinearly,
			// so the rectangle's edges blur by up to a pixel).
			out, err := (&keras.ImageAugmenter{Backend: be.Name(), Layer: crop, Inference: true}).Call(ctx, keras.ImageBatch{Images: images, Boxes: boxes, BoxLabels: labels})
			if err != nil {
				t.Fatal(err)
			}
			checkBoxesFollowPixels(t, out, 1)
		})
		t.Run("RandAugment", func(t *testing.T) {
			// One augmentation per call, picked from Keras's eleven: a
			// geometric one must move the box with the rectangle (found
			// as the pixels far from the corner's, since the colour ones
			// shift every value); a colour one must leave the box as it
			// was, also where it hid the rectangle (Solarization).
			const n, h, w = 4, 32, 32
			images := keras.Array{Shape: []int{n, h, w, 3}, Data: make([]float32, n*h*w*3)}
			boxes := keras.Array{Shape: []int{n, 1, 4}, Data: make([]float32, n*4)}
			labels := keras.Array{Shape: []int{n, 1}, Data: make([]float32, n)}
			for i := range n {
				x1, y1 := 12+i%2, 13
				for r := y1; r < y1+6; r++ {
					for c := x1; c < x1+8; c++ {
						for k := range 3 {
							images.Data[((i*h+r)*w+c)*3+k] = 1
						}
					}
				}
				copy(boxes.Data[i*4:], []float32{float32(x1), float32(y1), float32(x1 + 8), float32(y1 + 6)})
				labels.Data[i] = float32(i + 1)
			}
			aug := &keras.ImageAugmenter{Backend: be.Name(), Layer: &layers.RandAugment{ValueRange: [2]float64{0, 1}, NumOps: 1, Factor: 0.2, Interpolation: "nearest", BoundingBoxFormat: "xyxy"}}
			moved := 0
			for range 12 {
				out, err := aug.Call(ctx, keras.ImageBatch{Images: images, Boxes: boxes, BoxLabels: labels})
				if err != nil {
					t.Fatal(err)
				}
				for i := range n {
					got := out.Boxes.Data[i*4 : i*4+4]
					if out.BoxLabels.Data[i] != float32(i+1) {
						t.Fatalf("image %d: label %v", i, out.BoxLabels.Data[i])
					}
					want, found := farFromCorner(out.Images, i)
					same := true
					for k := range 4 {
						same = same && got[k] == boxes.Data[i*4+k]
					}
					if !found {
						if !same {
							t.Fatalf("image %d: a colour augmentation hid the rectangle but moved its box to %v", i, got)
						}
						continue
					}
					for k := range 4 {
						// Two pixels: a turn of up to 72 degrees sampled at
						// the nearest pixel cuts the rotated corners off by
						// up to 1.5 (RandomRotation alone: 1.3).
						if math.Abs(float64(got[k])-want[k]) > 2 {
							t.Fatalf("image %d: box %v, but the rectangle spans %v", i, got, want)
						}
					}
					if !same {
						moved++
					}
				}
			}
			if moved == 0 {
				t.Fatal("no geometric augmentation was picked in 48 images")
			}
		})
		t.Run("rotation", func(t *testing.T) {
			images, boxes, labels := rectangles(4, 16, 16)
			// A quarter turn; Keras's box corners turn about the pixel
			// centres' middle, its images about the same point, so boxes
			// and pixels agree within a pixel.
			for _, format := range []string{"xyxy", "rel_center_xywh"} {
				aug := &keras.ImageAugmenter{Backend: be.Name(), Layer: &layers.Pipeline{Layers: []layers.Layer{
					&layers.RandomRotation{FactorRange: [2]float64{0.25, 0.25}, FillMode: "constant", Interpolation: "nearest", BoundingBoxFormat: format},
					&layers.RandomBrightness{FactorRange: [2]float64{0, 0}, BoundingBoxFormat: format},
				}}}
				in := keras.ImageBatch{Images: images, Boxes: convertBoxes(boxes, "xyxy", format, 16, 16), BoxLabels: labels}
				out, err := aug.Call(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				out.Boxes = convertBoxes(out.Boxes, format, "xyxy", 16, 16)
				checkBoxesFollowPixels(t, out, 1+1e-4)
			}
		})
	})
}

// convertBoxes converts xyxy boxes to center_xywh or rel_center_xywh and
// back, on the host, for the tests (utils/boundingboxes is checked
// against Keras on its own).
func convertBoxes(a keras.Array, from, to string, h, w float64) keras.Array {
	out := keras.Array{Shape: a.Shape, Data: append([]float32(nil), a.Data...)}
	if from == to {
		return out
	}
	for i := 0; i < len(a.Data); i += 4 {
		p := a.Data[i : i+4]
		switch {
		case from == "xyxy" && to == "rel_center_xywh":
			copy(out.Data[i:], []float32{(p[0] + p[2]) / 2 / float32(w), (p[1] + p[3]) / 2 / float32(h), (p[2] - p[0]) / float32(w), (p[3] - p[1]) / float32(h)})
		case from == "rel_center_xywh" && to == "xyxy":
			cx, cy, bw, bh := p[0]*float32(w), p[1]*float32(h), p[2]*float32(w), p[3]*float32(h)
			copy(out.Data[i:], []float32{cx - bw/2, cy - bh/2, cx + bw/2, cy + bh/2})
		default:
			panic("convertBoxes: " + from + " to " + to)
		}
	}
	return out
}

func TestImageAugmenterMixesLabels(t *testing.T) {
	ctx := context.Background()
	const n, h, w = 8, 6, 6
	// Image i is i+1 in channel 0 and (i+1)² in channel 1, its label
	// one-hot i: the two channels of a mix w·a + (1-w)·b pin down w.
	images := keras.Array{Shape: []int{n, h, w, 2}, Data: make([]float32, n*h*w*2)}
	labels := keras.Array{Shape: []int{n, n}, Data: make([]float32, n*n)}
	for i := range n {
		for p := range h * w {
			images.Data[(i*h*w+p)*2] = float32(i + 1)
			images.Data[(i*h*w+p)*2+1] = float32((i + 1) * (i + 1))
		}
		labels.Data[i*n+i] = 1
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		t.Run("MixUp", func(t *testing.T) {
			aug := &keras.ImageAugmenter{Backend: be.Name(), Layer: &layers.MixUp{Alpha: 0.5}}
			out, err := aug.Call(ctx, keras.ImageBatch{Images: images, Labels: labels})
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				// The mix the labels say: sum_k y_k·(k+1) and sum_k y_k·(k+1)².
				var v0, v1 float64
				for k := range n {
					y := float64(out.Labels.Data[i*n+k])
					v0 += y * float64(k+1)
					v1 += y * float64((k+1)*(k+1))
				}
				got0, got1 := float64(out.Images.Data[i*h*w*2]), float64(out.Images.Data[i*h*w*2+1])
				if math.Abs(v0-got0) > 1e-3 || math.Abs(v1-got1) > 1e-2 {
					t.Fatalf("image %d: pixels (%v, %v), but its labels %v mix to (%v, %v)", i, got0, got1, out.Labels.Data[i*n:(i+1)*n], v0, v1)
				}
			}
		})
		t.Run("CutMix", func(t *testing.T) {
			aug := &keras.ImageAugmenter{Backend: be.Name(), Layer: &layers.CutMix{Factor: 1}}
			out, err := aug.Call(ctx, keras.ImageBatch{Images: images, Labels: labels})
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				// Each label's weight is the share of pixels from that image.
				share := make([]float64, n)
				for p := range h * w {
					share[int(math.Round(float64(out.Images.Data[(i*h*w+p)*2])))-1] += 1.0 / (h * w)
				}
				for k := range n {
					if got := float64(out.Labels.Data[i*n+k]); math.Abs(got-share[k]) > 1e-5 {
						t.Fatalf("image %d: label %d is %v, but %v of its pixels come from image %d", i, k, got, share[k], k)
					}
				}
			}
		})
	})
}

func TestMaxNumBoundingBoxes(t *testing.T) {
	ctx := context.Background()
	images, boxes, labels := rectangles(2, 8, 8)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, max := range []int{1, 4} {
			aug := &keras.ImageAugmenter{Backend: be.Name(), Layer: &layers.MaxNumBoundingBoxes{MaxNumber: max, BoundingBoxFormat: "xyxy"}}
			out, err := aug.Call(ctx, keras.ImageBatch{Images: images, Boxes: boxes, BoxLabels: labels})
			if err != nil {
				t.Fatal(err)
			}
			if want := []int{2, max, 4}; !equalInts(out.Boxes.Shape, want) || !equalInts(out.BoxLabels.Shape, want[:2]) {
				t.Fatalf("MaxNumber %d: boxes %v and labels %v, want (2, %d, 4) and (2, %d)", max, out.Boxes.Shape, out.BoxLabels.Shape, max, max)
			}
			for i := range 2 {
				for j := range max {
					for k := range 4 {
						want := float32(-1)
						if j < 2 {
							want = boxes.Data[(i*2+j)*4+k]
						}
						if got := out.Boxes.Data[(i*max+j)*4+k]; got != want {
							t.Fatalf("MaxNumber %d: image %d box %d = %v, want %v", max, i, j, out.Boxes.Data[(i*max+j)*4:(i*max+j+1)*4], want)
						}
					}
					want := float32(-1)
					if j < 2 {
						want = float32(labels.Ints[i*2+j])
					}
					if got := out.BoxLabels.Data[i*max+j]; got != want {
						t.Fatalf("MaxNumber %d: image %d label %d = %v, want %v", max, i, j, got, want)
					}
				}
			}
			for i, v := range out.Images.Data {
				if v != images.Data[i] {
					t.Fatalf("MaxNumBoundingBoxes changed the images")
				}
			}
		}
	})
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestImageAugmenterErrors(t *testing.T) {
	ctx := context.Background()
	images, boxes, labels := rectangles(2, 8, 8)
	for _, c := range []struct {
		name  string
		layer layers.Layer
		batch keras.ImageBatch
		want  string
	}{
		{"no format", &layers.RandomFlip{}, keras.ImageBatch{Images: images, Boxes: boxes}, "set BoundingBoxFormat"},
		{"no format on a colour layer", &layers.RandomContrast{Factor: 0.2}, keras.ImageBatch{Images: images, Boxes: boxes}, "set BoundingBoxFormat"},
		{"unknown format", &layers.RandomFlip{BoundingBoxFormat: "xywz"}, keras.ImageBatch{Images: images, Boxes: boxes}, `unknown bounding box format "xywz"`},
		{"boxes of 5", &layers.RandomFlip{BoundingBoxFormat: "xyxy"}, keras.ImageBatch{Images: images, Boxes: keras.Array{Shape: []int{2, 1, 5}, Data: make([]float32, 10)}}, "want (batch, boxes, 4)"},
		{"labels out of step", &layers.RandomFlip{BoundingBoxFormat: "xyxy"}, keras.ImageBatch{Images: images, Boxes: boxes, BoxLabels: keras.Array{Shape: []int{2, 3}, Data: make([]float32, 6)}}, "want (batch, boxes)"},
		{"elastic transform with boxes", &layers.RandomElasticTransform{Factor: 1, Scale: 1, BoundingBoxFormat: "xyxy"}, keras.ImageBatch{Images: images, Boxes: boxes}, "does not move bounding boxes with it yet"},
		{"AugMix with boxes", &layers.AugMix{ValueRange: [2]float64{0, 1}, BoundingBoxFormat: "xyxy"}, keras.ImageBatch{Images: images, Boxes: boxes}, "does not move bounding boxes with it yet"},
		{"CutMix with boxes", &layers.CutMix{Factor: 1, BoundingBoxFormat: "xyxy"}, keras.ImageBatch{Images: images, Boxes: boxes}, "CutMix does not transform bounding boxes"},
		{"MixUp labels (batch, 2, 1)", &layers.MixUp{}, keras.ImageBatch{Images: images, Labels: keras.Array{Shape: []int{2, 2, 1}, Data: []float32{0, 1, 1, 0}}}, "want (batch, classes)"},
		{"MaxNumber 0", &layers.MaxNumBoundingBoxes{BoundingBoxFormat: "xyxy"}, keras.ImageBatch{Images: images, Boxes: boxes, BoxLabels: labels}, "max_number must be a positive number"},
		{"no layer", nil, keras.ImageBatch{Images: images}, "Layer is nil"},
	} {
		aug := &keras.ImageAugmenter{Layer: c.layer}
		_, err := aug.Call(ctx, c.batch)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// One augmenter serves many loader goroutines at once.
func TestImageAugmenterConcurrentCalls(t *testing.T) {
	ctx := context.Background()
	images, boxes, labels := rectangles(4, 12, 12)
	aug := &keras.ImageAugmenter{Layer: &layers.RandomFlip{BoundingBoxFormat: "xyxy"}}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	outs := make(chan keras.ImageBatch, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := aug.Call(ctx, keras.ImageBatch{Images: images, Boxes: boxes, BoxLabels: labels})
			if err == nil {
				outs <- out
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	close(outs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for out := range outs {
		checkBoxesFollowPixels(t, out, 1e-4)
	}
}

// Every image layer saves Keras's bounding_box_format when it is set and
// reads it back; an unknown format in a file is refused, naming it.
func TestBoundingBoxFormatConfig(t *testing.T) {
	for _, l := range []layers.Layer{&layers.RandomFlip{BoundingBoxFormat: "center_xywh"}, &layers.RandomContrast{Factor: 0.1, BoundingBoxFormat: "rel_yxyx"},
		&layers.Resizing{Height: 4, Width: 4, BoundingBoxFormat: "xywh"}, &layers.MaxNumBoundingBoxes{MaxNumber: 3, BoundingBoxFormat: "xyxy"}} {
		cfg, err := layers.Config(l)
		if err != nil {
			t.Fatal(err)
		}
		back, err := layers.FromConfig(l.ClassName(), viaJSON(t, cfg))
		if err != nil {
			t.Fatal(err)
		}
		again, err := layers.Config(back)
		if err != nil {
			t.Fatal(err)
		}
		if cfg["bounding_box_format"] == nil || again["bounding_box_format"] != cfg["bounding_box_format"] {
			t.Fatalf("%s: bounding_box_format %v saved, %v after loading", l.ClassName(), cfg["bounding_box_format"], again["bounding_box_format"])
		}
	}
	cfg, err := layers.Config(&layers.RandomFlip{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cfg["bounding_box_format"]; ok {
		t.Fatal("an unset bounding_box_format is written; Keras leaves it out")
	}
	cfg = viaJSON(t, cfg)
	cfg["bounding_box_format"] = "xyzw"
	if _, err := layers.FromConfig("RandomFlip", cfg); err == nil || !strings.Contains(err.Error(), `unknown bounding box format "xyzw"`) {
		t.Fatalf("an unknown format read from a file: got %v", err)
	}
}

// viaJSON is cfg as a .keras file holds it: written and read as JSON.
func viaJSON(t *testing.T, cfg serialization.Config) serialization.Config {
	t.Helper()
	data, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var back serialization.Config
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	return back
}

// farFromCorner is the xyxy box of image i's pixels whose first channel
// is more than 0.25 from the top-left pixel's.
func farFromCorner(images keras.Array, i int) (box [4]float64, any bool) {
	h, w, c := images.Shape[1], images.Shape[2], images.Shape[3]
	ref := images.Data[i*h*w*c]
	box = [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for r := range h {
		for col := range w {
			if math.Abs(float64(images.Data[((i*h+r)*w+col)*c]-ref)) > 0.25 {
				any = true
				box[0], box[1] = math.Min(box[0], float64(col)), math.Min(box[1], float64(r))
				box[2], box[3] = math.Max(box[2], float64(col+1)), math.Max(box[3], float64(r+1))
			}
		}
	}
	return box, any
}

// Segmentation masks move with the pixels: given masks equal to the
// images (one channel, classes 0 and 1), every layer set to sample at the
// nearest pixel and fill with 0 returns masks equal to its images, draw
// for draw, on every engine.
func TestImageAugmenterMovesMasksWithPixels(t *testing.T) {
	ctx := context.Background()
	images, boxes, labels := rectangles(4, 16, 16)
	cases := []layers.Layer{
		&layers.RandomFlip{BoundingBoxFormat: "xyxy"},
		&layers.RandomTranslation{HeightFactor: 0.3, WidthFactor: 0.3, FillMode: "constant", Interpolation: "nearest", BoundingBoxFormat: "xyxy"},
		&layers.RandomRotation{Factor: 0.3, FillMode: "constant", Interpolation: "nearest", BoundingBoxFormat: "xyxy"},
		&layers.RandomZoom{HeightFactor: 0.3, FillMode: "constant", Interpolation: "nearest", BoundingBoxFormat: "xyxy"},
		&layers.RandomShear{XFactor: 0.3, YFactor: 0.3, FillMode: "constant", Interpolation: "nearest", BoundingBoxFormat: "xyxy"},
		&layers.RandomPerspective{FactorRange: [2]float64{1, 1}, Scale: 0.4, Interpolation: "nearest", BoundingBoxFormat: "xyxy"},
		&layers.RandomCrop{Height: 10, Width: 12, BoundingBoxFormat: "xyxy"},
		&layers.Resizing{Height: 20, Width: 12, Interpolation: "nearest", PadToAspectRatio: true, BoundingBoxFormat: "xyxy"},
		&layers.CenterCrop{Height: 10, Width: 8, BoundingBoxFormat: "xyxy"},
		&layers.MixUp{BoundingBoxFormat: "xyxy"},
		&layers.RandomContrast{Factor: 0.5, BoundingBoxFormat: "xyxy"},
		&layers.Pipeline{Layers: []layers.Layer{
			&layers.RandomFlip{Mode: "horizontal", BoundingBoxFormat: "xyxy"},
			&layers.RandomTranslation{HeightFactor: 0.2, WidthFactor: 0.2, FillMode: "constant", Interpolation: "nearest", BoundingBoxFormat: "xyxy"},
			&layers.MaxNumBoundingBoxes{MaxNumber: 4, BoundingBoxFormat: "xyxy"},
		}},
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, l := range cases {
			out, err := (&keras.ImageAugmenter{Backend: be.Name(), Layer: l}).Call(ctx, keras.ImageBatch{Images: images, Boxes: boxes, BoxLabels: labels, SegmentationMasks: images})
			if err != nil {
				t.Fatalf("%s: %v", l.ClassName(), err)
			}
			if fmt.Sprint(out.SegmentationMasks.Shape) != fmt.Sprint(out.Images.Shape) {
				t.Fatalf("%s: masks %v for images %v", l.ClassName(), out.SegmentationMasks.Shape, out.Images.Shape)
			}
			_, contrast := l.(*layers.RandomContrast)
			for i, v := range out.SegmentationMasks.Data {
				want := out.Images.Data[i]
				if contrast { // a colour layer leaves the masks as they came
					want = images.Data[i]
				}
				if v != want {
					t.Fatalf("%s: mask value %d is %v, the pixel's %v", l.ClassName(), i, v, want)
				}
			}
		}
	})
	// CutMix takes no boxes, but masks.
	out, err := (&keras.ImageAugmenter{Layer: &layers.CutMix{Factor: 1}}).Call(ctx, keras.ImageBatch{Images: images, SegmentationMasks: images})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range out.SegmentationMasks.Data {
		if v != out.Images.Data[i] {
			t.Fatalf("CutMix: mask value %d is %v, the pixel's %v", i, v, out.Images.Data[i])
		}
	}
	// A layer that moves pixels without moving masks refuses them.
	_, err = (&keras.ImageAugmenter{Layer: &layers.RandomElasticTransform{Factor: 1, Scale: 1}}).Call(ctx, keras.ImageBatch{Images: images, SegmentationMasks: images})
	if err == nil || !strings.Contains(err.Error(), "does not move segmentation masks") {
		t.Fatalf("RandomElasticTransform with masks: got %v", err)
	}
	_, err = (&keras.ImageAugmenter{Layer: &layers.RandomFlip{}}).Call(ctx, keras.ImageBatch{Images: images, SegmentationMasks: keras.Array{Shape: []int{4, 8, 16, 1}, Data: make([]float32, 4*8*16)}})
	if err == nil || !strings.Contains(err.Error(), "want (batch, height, width, channels) of the images'") {
		t.Fatalf("masks of another height: got %v", err)
	}
}
