package models

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// Names lists the models New knows.
var Names = []string{"mlp", "cnn"}

// New returns a fresh, uncompiled model for 28x28x1 images and 10 classes:
// "mlp" is Flatten, Dense 512 relu, Dense 512 relu, Dense 10 softmax;
// "cnn" is the classic Keras MNIST convnet.
func New(name string) (*keras.Model, error) {
	switch name {
	case "mlp":
		return keras.NewSequential(
			layers.Input(28, 28, 1),
			&layers.Flatten{},
			&layers.Dense{Units: 512, Activation: "relu"},
			&layers.Dense{Units: 512, Activation: "relu"},
			&layers.Dense{Units: 10, Activation: "softmax"},
		)
	case "cnn":
		return keras.NewSequential(
			layers.Input(28, 28, 1),
			&layers.Conv2D{Filters: 32, KernelSize: [2]int{3, 3}, Activation: "relu"},
			&layers.Conv2D{Filters: 64, KernelSize: [2]int{3, 3}, Activation: "relu"},
			&layers.MaxPooling2D{PoolSize: [2]int{2, 2}},
			&layers.Dropout{Rate: 0.25},
			&layers.Flatten{},
			&layers.Dense{Units: 128, Activation: "relu"},
			&layers.Dropout{Rate: 0.5},
			&layers.Dense{Units: 10, Activation: "softmax"},
		)
	}
	return nil, fmt.Errorf("unknown model %q: use mlp or cnn", name)
}
