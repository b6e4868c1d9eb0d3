package utils

import (
	"fmt"
	"io"

	"github.com/kerasgo/kerasgo/internal/imaging"
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
	files, classes, err := o.files().oneSubset(dir, "ImageDatasetFromDirectory", "images", fmt.Sprint(imaging.Formats))
	if err != nil {
		return nil, err
	}
	return newImageDataset(files.paths, files.labels, classes, o, !o.NoShuffle), nil
}

// ImageDatasetsFromDirectory is ImageDatasetFromDirectory with Keras's
// subset="both": the training and the validation datasets of one
// ValidationSplit. The validation dataset is not shuffled.
func ImageDatasetsFromDirectory(dir string, opts ImageDatasetOptions) (train, validation *ImageDataset, err error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, nil, fmt.Errorf("ImageDatasetsFromDirectory: %w", err)
	}
	tf, vf, classes, err := o.files().bothSubsets(dir, "ImageDatasetsFromDirectory", "images", fmt.Sprint(imaging.Formats))
	if err != nil {
		return nil, nil, err
	}
	return newImageDataset(tf.paths, tf.labels, classes, o, !o.NoShuffle), newImageDataset(vf.paths, vf.labels, classes, o, false), nil
}

// resolve checks the options and fills in Keras's defaults.
func (o ImageDatasetOptions) resolve() (ImageDatasetOptions, error) {
	d, err := o.files().resolve()
	if err != nil {
		return o, err
	}
	o.LabelMode, o.BatchSize, o.Log = d.labelMode, d.batchSize, d.log
	if o.ColorMode == "" {
		o.ColorMode = "rgb"
	}
	switch o.ColorMode {
	case "rgb", "rgba", "grayscale":
	default:
		return o, fmt.Errorf(`unknown ColorMode %q: use "rgb", "rgba" or "grayscale"`, o.ColorMode)
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
	return o, nil
}

// files is how the images are found, labelled and split.
func (o ImageDatasetOptions) files() directoryIndex {
	return directoryIndex{labels: o.Labels, noLabels: o.NoLabels, labelMode: o.LabelMode, classNames: o.ClassNames,
		batchSize: o.BatchSize, noShuffle: o.NoShuffle, seed: o.Seed, validationSplit: o.ValidationSplit, subset: o.Subset,
		followLinks: o.FollowLinks, verbose: o.Verbose, log: o.Log, isFile: imaging.HasFormat, kind: "image"}
}
