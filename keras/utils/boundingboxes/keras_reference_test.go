package boundingboxes_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/internal/kerasref"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/ops"
	bb "github.com/kerasgo/kerasgo/keras/utils/boundingboxes"
)

type refCase struct {
	Name    string              `json:"name"`
	Inputs  []backendtest.Array `json:"inputs"`
	Outputs []backendtest.Array `json:"outputs"`
}

// image is the size scripts/keras-bounding-boxes.py uses.
var image = &bb.Size{Height: 200, Width: 300}

// refCall builds a case of scripts/keras-bounding-boxes.py with
// kerasgo's functions, by its name.
func refCall(name string) func(b ops.Builder, in []ops.Value) []ops.Value {
	one := func(v ops.Value) []ops.Value { return []ops.Value{v} }
	if rest, ok := strings.CutPrefix(name, "convert_format/"); ok {
		st := strings.SplitN(rest, "/", 2)
		return func(b ops.Builder, in []ops.Value) []ops.Value {
			return one(bb.ConvertFormat(b, in[0], bb.Format(st[0]), bb.Format(st[1]), image))
		}
	}
	affine := func(b ops.Builder, in []ops.Value) bb.Affine {
		return bb.Affine{Angle: in[1], TranslateX: in[2], TranslateY: in[3], Scale: in[4], ShearX: in[5], ShearY: in[6]}
	}
	iou := func(f bb.Format, o bb.IoUOptions) func(b ops.Builder, in []ops.Value) []ops.Value {
		return func(b ops.Builder, in []ops.Value) []ops.Value { return one(bb.ComputeIoU(b, in[0], in[1], f, o)) }
	}
	minus2 := -2.0
	cx, cy := 0.3, 0.6
	variance := []float64{0.1, 0.1, 0.2, 0.2}
	calls := map[string]func(b ops.Builder, in []ops.Value) []ops.Value{
		"clip_to_image_size": func(b ops.Builder, in []ops.Value) []ops.Value {
			boxes, labels := bb.ClipToImageSize(b, in[0], in[1], image, bb.XYXY)
			return []ops.Value{boxes, labels}
		},
		"clip_to_image_size/rel": func(b ops.Builder, in []ops.Value) []ops.Value {
			boxes, _ := bb.ClipToImageSize(b, in[0], nil, nil, bb.RelXYXY)
			return one(boxes)
		},
		"crop": func(b ops.Builder, in []ops.Value) []ops.Value {
			return one(bb.Crop(b, in[0], 10, 20, 120, 150, bb.XYXY))
		},
		"pad": func(b ops.Builder, in []ops.Value) []ops.Value { return one(bb.Pad(b, in[0], 7, 11, bb.XYXY)) },
		"affine_transform": func(b ops.Builder, in []ops.Value) []ops.Value {
			return one(bb.AffineTransform(b, in[0], affine(b, in), *image, bb.XYXY))
		},
		"affine_transform/center": func(b ops.Builder, in []ops.Value) []ops.Value {
			t := affine(b, in)
			t.CenterX, t.CenterY = &cx, &cy
			return one(bb.AffineTransform(b, in[0], t, *image, bb.XYXY))
		},
		"compute_iou":                   iou(bb.XYXY, bb.IoUOptions{}),
		"compute_iou/batched":           iou(bb.XYXY, bb.IoUOptions{}),
		"compute_iou/batched_unbatched": iou(bb.XYXY, bb.IoUOptions{}),
		"compute_iou/unbatched_batched": iou(bb.XYXY, bb.IoUOptions{}),
		"compute_iou/yxyx":              iou(bb.YXYX, bb.IoUOptions{}),
		"compute_iou/rel":               iou(bb.RelXYXY, bb.IoUOptions{Image: image}),
		"compute_iou/masking":           iou(bb.XYXY, bb.IoUOptions{UseMasking: true, MaskValue: &minus2}),
		"compute_ciou":                  func(b ops.Builder, in []ops.Value) []ops.Value { return one(bb.ComputeCIoU(b, in[0], in[1], bb.XYXY)) },
		"compute_ciou/center_xywh": func(b ops.Builder, in []ops.Value) []ops.Value {
			return one(bb.ComputeCIoU(b, in[0], in[1], bb.CenterXYWH))
		},
		"encode_box_to_deltas": func(b ops.Builder, in []ops.Value) []ops.Value {
			return one(bb.EncodeBoxToDeltas(b, in[0], in[1], bb.XYXY, bb.XYXY, bb.DeltaOptions{}))
		},
		"encode_box_to_deltas/variance": func(b ops.Builder, in []ops.Value) []ops.Value {
			return one(bb.EncodeBoxToDeltas(b, in[0], in[1], bb.XYXY, bb.XYWH, bb.DeltaOptions{Encoding: bb.CenterXYWH, Variance: variance}))
		},
		"decode_deltas_to_boxes": func(b ops.Builder, in []ops.Value) []ops.Value {
			return one(bb.DecodeDeltasToBoxes(b, in[0], in[1], bb.XYXY, bb.XYXY, bb.DeltaOptions{}))
		},
		"decode_deltas_to_boxes/variance": func(b ops.Builder, in []ops.Value) []ops.Value {
			return one(bb.DecodeDeltasToBoxes(b, in[0], in[1], bb.XYXY, bb.RelYXYX, bb.DeltaOptions{Encoding: bb.CenterXYWH, Variance: variance, Image: image}))
		},
	}
	return calls[name]
}

// Every case of scripts/keras-bounding-boxes.py (each format to each,
// clipping with labels, crop, pad, affine transforms, IoU in every rank
// pairing, with masking and relative formats, CIoU, deltas both ways)
// gives Keras 3's values on every engine, in float32 as Keras computes
// them (1e-5 relative to max(1, |value|)), and in float64 within the
// same bound (Keras's float32 rounding is the difference).
func TestBoundingBoxesMatchKeras(t *testing.T) {
	python := kerasref.Python(t)
	dir := t.TempDir()
	kerasref.Run(t, python, kerasref.Script(t, "keras-bounding-boxes.py"), dir)
	var idx struct {
		Keras string    `json:"keras"`
		Cases []refCase `json:"cases"`
	}
	kerasref.ReadJSON(t, filepath.Join(dir, "index.json"), &idx)
	if len(idx.Cases) < 100 {
		t.Fatalf("only %d cases from the script", len(idx.Cases))
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, c := range idx.Cases {
			t.Run(c.Name, func(t *testing.T) {
				call := refCall(c.Name)
				if call == nil {
					t.Fatalf("no Go call for the case %q", c.Name)
				}
				for _, dt := range []backend.DType{backend.Float32, backend.Float64} {
					got, err := backendtest.Eval(be, dt, func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
						return call(b, in), b.Err()
					}, c.Inputs)
					if err != nil {
						t.Fatalf("%v: %v", dt, err)
					}
					for i := range c.Outputs {
						backendtest.AssertClose(t, fmt.Sprintf("%v output %d (Keras %s)", dt, i, idx.Keras), got[i], c.Outputs[i], 1e-5)
					}
				}
			})
		}
	})
}
