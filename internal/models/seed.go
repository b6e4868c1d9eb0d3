package models

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/applications"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// The networks of Shi et al., "Benchmarking State-of-the-Art Deep
// Learning Software Tools" (2016, arXiv 1608.07249), as their benchmark
// code (github.com/hclhkbu/dlbench, synthetic/) defines them.
const (
	// FCNFeatures is the FCNs' input and output width.
	FCNFeatures = 26752
	// FCNHidden is the width of their hidden layers.
	FCNHidden = 2048
	// ImageNetClasses is AlexNet's and ResNet-50's number of classes.
	ImageNetClasses = 1000
	// LSTMVocabulary is the LSTM language models' vocabulary.
	LSTMVocabulary = 10000
	// LSTMHidden is the width of their embedding and of their two LSTM
	// layers (dlbench's hiddensize default).
	LSTMHidden = 256
)

// SeedNames lists the 2016 networks Seed knows.
var SeedNames = []string{"fcn5", "fcn8", "alexnet", "resnet50", "lstm32", "lstm64"}

// Seed returns one of the 2016 benchmark's networks, uncompiled:
//
//   - "fcn5", "fcn8": 26,752 inputs, 3 or 6 hidden layers of 2048
//     sigmoid units, 26,752 softmax outputs;
//   - "alexnet": the one-tower AlexNet of dlbench's TensorFlow code on
//     224x224x3 images (convolutions of 96, 256, 384, 384 and 256 filters
//     with "same" padding, 3x3 max pooling of stride 2, two 4096-unit
//     layers, 1000 softmax outputs);
//   - "resnet50": keras.applications' ResNet50 (applications.ResNet50);
//   - "lstm32", "lstm64": a word-level language model over 10,000 words,
//     an Embedding of 256, two LSTM layers of 256 returning sequences, a
//     softmax over the vocabulary at every step, unrolled over 32 or 64
//     steps.
func Seed(name string) (*keras.Model, error) {
	switch name {
	case "fcn5":
		return fcn(3)
	case "fcn8":
		return fcn(6)
	case "alexnet":
		return alexNet()
	case "resnet50":
		return applications.ResNet50(applications.Options{})
	case "lstm32":
		return lstmLanguageModel(32)
	case "lstm64":
		return lstmLanguageModel(64)
	}
	return nil, fmt.Errorf("unknown network %q: use one of %v", name, SeedNames)
}

// fcn is a fully connected network of hidden sigmoid layers.
func fcn(hidden int) (*keras.Model, error) {
	ls := []layers.Layer{&layers.InputLayer{Shape: []int{FCNFeatures}}}
	for range hidden {
		ls = append(ls, &layers.Dense{Units: FCNHidden, Activation: "sigmoid"})
	}
	ls = append(ls, &layers.Dense{Units: FCNFeatures, Activation: "softmax"})
	return keras.NewSequential(ls...)
}

// alexNet is dlbench's AlexNet (alexnetbm.py), with a softmax output
// where dlbench's last layer also had a ReLU.
func alexNet() (*keras.Model, error) {
	conv := func(filters, size, stride int) *layers.Conv2D {
		return &layers.Conv2D{Filters: filters, KernelSize: [2]int{size, size}, Strides: [2]int{stride, stride}, Padding: "same", Activation: "relu"}
	}
	pool := func() *layers.MaxPooling2D {
		return &layers.MaxPooling2D{PoolSize: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same"}
	}
	return keras.NewSequential(
		&layers.InputLayer{Shape: []int{224, 224, 3}},
		conv(96, 11, 4), pool(),
		conv(256, 5, 1), pool(),
		conv(384, 3, 1), conv(384, 3, 1), conv(256, 3, 1), pool(),
		&layers.Flatten{},
		&layers.Dense{Units: 4096, Activation: "relu"},
		&layers.Dense{Units: 4096, Activation: "relu"},
		&layers.Dense{Units: ImageNetClasses, Activation: "softmax"},
	)
}

// lstmLanguageModel is dlbench's PTB language model (lstm.py) without
// dropout, over steps words.
func lstmLanguageModel(steps int) (*keras.Model, error) {
	return keras.NewSequential(
		&layers.InputLayer{Shape: []int{steps}},
		&layers.Embedding{InputDim: LSTMVocabulary, OutputDim: LSTMHidden},
		&layers.LSTM{Units: LSTMHidden, ReturnSequences: true},
		&layers.LSTM{Units: LSTMHidden, ReturnSequences: true},
		&layers.Dense{Units: LSTMVocabulary, Activation: "softmax"},
	)
}
