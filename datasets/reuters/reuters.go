package reuters

import (
	"context"
	"fmt"

	"github.com/kerasgo/kerasgo/datasets"
)

// File is Keras's reuters.npz; WordIndexFile its word index.
var (
	File = datasets.Remote{
		Name:   "reuters.npz",
		Origin: "https://storage.googleapis.com/tensorflow/tf-keras-datasets/reuters.npz",
		Hash:   "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916",
	}
	WordIndexFile = datasets.Remote{
		Name:   "reuters_word_index.json",
		Origin: "https://storage.googleapis.com/tensorflow/tf-keras-datasets/reuters_word_index.json",
		Hash:   "4d44cc38712099c9e383dc6e5f11a921",
	}
)

// Options are load_data's arguments and where to look.
type Options struct {
	datasets.Options
	datasets.SequenceOptions
	// TestSplit is the fraction held out for testing; zero means Keras's
	// 0.2 (NoTestSplit for none).
	TestSplit   float64
	NoTestSplit bool
}

// LoadData returns the training and test newswires: word-id sequences
// and topic labels (0 to 45; LabelNames names them).
func LoadData(ctx context.Context, o Options) (train, test datasets.Sequences, err error) {
	split := datasets.TestFraction(o.TestSplit, o.NoTestSplit)
	if !(split >= 0 && split < 1) {
		return train, test, fmt.Errorf("reuters: invalid test_split %v: it must be between 0 and 1 (exclusive of 1)", split)
	}
	path, err := o.File(ctx, File)
	if err != nil {
		return train, test, err
	}
	z, err := datasets.ReadNPZ(path)
	if err != nil {
		return train, test, err
	}
	seqs, err := z.Sequences("x")
	if err != nil {
		return train, test, err
	}
	labels, err := z.Ints("y")
	if err != nil {
		return train, test, err
	}
	out, err := o.PrepareSequences([]datasets.Sequences{{Sequences: seqs, Labels: labels}})
	if err != nil {
		return train, test, fmt.Errorf("reuters: %w", err)
	}
	all := out[0]
	cut := int(float64(len(all.Sequences)) * (1 - split))
	return datasets.Sequences{Sequences: all.Sequences[:cut], Labels: all.Labels[:cut]},
		datasets.Sequences{Sequences: all.Sequences[cut:], Labels: all.Labels[cut:]}, nil
}

// GetWordIndex returns the word index: word -> id (before LoadData's
// IndexFrom is added).
func GetWordIndex(ctx context.Context, o datasets.Options) (map[string]int, error) {
	return datasets.WordIndex(ctx, o, WordIndexFile)
}

// LabelNames returns the 46 topics' names, by label, as Keras's
// get_label_names.
func LabelNames() []string {
	return []string{"cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing", "money-supply", "coffee", "sugar",
		"trade", "reserves", "ship", "cotton", "carcass", "crude", "nat-gas", "cpi", "money-fx", "interest", "gnp", "meal-feed",
		"alum", "oilseed", "gold", "tin", "strategic-metal", "livestock", "retail", "ipi", "iron-steel", "rubber", "heat", "jobs",
		"lei", "bop", "zinc", "orange", "pet-chem", "dlr", "gas", "silver", "wpi", "hog", "lead"}
}
