package utils_test

import (
	"context"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/utils"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// writePNGs writes n images of size (h, w) per class into dir/<class>/,
// each class with its own brightness so that a model can tell them
// apart, and returns dir.
func writePNGs(t testing.TB, dir string, classes []string, n, h, w int) string {
	t.Helper()
	for c, class := range classes {
		if err := os.MkdirAll(filepath.Join(dir, class), 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			img := image.NewRGBA(image.Rect(0, 0, w, h))
			for y := range h {
				for x := range w {
					v := uint8(40 + 80*c + (x*7+y*13+i*29)%60)
					img.Set(x, y, color.RGBA{v, uint8(255 - int(v)), uint8((x * 30) % 256), 255})
				}
			}
			f, err := os.Create(filepath.Join(dir, class, string(rune('a'+i%26))+strings.Repeat("x", i/26)+".png"))
			if err != nil {
				t.Fatal(err)
			}
			if err := png.Encode(f, img); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
	}
	return dir
}

// Fit on an ImageDataset (not shuffled) equals Fit on the same images as
// arrays, batch for batch: same weights within 1e-6.
func TestFitOnImageDatasetEqualsArrays(t *testing.T) {
	dir := writePNGs(t, t.TempDir(), []string{"dark", "light"}, 10, 9, 11)
	ds, err := utils.ImageDatasetFromDirectory(dir, utils.ImageDatasetOptions{ImageSize: [2]int{6, 8}, BatchSize: 8, NoShuffle: true, Verbose: keras.Silent})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 3 || len(ds.ClassNames) != 2 {
		t.Fatalf("%d batches of classes %v, want 3 of [dark light]", ds.Len(), ds.ClassNames)
	}
	// The same data as arrays: the batches, joined.
	ctx := context.Background()
	x := keras.Array{Shape: []int{20, 6, 8, 3}}
	y := keras.Array{Shape: []int{20}}
	for i := range ds.Len() {
		b, err := ds.Batch(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		x.Data = append(x.Data, b.X.(keras.Array).Data...)
		y.Data = append(y.Data, b.Y.(keras.Array).Data...)
	}
	model := func() *keras.Model {
		m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{6, 8, 3}}, &layers.Rescaling{Scale: 1.0 / 255},
			&layers.Conv2D{Filters: 3, KernelSize: [2]int{3, 3}, Activation: "relu"}, &layers.Flatten{}, &layers.Dense{Units: 2, Activation: "softmax"})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{LearningRate: 0.05}, Loss: keras.Loss("sparse_categorical_crossentropy"), Seed: 5}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	fromArrays, fromFiles := model(), model()
	opts := keras.FitOptions{Epochs: 2, BatchSize: 8, NoShuffle: true, Verbose: keras.Silent}
	if _, err := fromArrays.Fit(ctx, x, y, opts); err != nil {
		t.Fatal(err)
	}
	opts.BatchSize = 0
	if _, err := fromFiles.Fit(ctx, keras.Batches{Dataset: ds, Workers: 2}, nil, opts); err != nil {
		t.Fatal(err)
	}
	a, _ := fromArrays.GetWeights()
	b, _ := fromFiles.GetWeights()
	for i := range a {
		for j := range a[i] {
			if math.Abs(float64(a[i][j]-b[i][j])) > 1e-6 {
				t.Fatalf("weight %d[%d]: %v from the files, %v from the arrays", i, j, b[i][j], a[i][j])
			}
		}
	}
}

// A shuffled ImageDataset reshuffles every epoch, reproducibly from its
// seed; every file is read once per epoch; the validation subset is the
// rest of the training one.
func TestImageDatasetShufflesAndSplits(t *testing.T) {
	dir := writePNGs(t, t.TempDir(), []string{"a", "b", "c"}, 7, 4, 4)
	o := utils.ImageDatasetOptions{ImageSize: [2]int{4, 4}, BatchSize: 5, Seed: 9, ValidationSplit: 0.25, Verbose: keras.Silent}
	train, val, err := utils.ImageDatasetsFromDirectory(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(train.FilePaths) != 16 || len(val.FilePaths) != 5 {
		t.Fatalf("%d training and %d validation files, want 16 and 5 of 21", len(train.FilePaths), len(val.FilePaths))
	}
	seen := map[string]bool{}
	for _, p := range append(append([]string{}, train.FilePaths...), val.FilePaths...) {
		if seen[p] {
			t.Fatalf("%s is in both subsets", p)
		}
		seen[p] = true
	}
	o.Subset = "training"
	again, err := utils.ImageDatasetFromDirectory(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(again.FilePaths, ",") != strings.Join(train.FilePaths, ",") {
		t.Fatal("the training subset differs between ImageDatasetFromDirectory and ImageDatasetsFromDirectory")
	}
	ctx := context.Background()
	labelsOfEpoch := func(d *utils.ImageDataset) string {
		var s []string
		total := 0
		for i := range d.Len() {
			b, err := d.Batch(ctx, i)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range b.Y.(keras.Array).Data {
				s = append(s, string(rune('0'+int(v))))
			}
			total += b.X.(keras.Array).Shape[0]
		}
		if total != len(d.FilePaths) {
			t.Fatalf("an epoch read %d images of %d", total, len(d.FilePaths))
		}
		return strings.Join(s, "")
	}
	first := labelsOfEpoch(train)
	train.OnEpochEnd()
	second := labelsOfEpoch(train)
	if first == second {
		t.Errorf("the order did not change between epochs: %s", first)
	}
	again.OnEpochEnd()
	if labelsOfEpoch(again) != second {
		t.Error("two datasets with one seed shuffled their second epochs differently")
	}
}

// Bad folders and settings are errors that name the problem, the
// folder or the file.
func TestImageDatasetErrors(t *testing.T) {
	empty := t.TempDir()
	os.Mkdir(filepath.Join(empty, "cats"), 0o755)
	os.WriteFile(filepath.Join(empty, "cats", "notes.txt"), []byte("no image"), 0o644)
	three := writePNGs(t, t.TempDir(), []string{"a", "b", "c"}, 2, 3, 3)
	corrupt := writePNGs(t, t.TempDir(), []string{"a", "b"}, 2, 3, 3)
	bad := filepath.Join(corrupt, "b", "broken.png")
	os.WriteFile(bad, []byte("\x89PNG\r\n\x1a\nthis is not the rest of a png"), 0o644)
	quiet := utils.ImageDatasetOptions{Verbose: keras.Silent, ImageSize: [2]int{3, 3}}
	with := func(f func(o *utils.ImageDatasetOptions)) utils.ImageDatasetOptions {
		o := quiet
		f(&o)
		return o
	}
	for _, c := range []struct {
		name string
		dir  string
		opts utils.ImageDatasetOptions
		want string
	}{
		{"no images", empty, quiet, "no images found in directory " + empty},
		{"missing folder", filepath.Join(empty, "nope"), quiet, "no such file"},
		{"binary with 3 classes", three, with(func(o *utils.ImageDatasetOptions) { o.LabelMode = "binary" }), "exactly 2 classes"},
		{"labels of another count", three, with(func(o *utils.ImageDatasetOptions) { o.Labels = []int{0, 1} }), "2 Labels for the 6 image files"},
		{"unknown label mode", three, with(func(o *utils.ImageDatasetOptions) { o.LabelMode = "sparse" }), "unknown LabelMode"},
		{"unknown color mode", three, with(func(o *utils.ImageDatasetOptions) { o.ColorMode = "cmyk" }), "unknown ColorMode"},
		{"class names not folders", three, with(func(o *utils.ImageDatasetOptions) { o.ClassNames = []string{"a", "z"} }), "do not match the sub-folders"},
		{"split without subset", three, with(func(o *utils.ImageDatasetOptions) { o.ValidationSplit = 0.2 }), "Subset"},
		{"subset without split", three, with(func(o *utils.ImageDatasetOptions) { o.Subset = "training" }), "ValidationSplit must be set"},
		{"split out of range", three, with(func(o *utils.ImageDatasetOptions) { o.ValidationSplit = 1.5; o.Subset = "training" }), "between 0 and 1"},
		{"unknown interpolation", three, with(func(o *utils.ImageDatasetOptions) { o.Interpolation = "area" }), "unknown interpolation"},
	} {
		_, err := utils.ImageDatasetFromDirectory(c.dir, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error saying %q", c.name, err, c.want)
		}
	}
	// A corrupt file fails the batch that reads it, naming the file; Fit
	// stops with that error.
	ds, err := utils.ImageDatasetFromDirectory(corrupt, with(func(o *utils.ImageDatasetOptions) { o.NoShuffle = true; o.BatchSize = 2 }))
	if err != nil {
		t.Fatal(err)
	}
	m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{3, 3, 3}}, &layers.Flatten{}, &layers.Dense{Units: 2, Activation: "softmax"})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileOptions{Loss: keras.Loss("sparse_categorical_crossentropy")}); err != nil {
		t.Fatal(err)
	}
	_, err = m.Fit(context.Background(), keras.Batches{Dataset: ds}, nil, keras.FitOptions{Epochs: 1, NoShuffle: true, Verbose: keras.Silent})
	if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "remove or replace the file") {
		t.Fatalf("Fit over a corrupt image: got %v, want an error naming %s", err, bad)
	}
}

// SaveImg writes what LoadImg reads back (PNG: exactly, unscaled), scales
// to [0, 255] by default as Keras does, and refuses what is not an
// image, leaving no file.
func TestSaveImg(t *testing.T) {
	dir := t.TempDir()
	x := keras.Array{Shape: []int{3, 4, 3}, Data: make([]float32, 36)}
	for i := range x.Data {
		x.Data[i] = float32(i * 7)
	}
	path := filepath.Join(dir, "x.png")
	if err := utils.SaveImg(path, x, utils.SaveImgOptions{NoScale: true}); err != nil {
		t.Fatal(err)
	}
	img, err := utils.LoadImg(path, utils.LoadImgOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back := utils.ImgToArray(img)
	for i, v := range back.Data {
		if v != x.Data[i] {
			t.Fatalf("value %d read back as %v, saved %v", i, v, x.Data[i])
		}
	}
	if err := utils.SaveImg(path, x, utils.SaveImgOptions{}); err != nil {
		t.Fatal(err)
	}
	img, _ = utils.LoadImg(path, utils.LoadImgOptions{})
	scaled := utils.ImgToArray(img)
	if scaled.Data[0] != 0 || scaled.Data[35] != 255 {
		t.Fatalf("scaled values run from %v to %v, want 0 to 255", scaled.Data[0], scaled.Data[35])
	}
	for _, c := range []struct {
		path string
		x    keras.Array
		want string
	}{
		{filepath.Join(dir, "flat.png"), keras.Array{Shape: []int{12}, Data: make([]float32, 12)}, "(height, width, channels)"},
		{filepath.Join(dir, "two.png"), keras.Array{Shape: []int{2, 3, 2}, Data: make([]float32, 12)}, "1, 3 or 4 channels"},
		{filepath.Join(dir, "x.tiff"), x, "cannot tell the image format"},
	} {
		err := utils.SaveImg(c.path, c.x, utils.SaveImgOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error saying %q", c.path, err, c.want)
		}
		if _, err := os.Stat(c.path); !os.IsNotExist(err) {
			t.Errorf("%s: a failed SaveImg left a file", c.path)
		}
	}
}
