package keras

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kerasgo/kerasgo/internal/imaging"
	"github.com/kerasgo/kerasgo/internal/nprandom"
	"github.com/kerasgo/kerasgo/internal/resample"
)

// ImageDatasetOptions are keras.utils.image_dataset_from_directory's
// arguments; zero values are Keras's defaults.
type ImageDatasetOptions struct {
	// Labels gives each image's label, in the order of the image files'
	// sorted paths, instead of Keras's labels="inferred" (from the
	// sub-folder names). NoLabels is Keras's labels=None: batches of
	// images only (for Predict).
	Labels   []int
	NoLabels bool
	// LabelMode is "int" (the default when empty: the class index, for
	// sparse_categorical_crossentropy), "categorical" (one-hot vectors)
	// or "binary" (0 or 1 as a float of shape (1,); exactly 2 classes).
	LabelMode string
	// ClassNames, with inferred labels, chooses the sub-folders and their
	// order (the default: every sub-folder, sorted).
	ClassNames []string
	// ColorMode is "rgb" (the default when empty), "rgba" or "grayscale".
	ColorMode string
	// BatchSize is the number of images per batch; 0 means Keras's 32.
	BatchSize int
	// ImageSize is the (height, width) every image is resized to; zero
	// means Keras's (256, 256).
	ImageSize [2]int
	// NoShuffle keeps the files in their sorted order. By default they
	// are shuffled with Seed (the order Keras's seed gives: NumPy's
	// RandomState(seed).shuffle) and reshuffled every epoch.
	NoShuffle bool
	// Seed orders the shuffle and the validation split. Keras draws a
	// random seed when none is given; kerasgo's default is the seed 0,
	// so a run is reproducible.
	Seed uint32
	// ValidationSplit is the fraction of the files kept for validation,
	// with Subset "training" (the rest) or "validation" (the last
	// fraction of the shuffled files). For both at once, use
	// ImageDatasetsFromDirectory.
	ValidationSplit float64
	Subset          string
	// Interpolation is the resize's: "bilinear" (the default when
	// empty), "nearest", "bicubic", "lanczos3" or "lanczos5".
	Interpolation string
	// FollowLinks descends into sub-folders that are symbolic links.
	FollowLinks bool
	// CropToAspectRatio resizes the largest centred window with the
	// target's aspect ratio; PadToAspectRatio pads with zeros to it.
	CropToAspectRatio, PadToAspectRatio bool
	// Verbose is Silent to print nothing; otherwise the number of files
	// and classes found is printed, as Keras does.
	Verbose int
	// Log is where that goes; nil means standard output.
	Log io.Writer
}

// ImageDatasetFromDirectory reads a folder of images as a Dataset for
// Fit, Evaluate and Predict (give it as keras.Batches{Dataset: ds}), as
// keras.utils.image_dataset_from_directory does. With labels inferred
// (the default), each sub-folder is a class:
//
//	main_directory/
//	    class_a/  a_image_1.jpg  a_image_2.jpg ...
//	    class_b/  b_image_1.jpg  b_image_2.jpg ...
//
// PNG, JPEG, GIF (the first frame) and BMP files are read, in every
// sub-folder of a class's folder. Batches hold images of shape (height,
// width, channels) in [0, 255] as floats, resized to ImageSize as Keras
// resizes them, and labels as LabelMode says. The files are listed,
// shuffled and split when the Dataset is made; they are decoded when a
// batch is loaded, so a folder larger than memory trains from disk
// (with Batches.Workers decoding ahead of the engine).
func ImageDatasetFromDirectory(dir string, opts ImageDatasetOptions) (*ImageDataset, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, fmt.Errorf("ImageDatasetFromDirectory: %w", err)
	}
	if o.ValidationSplit != 0 && (o.Subset == "both" || o.Subset == "") {
		return nil, fmt.Errorf(`ImageDatasetFromDirectory: with a ValidationSplit, set Subset to "training" or "validation" (or call ImageDatasetsFromDirectory for both)`)
	}
	paths, labels, classes, err := o.index(dir)
	if err != nil {
		return nil, fmt.Errorf("ImageDatasetFromDirectory: %w", err)
	}
	paths, labels = o.split(paths, labels, o.Subset)
	if len(paths) == 0 {
		return nil, fmt.Errorf("ImageDatasetFromDirectory: no images found in directory %s (allowed formats: %v)", dir, imaging.Formats)
	}
	o.say("Using %d files for %s.\n", len(paths), o.Subset)
	return newImageDataset(paths, labels, classes, o, !o.NoShuffle), nil
}

// ImageDatasetsFromDirectory is ImageDatasetFromDirectory with Keras's
// subset="both": the training and the validation datasets of one
// ValidationSplit. The validation dataset is not shuffled.
func ImageDatasetsFromDirectory(dir string, opts ImageDatasetOptions) (train, validation *ImageDataset, err error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, nil, fmt.Errorf("ImageDatasetsFromDirectory: %w", err)
	}
	if o.ValidationSplit == 0 || (o.Subset != "" && o.Subset != "both") {
		return nil, nil, fmt.Errorf(`ImageDatasetsFromDirectory: give a ValidationSplit (and no Subset, or "both")`)
	}
	paths, labels, classes, err := o.index(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("ImageDatasetsFromDirectory: %w", err)
	}
	tp, tl := o.split(paths, labels, "training")
	vp, vl := o.split(paths, labels, "validation")
	switch {
	case len(tp) == 0:
		return nil, nil, fmt.Errorf("ImageDatasetsFromDirectory: no training images found in directory %s (allowed formats: %v)", dir, imaging.Formats)
	case len(vp) == 0:
		return nil, nil, fmt.Errorf("ImageDatasetsFromDirectory: no validation images found in directory %s (allowed formats: %v)", dir, imaging.Formats)
	}
	o.say("Using %d files for training.\nUsing %d files for validation.\n", len(tp), len(vp))
	return newImageDataset(tp, tl, classes, o, !o.NoShuffle), newImageDataset(vp, vl, classes, o, false), nil
}

// resolve checks the options and fills in Keras's defaults.
func (o ImageDatasetOptions) resolve() (ImageDatasetOptions, error) {
	if o.LabelMode == "" {
		o.LabelMode = "int"
	}
	switch o.LabelMode {
	case "int", "categorical", "binary":
	default:
		return o, fmt.Errorf(`unknown LabelMode %q: use "int", "categorical" or "binary" (or NoLabels)`, o.LabelMode)
	}
	if o.Labels != nil && o.NoLabels {
		return o, fmt.Errorf("both Labels and NoLabels are set: give one")
	}
	if o.Labels != nil && o.ClassNames != nil {
		return o, fmt.Errorf("ClassNames can only be given with labels inferred from the sub-folders, not with Labels")
	}
	if o.NoLabels && o.ClassNames != nil {
		return o, fmt.Errorf("ClassNames cannot be given with NoLabels")
	}
	if o.ColorMode == "" {
		o.ColorMode = "rgb"
	}
	switch o.ColorMode {
	case "rgb", "rgba", "grayscale":
	default:
		return o, fmt.Errorf(`unknown ColorMode %q: use "rgb", "rgba" or "grayscale"`, o.ColorMode)
	}
	if o.BatchSize == 0 {
		o.BatchSize = 32
	}
	if o.BatchSize < 0 {
		return o, fmt.Errorf("BatchSize %d: give a positive number", o.BatchSize)
	}
	if o.ImageSize == ([2]int{}) {
		o.ImageSize = [2]int{256, 256}
	}
	if o.ImageSize[0] < 1 || o.ImageSize[1] < 1 {
		return o, fmt.Errorf("ImageSize %v: give a positive (height, width)", o.ImageSize)
	}
	if o.Interpolation == "" {
		o.Interpolation = "bilinear"
	}
	if err := resample.Check(resample.JAX, o.Interpolation); err != nil {
		return o, err
	}
	if o.CropToAspectRatio && o.PadToAspectRatio {
		return o, fmt.Errorf("only one of CropToAspectRatio and PadToAspectRatio can be set")
	}
	if o.ValidationSplit != 0 && !(o.ValidationSplit > 0 && o.ValidationSplit < 1) {
		return o, fmt.Errorf("ValidationSplit must be between 0 and 1, got %v", o.ValidationSplit)
	}
	switch o.Subset {
	case "", "training", "validation", "both":
	default:
		return o, fmt.Errorf(`unknown Subset %q: use "training" or "validation"`, o.Subset)
	}
	if o.Subset != "" && o.ValidationSplit == 0 {
		return o, fmt.Errorf("if Subset is set, ValidationSplit must be set, and inversely")
	}
	if o.Log == nil {
		o.Log = os.Stdout
	}
	return o, nil
}

// say prints Keras's messages unless Silent.
func (o ImageDatasetOptions) say(format string, args ...any) {
	if o.Verbose != Silent {
		fmt.Fprintf(o.Log, format, args...)
	}
}

// index lists the image files and their labels as Keras's
// index_directory does: the class folders sorted (or ClassNames), each
// walked in sorted order, then shuffled with NumPy's RandomState(Seed).
func (o ImageDatasetOptions) index(dir string) (paths []string, labels []int, classes []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading the directory: %w", err)
	}
	subdirs := []string{""}
	inferred := o.Labels == nil && !o.NoLabels
	if inferred {
		subdirs = nil
		for _, e := range entries {
			if isDir(dir, e, true) && !strings.HasPrefix(e.Name(), ".") {
				subdirs = append(subdirs, e.Name())
			}
		}
		if o.ClassNames != nil {
			for _, c := range o.ClassNames {
				if !slices.Contains(subdirs, c) {
					return nil, nil, nil, fmt.Errorf("ClassNames %v do not match the sub-folders of %s: expected %v (or a subset of it)", o.ClassNames, dir, subdirs)
				}
			}
			subdirs = o.ClassNames
		}
	}
	for class, sub := range subdirs {
		files, err := o.walk(filepath.Join(dir, sub))
		if err != nil {
			return nil, nil, nil, err
		}
		paths = append(paths, files...)
		for range files {
			labels = append(labels, class)
		}
	}
	switch {
	case inferred:
		classes = subdirs
		if o.LabelMode == "binary" && len(classes) != 2 {
			return nil, nil, nil, fmt.Errorf(`with LabelMode "binary" there must be exactly 2 classes (sub-folders), found %d: %v`, len(classes), classes)
		}
		o.say("Found %d files belonging to %d classes.\n", len(paths), len(classes))
	case o.NoLabels:
		labels = nil
		o.say("Found %d files.\n", len(paths))
	default:
		if len(o.Labels) != len(paths) {
			return nil, nil, nil, fmt.Errorf("%d Labels for the %d image files found in %s: give one per file, in the order of their sorted paths", len(o.Labels), len(paths), dir)
		}
		labels = slices.Clone(o.Labels)
		distinct := slices.Compact(slices.Sorted(slices.Values(labels)))
		if distinct[0] < 0 {
			return nil, nil, nil, fmt.Errorf("label %d is negative: labels are class indices from 0", distinct[0])
		}
		for _, l := range distinct {
			classes = append(classes, fmt.Sprint(l))
		}
		if o.LabelMode == "binary" && len(classes) != 2 {
			return nil, nil, nil, fmt.Errorf(`with LabelMode "binary" there must be exactly 2 classes, the Labels have %d: %v`, len(classes), classes)
		}
		o.say("Found %d files belonging to %d classes.\n", len(paths), len(classes))
	}
	if !o.NoShuffle {
		nprandom.New(o.Seed).Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
		if labels != nil {
			nprandom.New(o.Seed).Shuffle(len(labels), func(i, j int) { labels[i], labels[j] = labels[j], labels[i] })
		}
	}
	return paths, labels, classes, nil
}

// walk lists the image files under root, Python's os.walk sorted by
// folder, each folder's files sorted.
func (o ImageDatasetOptions) walk(root string) ([]string, error) {
	var folders []string
	files := map[string][]string{}
	var visit func(d string) error
	visit = func(d string) error {
		entries, err := os.ReadDir(d)
		if err != nil {
			return fmt.Errorf("reading %s: %w", d, err)
		}
		folders = append(folders, d)
		for _, e := range entries {
			switch {
			case isDir(d, e, o.FollowLinks):
				if err := visit(filepath.Join(d, e.Name())); err != nil {
					return err
				}
			case imaging.HasFormat(e.Name()) && !isDir(d, e, true):
				files[d] = append(files[d], e.Name())
			}
		}
		return nil
	}
	if err := visit(root); err != nil {
		return nil, err
	}
	slices.Sort(folders)
	var out []string
	for _, d := range folders {
		names := files[d]
		slices.Sort(names)
		for _, n := range names {
			out = append(out, filepath.Join(d, n))
		}
	}
	return out, nil
}

// isDir reports whether entry e of folder d is a folder; a symbolic link
// to one counts when followLinks.
func isDir(d string, e os.DirEntry, followLinks bool) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&os.ModeSymlink == 0 || !followLinks {
		return false
	}
	info, err := os.Stat(filepath.Join(d, e.Name()))
	return err == nil && info.IsDir()
}

// split is Keras's get_training_or_validation_split: the validation
// subset is the last int(split * n) files, training the rest.
func (o ImageDatasetOptions) split(paths []string, labels []int, subset string) ([]string, []int) {
	if o.ValidationSplit == 0 {
		return paths, labels
	}
	val := int(o.ValidationSplit * float64(len(paths)))
	train := len(paths) - val
	if subset == "training" {
		paths = paths[:train]
		if labels != nil {
			labels = labels[:train]
		}
		return paths, labels
	}
	paths = paths[train:]
	if labels != nil {
		labels = labels[train:]
	}
	return paths, labels
}
