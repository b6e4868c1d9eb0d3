package cifar100

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/kerasgo/kerasgo/datasets"
)

// Archive is Keras's CIFAR-100 download, extracted to
// cifar-100-python-target/cifar-100-python.
var Archive = datasets.Remote{
	Name:   "cifar-100-python-target",
	Origin: "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz",
	Hash:   "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7",
}

// LoadData returns the training and test images (samples, 32, 32, 3),
// values 0 to 255, and labels (samples, 1): labelMode "fine" (the
// default when empty, 0 to 99) or "coarse" (0 to 19).
func LoadData(ctx context.Context, labelMode string, o datasets.Options) (train, test datasets.Split, err error) {
	switch labelMode {
	case "":
		labelMode = "fine"
	case "fine", "coarse":
	default:
		return train, test, fmt.Errorf("cifar100: label mode must be \"fine\" or \"coarse\", got %q", labelMode)
	}
	dir, err := o.Extracted(ctx, Archive)
	if err != nil {
		return train, test, err
	}
	dir = filepath.Join(dir, "cifar-100-python")
	load := func(name string) (datasets.Split, error) {
		x, y, err := datasets.LoadCIFARBatch(filepath.Join(dir, name), labelMode+"_labels")
		return datasets.Split{X: x, Y: datasets.LabelColumn(y)}, err
	}
	if train, err = load("train"); err != nil {
		return train, test, err
	}
	test, err = load("test")
	return train, test, err
}
