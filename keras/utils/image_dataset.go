package utils

import (
	"context"
	"fmt"

	"github.com/kerasgo/kerasgo/keras"

	"github.com/kerasgo/kerasgo/internal/imaging"
)

// ImageDataset is a folder of images as a Dataset, made by
// ImageDatasetFromDirectory: batch i decodes and resizes its files when
// it is loaded. It is safe for the concurrent Batch calls of several
// loader goroutines.
type ImageDataset struct {
	// ClassNames are the classes in label order (the sub-folders' names,
	// or the distinct Labels); nil with NoLabels.
	ClassNames []string
	// FilePaths are the image files in the dataset's first order.
	FilePaths []string

	opts  ImageDatasetOptions
	files *fileOrder
}

func newImageDataset(paths []string, labels []int, classes []string, o ImageDatasetOptions, shuffle bool) *ImageDataset {
	d := &ImageDataset{ClassNames: classes, FilePaths: paths, opts: o, files: newFileOrder(len(paths), labels, len(classes), o.files(), shuffle)}
	if o.NoLabels {
		d.ClassNames = nil
	}
	return d
}

// Len is the number of batches.
func (d *ImageDataset) Len() int { return d.files.batches() }

// Batch decodes and resizes the images of batch i (and makes their
// labels). A file that cannot be read or decoded is an error that names
// it.
func (d *ImageDataset) Batch(ctx context.Context, i int) (keras.Batch, error) {
	files, err := d.files.batchFiles(i, "ImageDataset")
	if err != nil {
		return keras.Batch{}, err
	}
	o := d.opts
	h, w := o.ImageSize[0], o.ImageSize[1]
	var x keras.Array
	for k, f := range files {
		if err := ctx.Err(); err != nil {
			return keras.Batch{}, err
		}
		p, err := d.load(d.FilePaths[f])
		if err != nil {
			return keras.Batch{}, err
		}
		if x.Shape == nil {
			x = keras.Array{Shape: []int{len(files), h, w, p.Channels}, Data: make([]float32, len(files)*h*w*p.Channels)}
		}
		copy(x.Data[k*h*w*p.Channels:], p.Data)
	}
	if d.files.labels == nil {
		return keras.Batch{X: x}, nil
	}
	return keras.Batch{X: x, Y: d.files.labelArray(files)}, nil
}

// load reads one image as Keras's loader does: PIL's colour conversion,
// then Keras's resize.
func (d *ImageDataset) load(path string) (imaging.Pixels, error) {
	img, err := imaging.Open(path)
	if err != nil {
		return imaging.Pixels{}, fmt.Errorf("%w: remove or replace the file", err)
	}
	if img, err = imaging.Convert(img, d.opts.ColorMode); err != nil {
		return imaging.Pixels{}, err
	}
	o := d.opts
	return imaging.ResizeJAX(imaging.Floats(img), o.ImageSize[0], o.ImageSize[1], o.Interpolation, o.CropToAspectRatio, o.PadToAspectRatio)
}

// OnEpochEnd reshuffles the files for the next epoch (unless NoShuffle),
// as Keras's dataset reshuffles every epoch; the order follows from Seed
// and the epoch's number.
func (d *ImageDataset) OnEpochEnd() { d.files.reshuffle() }
