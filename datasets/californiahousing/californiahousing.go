package californiahousing

import (
	"context"
	"fmt"

	"github.com/kerasgo/kerasgo/datasets"
)

// File is Keras's california_housing.npz.
var File = datasets.Remote{
	Name:   "california_housing.npz",
	Origin: "https://storage.googleapis.com/tensorflow/tf-keras-datasets/california_housing.npz",
	Hash:   "1a2e3a52e0398de6463aebe6f4a8da34fb21fbb6b934cf88c3425e766f2a1a6f",
}

// Options are load_data's arguments and where to look.
type Options struct {
	datasets.Options
	// Version is "large" (the default when empty: every sample) or
	// "small" (the first 600).
	Version string
	// TestSplit is the fraction held out for testing; zero means Keras's
	// 0.2 (NoTestSplit for none).
	TestSplit   float64
	NoTestSplit bool
	// Seed shuffles the samples before the split; zero means Keras's 113.
	Seed uint32
}

// LoadData returns the training and test splits: X (samples, 8), Y
// (samples,).
func LoadData(ctx context.Context, o Options) (train, test datasets.Split, err error) {
	keep := 0
	switch o.Version {
	case "", "large":
	case "small":
		keep = 600
	default:
		return train, test, fmt.Errorf("californiahousing: version must be \"small\" or \"large\", got %q", o.Version)
	}
	split := datasets.TestFraction(o.TestSplit, o.NoTestSplit)
	return datasets.LoadRegression(ctx, o.Options, File, split, o.Seed, keep)
}
