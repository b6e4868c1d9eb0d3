package utils_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/internal/kerasref"
	"github.com/kerasgo/kerasgo/keras/utils"

	"github.com/kerasgo/kerasgo/keras"
)

// loadersIndex is what scripts/keras-loaders.py writes.
type loadersIndex struct {
	Keras    string `json:"keras"`
	Datasets []struct {
		Options struct {
			ImageSize         [2]int   `json:"image_size"`
			ColorMode         string   `json:"color_mode"`
			LabelMode         string   `json:"label_mode"`
			Interpolation     string   `json:"interpolation"`
			BatchSize         int      `json:"batch_size"`
			CropToAspectRatio bool     `json:"crop_to_aspect_ratio"`
			PadToAspectRatio  bool     `json:"pad_to_aspect_ratio"`
			ClassNames        []string `json:"class_names"`
		} `json:"options"`
		ClassNames []string `json:"class_names"`
		Batches    []struct{ X, Y refArray }
	} `json:"datasets"`
	Orders []struct {
		Seed            uint32   `json:"seed"`
		ValidationSplit float64  `json:"validation_split"`
		Subset          string   `json:"subset"`
		FilePaths       []string `json:"file_paths"`
	} `json:"orders"`
	LoadImg []struct {
		File    string `json:"file"`
		Options struct {
			ColorMode       string `json:"color_mode"`
			TargetSize      [2]int `json:"target_size"`
			Interpolation   string `json:"interpolation"`
			KeepAspectRatio bool   `json:"keep_aspect_ratio"`
		} `json:"options"`
		Array refArray `json:"array"`
	} `json:"load_img"`
	Series, Targets refArray
	Timeseries      []struct {
		Options struct {
			SequenceLength int `json:"sequence_length"`
			SequenceStride int `json:"sequence_stride"`
			SamplingRate   int `json:"sampling_rate"`
			BatchSize      int `json:"batch_size"`
			StartIndex     int `json:"start_index"`
			EndIndex       int `json:"end_index"`
		} `json:"options"`
		Targets bool `json:"targets"`
		Batches []struct {
			X refArray
			Y *refArray
		} `json:"batches"`
	} `json:"timeseries"`
	Audio []struct {
		Options struct {
			LabelMode            string `json:"label_mode"`
			BatchSize            int    `json:"batch_size"`
			OutputSequenceLength int    `json:"output_sequence_length"`
		} `json:"options"`
		NoLabels   bool     `json:"no_labels"`
		ClassNames []string `json:"class_names"`
		Batches    []struct {
			X refArray
			Y *refArray
		} `json:"batches"`
	} `json:"audio"`
	Splits []struct {
		N       int `json:"n"`
		Options struct {
			LeftSize  *float64 `json:"left_size"`
			RightSize *float64 `json:"right_size"`
			Shuffle   bool     `json:"shuffle"`
			Seed      int64    `json:"seed"`
		} `json:"options"`
		Left  []int `json:"left"`
		Right []int `json:"right"`
	} `json:"splits"`
}

var loadersCorpus = &kerasref.Corpus{Script: "keras-loaders.py"}

// refArray is an array as the Keras scripts write it.
type refArray kerasref.Array

// array converts a to kerasgo's float32 Array.
func (a refArray) array() keras.Array {
	return keras.Array{Shape: a.Shape, Data: kerasref.Array(a).Float32()}
}

// TestMain removes the Keras corpus the tests built, if they did.
func TestMain(m *testing.M) {
	code := m.Run()
	loadersCorpus.Remove()
	dotCorpus.Remove()
	os.Exit(code)
}

// jpegTolerance is how far a JPEG's decoded values may be from PIL's:
// Go's decoder and libjpeg round the inverse DCT and the colour
// conversion differently (measured: at most 1 of 255 on the test's photo,
// saved without chroma subsampling; Go does not smooth subsampled chroma
// as libjpeg does, so such files differ more).
const jpegTolerance = 4

// worstDifference returns the largest |got - want| and where.
func worstDifference(got []float32, want []float64) (float64, int) {
	worst, at := 0.0, 0
	for i, w := range want {
		if d := math.Abs(float64(got[i]) - w); d > worst {
			worst, at = d, i
		}
	}
	return worst, at
}

// ImageDatasetFromDirectory reads what Keras's image_dataset_from_directory
// reads: the same files in the same order and split for a seed (NumPy's
// shuffle), the same class names and labels, and the same pixels, decoded
// and resized as Keras does (exactly but for rounding, 1e-3 of 255; JPEG
// within jpegTolerance, a different decoder).
func TestImageDatasetMatchesKeras(t *testing.T) {
	var index loadersIndex
	dir := loadersCorpus.Build(t, &index)
	root := filepath.Join(dir, "images")
	ctx := context.Background()
	for k, ref := range index.Datasets {
		o := ref.Options
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			ds, err := utils.ImageDatasetFromDirectory(root, utils.ImageDatasetOptions{
				ImageSize: o.ImageSize, ColorMode: o.ColorMode, LabelMode: o.LabelMode, Interpolation: o.Interpolation,
				BatchSize: o.BatchSize, CropToAspectRatio: o.CropToAspectRatio, PadToAspectRatio: o.PadToAspectRatio,
				ClassNames: o.ClassNames, NoShuffle: true, Verbose: keras.Silent})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(ds.ClassNames) != fmt.Sprint(ref.ClassNames) {
				t.Fatalf("class names %v, Keras %v", ds.ClassNames, ref.ClassNames)
			}
			if ds.Len() != len(ref.Batches) {
				t.Fatalf("%d batches, Keras %d", ds.Len(), len(ref.Batches))
			}
			file := 0
			for i, want := range ref.Batches {
				b, err := ds.Batch(ctx, i)
				if err != nil {
					t.Fatal(err)
				}
				x, y := b.X.(keras.Array), b.Y.(keras.Array)
				if fmt.Sprint(x.Shape) != fmt.Sprint(want.X.Shape) || fmt.Sprint(y.Shape) != fmt.Sprint(want.Y.Shape) {
					t.Fatalf("batch %d: shapes %v and %v, Keras %v and %v", i, x.Shape, y.Shape, want.X.Shape, want.Y.Shape)
				}
				if d, at := worstDifference(y.Data, want.Y.Data); d != 0 {
					t.Fatalf("batch %d: label value %d is %v, Keras %v", i, at, y.Data[at], want.Y.Data[at])
				}
				per := len(x.Data) / x.Shape[0]
				for j := range x.Shape[0] {
					path := ds.FilePaths[file]
					file++
					tol := 1e-3
					if strings.HasSuffix(path, ".jpg") {
						tol = jpegTolerance
					}
					if d, at := worstDifference(x.Data[j*per:(j+1)*per], want.X.Data[j*per:(j+1)*per]); d > tol {
						t.Errorf("%s: value %d is %v, Keras %v", path, at, x.Data[j*per+at], want.X.Data[j*per+at])
					}
				}
			}
		})
	}
	for _, ref := range index.Orders {
		ds, err := utils.ImageDatasetFromDirectory(root, utils.ImageDatasetOptions{Seed: ref.Seed, ValidationSplit: ref.ValidationSplit,
			Subset: ref.Subset, ImageSize: [2]int{4, 4}, Verbose: keras.Silent})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range ds.FilePaths {
			rel, _ := filepath.Rel(root, p)
			got = append(got, rel)
		}
		if fmt.Sprint(got) != fmt.Sprint(ref.FilePaths) {
			t.Errorf("seed %d, split %v %s: files %v, Keras %v", ref.Seed, ref.ValidationSplit, ref.Subset, got, ref.FilePaths)
		}
	}
}

// LoadImg and ImgToArray give what keras.utils.load_img and
// img_to_array give (PIL's colour conversion and resampling, to the
// unit; JPEG within jpegTolerance).
func TestLoadImgMatchesKeras(t *testing.T) {
	var index loadersIndex
	dir := loadersCorpus.Build(t, &index)
	for _, ref := range index.LoadImg {
		o := ref.Options
		img, err := utils.LoadImg(filepath.Join(dir, "images", ref.File), utils.LoadImgOptions{ColorMode: o.ColorMode,
			TargetSize: o.TargetSize, Interpolation: o.Interpolation, KeepAspectRatio: o.KeepAspectRatio})
		if err != nil {
			t.Fatalf("%s %+v: %v", ref.File, o, err)
		}
		a := utils.ImgToArray(img)
		if fmt.Sprint(a.Shape) != fmt.Sprint(ref.Array.Shape) {
			t.Fatalf("%s %+v: shape %v, Keras %v", ref.File, o, a.Shape, ref.Array.Shape)
		}
		tol := 0.0
		if strings.HasSuffix(ref.File, ".jpg") {
			tol = jpegTolerance
		}
		if d, at := worstDifference(a.Data, ref.Array.Data); d > tol {
			t.Errorf("%s %+v: value %d is %v, Keras %v", ref.File, o, at, a.Data[at], ref.Array.Data[at])
		}
	}
}

// TimeseriesDatasetFromArray makes Keras's windows: the batches of
// keras.utils.timeseries_dataset_from_array (its grain path, unshuffled)
// on the same series and targets, equal.
func TestTimeseriesDatasetMatchesKeras(t *testing.T) {
	var index loadersIndex
	loadersCorpus.Build(t, &index)
	series, targets := index.Series.array(), index.Targets.array()
	ctx := context.Background()
	for k, ref := range index.Timeseries {
		o := ref.Options
		var tp *keras.Array
		if ref.Targets {
			tp = &targets
		}
		ds, err := utils.TimeseriesDatasetFromArray(series, tp, utils.TimeseriesOptions{SequenceLength: o.SequenceLength,
			SequenceStride: o.SequenceStride, SamplingRate: o.SamplingRate, BatchSize: o.BatchSize, StartIndex: o.StartIndex, EndIndex: o.EndIndex})
		if err != nil {
			t.Fatalf("case %d: %v", k, err)
		}
		if ds.Len() != len(ref.Batches) {
			t.Fatalf("case %d: %d batches, Keras %d", k, ds.Len(), len(ref.Batches))
		}
		for i, want := range ref.Batches {
			b, err := ds.Batch(ctx, i)
			if err != nil {
				t.Fatal(err)
			}
			x := b.X.(keras.Array)
			if fmt.Sprint(x.Shape) != fmt.Sprint(want.X.Shape) {
				t.Fatalf("case %d batch %d: shape %v, Keras %v", k, i, x.Shape, want.X.Shape)
			}
			if d, at := worstDifference(x.Data, want.X.Data); d != 0 {
				t.Fatalf("case %d batch %d: value %d is %v, Keras %v", k, i, at, x.Data[at], want.X.Data[at])
			}
			if want.Y != nil {
				y := b.Y.(keras.Array)
				if d, _ := worstDifference(y.Data, want.Y.Data); d != 0 || len(y.Data) != len(want.Y.Data) {
					t.Fatalf("case %d batch %d: targets %v, Keras %v", k, i, y.Data, want.Y.Data)
				}
			} else if b.Y != nil {
				t.Fatalf("case %d batch %d: targets without targets", k, i)
			}
		}
	}
}
