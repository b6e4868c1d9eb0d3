package utils

import (
	"fmt"
	"io"
	"strings"
)

// TextDatasetOptions are keras.utils.text_dataset_from_directory's
// arguments; zero values are Keras's defaults.
type TextDatasetOptions struct {
	// Labels gives each file's label, in the order of the files' sorted
	// paths, instead of Keras's labels="inferred" (from the sub-folder
	// names). NoLabels is Keras's labels=None: batches of texts only.
	Labels   []int
	NoLabels bool
	// LabelMode is "int" (the default when empty), "categorical" or
	// "binary" (exactly 2 classes).
	LabelMode string
	// ClassNames, with inferred labels, chooses the sub-folders and their
	// order (the default: every sub-folder, sorted).
	ClassNames []string
	// BatchSize is the number of texts per batch; 0 means Keras's 32.
	BatchSize int
	// MaxLength cuts every text to its first MaxLength bytes, as Keras's
	// max_length (tf.strings.substr) does; 0 keeps them whole.
	MaxLength int
	// NoShuffle keeps the files in their sorted order; by default they
	// are shuffled with Seed (NumPy's RandomState(seed).shuffle, Keras's
	// file order) and reshuffled every epoch.
	NoShuffle bool
	Seed      uint32
	// ValidationSplit and Subset ("training" or "validation") keep a
	// fraction of the files for validation; for both at once, use
	// TextDatasetsFromDirectory.
	ValidationSplit float64
	Subset          string
	FollowLinks     bool
	// Verbose is Silent to print nothing; Log is where Keras's messages
	// go (nil: standard output).
	Verbose int
	Log     io.Writer
}

func (o TextDatasetOptions) files() directoryIndex {
	return directoryIndex{labels: o.Labels, noLabels: o.NoLabels, labelMode: o.LabelMode, classNames: o.ClassNames,
		batchSize: o.BatchSize, noShuffle: o.NoShuffle, seed: o.Seed, validationSplit: o.ValidationSplit, subset: o.Subset,
		followLinks: o.FollowLinks, verbose: o.Verbose, log: o.Log, isFile: isTextFile, kind: "text"}
}

// isTextFile is Keras's formats=(".txt",).
func isTextFile(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".txt") }

// TextDatasetFromDirectory reads a folder of .txt files as a Dataset for
// Fit, Evaluate and Predict (give it as keras.Batches{Dataset: ds}), as
// keras.utils.text_dataset_from_directory does. With labels inferred (the
// default), each sub-folder is a class:
//
//	main_directory/
//	    class_a/  a_text_1.txt  a_text_2.txt ...
//	    class_b/  b_text_1.txt  b_text_2.txt ...
//
// Batches hold the texts as strings of shape (batch,), for a model with a
// layers.StringInput() and a TextVectorization layer, and labels as
// LabelMode says. The files are listed, shuffled and split when the
// Dataset is made and read when a batch is loaded.
func TextDatasetFromDirectory(dir string, opts TextDatasetOptions) (*TextDataset, error) {
	d, err := opts.files().resolve()
	if err != nil {
		return nil, fmt.Errorf("TextDatasetFromDirectory: %w", err)
	}
	if err := checkMaxLength(opts.MaxLength); err != nil {
		return nil, fmt.Errorf("TextDatasetFromDirectory: %w", err)
	}
	files, classes, err := d.oneSubset(dir, "TextDatasetFromDirectory", "text files", ".txt")
	if err != nil {
		return nil, err
	}
	return newTextDataset(files.paths, files.labels, classes, d, opts.MaxLength, !d.noShuffle), nil
}

// TextDatasetsFromDirectory is TextDatasetFromDirectory with Keras's
// subset="both": the training and the validation datasets of one
// ValidationSplit. The validation dataset is not shuffled.
func TextDatasetsFromDirectory(dir string, opts TextDatasetOptions) (train, validation *TextDataset, err error) {
	d, err := opts.files().resolve()
	if err != nil {
		return nil, nil, fmt.Errorf("TextDatasetsFromDirectory: %w", err)
	}
	if err := checkMaxLength(opts.MaxLength); err != nil {
		return nil, nil, fmt.Errorf("TextDatasetsFromDirectory: %w", err)
	}
	tf, vf, classes, err := d.bothSubsets(dir, "TextDatasetsFromDirectory", "text files", ".txt")
	if err != nil {
		return nil, nil, err
	}
	return newTextDataset(tf.paths, tf.labels, classes, d, opts.MaxLength, !d.noShuffle), newTextDataset(vf.paths, vf.labels, classes, d, opts.MaxLength, false), nil
}

func checkMaxLength(n int) error {
	if n < 0 {
		return fmt.Errorf("MaxLength %d: give a positive number of bytes, or 0 for whole texts", n)
	}
	return nil
}
