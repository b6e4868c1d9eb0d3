package bostonhousing

import (
	"context"

	"github.com/kerasgo/kerasgo/datasets"
)

// File is Keras's boston_housing.npz.
var File = datasets.Remote{
	Name:   "boston_housing.npz",
	Origin: "https://storage.googleapis.com/tensorflow/tf-keras-datasets/boston_housing.npz",
	Hash:   "f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5",
}

// Options are load_data's arguments and where to look.
type Options struct {
	datasets.Options
	// TestSplit is the fraction held out for testing; zero means Keras's
	// 0.2 (NoTestSplit for none).
	TestSplit   float64
	NoTestSplit bool
	// Seed shuffles the samples before the split; zero means Keras's 113.
	Seed uint32
}

// LoadData returns the training and test splits: X (samples, 13), Y
// (samples,).
func LoadData(ctx context.Context, o Options) (train, test datasets.Split, err error) {
	split := datasets.TestFraction(o.TestSplit, o.NoTestSplit)
	return datasets.LoadRegression(ctx, o.Options, File, split, o.Seed, 0)
}
