package utils

import (
	"context"
	"fmt"
	"os"

	"github.com/kerasgo/kerasgo/keras"
)

// TextDataset is a folder of text files as a Dataset, made by
// TextDatasetFromDirectory: batch i reads its files when it is loaded. It
// is safe for the concurrent Batch calls of several loader goroutines.
type TextDataset struct {
	// ClassNames are the classes in label order (the sub-folders' names,
	// or the distinct Labels); nil with NoLabels.
	ClassNames []string
	// FilePaths are the text files in the dataset's first order.
	FilePaths []string

	maxLength int
	files     *fileOrder
}

func newTextDataset(paths []string, labels []int, classes []string, d directoryIndex, maxLength int, shuffle bool) *TextDataset {
	t := &TextDataset{ClassNames: classes, FilePaths: paths, maxLength: maxLength, files: newFileOrder(len(paths), labels, len(classes), d, shuffle)}
	if d.noLabels {
		t.ClassNames = nil
	}
	return t
}

// Len is the number of batches.
func (d *TextDataset) Len() int { return d.files.batches() }

// Batch reads the texts of batch i (and makes their labels): X holds
// strings of shape (batch,). A file that cannot be read is an error that
// names it.
func (d *TextDataset) Batch(ctx context.Context, i int) (keras.Batch, error) {
	files, err := d.files.batchFiles(i, "TextDataset")
	if err != nil {
		return keras.Batch{}, err
	}
	texts := make([]string, len(files))
	for k, f := range files {
		if err := ctx.Err(); err != nil {
			return keras.Batch{}, err
		}
		data, err := os.ReadFile(d.FilePaths[f])
		if err != nil {
			return keras.Batch{}, fmt.Errorf("reading a text file: %w", err)
		}
		if d.maxLength > 0 && len(data) > d.maxLength {
			data = data[:d.maxLength]
		}
		texts[k] = string(data)
	}
	x := keras.Array{Shape: []int{len(texts)}, Strings: texts}
	if d.files.labels == nil {
		return keras.Batch{X: x}, nil
	}
	return keras.Batch{X: x, Y: d.files.labelArray(files)}, nil
}

// OnEpochEnd reshuffles the files for the next epoch (unless NoShuffle).
func (d *TextDataset) OnEpochEnd() { d.files.reshuffle() }
