package keras

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"

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

	labels  []int
	opts    ImageDatasetOptions
	shuffle bool

	mu    sync.RWMutex
	order []int // the files of this epoch, in order
	epoch uint64
}

func newImageDataset(paths []string, labels []int, classes []string, o ImageDatasetOptions, shuffle bool) *ImageDataset {
	d := &ImageDataset{ClassNames: classes, FilePaths: paths, labels: labels, opts: o, shuffle: shuffle, order: make([]int, len(paths))}
	if o.NoLabels {
		d.ClassNames = nil
	}
	for i := range d.order {
		d.order[i] = i
	}
	return d
}

// Len is the number of batches.
func (d *ImageDataset) Len() int { return (len(d.FilePaths) + d.opts.BatchSize - 1) / d.opts.BatchSize }

// Batch decodes and resizes the images of batch i (and makes their
// labels). A file that cannot be read or decoded is an error that names
// it.
func (d *ImageDataset) Batch(ctx context.Context, i int) (Batch, error) {
	if i < 0 || i >= d.Len() {
		return Batch{}, fmt.Errorf("batch %d of an ImageDataset of %d batches", i, d.Len())
	}
	d.mu.RLock()
	from, to := i*d.opts.BatchSize, min((i+1)*d.opts.BatchSize, len(d.order))
	files := append([]int(nil), d.order[from:to]...)
	d.mu.RUnlock()
	o := d.opts
	h, w := o.ImageSize[0], o.ImageSize[1]
	var x Array
	for k, f := range files {
		if err := ctx.Err(); err != nil {
			return Batch{}, err
		}
		p, err := d.load(d.FilePaths[f])
		if err != nil {
			return Batch{}, err
		}
		if x.Shape == nil {
			x = Array{Shape: []int{len(files), h, w, p.Channels}, Data: make([]float32, len(files)*h*w*p.Channels)}
		}
		copy(x.Data[k*h*w*p.Channels:], p.Data)
	}
	if d.labels == nil {
		return Batch{X: x}, nil
	}
	return Batch{X: x, Y: d.labelArray(files)}, nil
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

// labelArray is the labels of files in the label mode.
func (d *ImageDataset) labelArray(files []int) Array {
	n := len(files)
	switch d.opts.LabelMode {
	case "categorical":
		k := len(d.ClassNames)
		y := Array{Shape: []int{n, k}, Data: make([]float32, n*k)}
		for i, f := range files {
			y.Data[i*k+d.labels[f]] = 1
		}
		return y
	case "binary":
		y := Array{Shape: []int{n, 1}, Data: make([]float32, n)}
		for i, f := range files {
			y.Data[i] = float32(d.labels[f])
		}
		return y
	}
	y := Array{Shape: []int{n}, Data: make([]float32, n)}
	for i, f := range files {
		y.Data[i] = float32(d.labels[f])
	}
	return y
}

// OnEpochEnd reshuffles the files for the next epoch (unless NoShuffle),
// as Keras's dataset reshuffles every epoch; the order follows from Seed
// and the epoch's number.
func (d *ImageDataset) OnEpochEnd() {
	if !d.shuffle {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.epoch++
	r := rand.New(rand.NewPCG(uint64(d.opts.Seed), d.epoch))
	r.Shuffle(len(d.order), func(i, j int) { d.order[i], d.order[j] = d.order[j], d.order[i] })
}
