package imdb

import (
	"context"
	"fmt"

	"github.com/kerasgo/kerasgo/datasets"
)

// File is Keras's imdb.npz; WordIndexFile its word index.
var (
	File = datasets.Remote{
		Name:   "imdb.npz",
		Origin: "https://storage.googleapis.com/tensorflow/tf-keras-datasets/imdb.npz",
		Hash:   "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f",
	}
	WordIndexFile = datasets.Remote{
		Name:   "imdb_word_index.json",
		Origin: "https://storage.googleapis.com/tensorflow/tf-keras-datasets/imdb_word_index.json",
		Hash:   "bfafd718b763782e994055a2d397834f",
	}
)

// Options are load_data's arguments and where to look.
type Options struct {
	datasets.Options
	datasets.SequenceOptions
}

// LoadData returns the training and test reviews: word-id sequences
// (pad them with utils.PadSequences) and labels.
func LoadData(ctx context.Context, o Options) (train, test datasets.Sequences, err error) {
	path, err := o.File(ctx, File)
	if err != nil {
		return train, test, err
	}
	z, err := datasets.ReadNPZ(path)
	if err != nil {
		return train, test, err
	}
	var parts []datasets.Sequences
	for _, name := range []string{"train", "test"} {
		seqs, err := z.Sequences("x_" + name)
		if err != nil {
			return train, test, err
		}
		labels, err := z.Ints("y_" + name)
		if err != nil {
			return train, test, err
		}
		parts = append(parts, datasets.Sequences{Sequences: seqs, Labels: labels})
	}
	out, err := o.PrepareSequences(parts)
	if err != nil {
		return train, test, fmt.Errorf("imdb: %w", err)
	}
	return out[0], out[1], nil
}

// GetWordIndex returns the word index: word -> id (before LoadData's
// IndexFrom is added).
func GetWordIndex(ctx context.Context, o datasets.Options) (map[string]int, error) {
	return datasets.WordIndex(ctx, o, WordIndexFile)
}
