package models

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// Names lists the models New knows.
var Names = []string{"mlp", "cnn", "resnet"}

// New returns a fresh, uncompiled model for 28x28x1 images and 10 classes:
// "mlp" is Flatten, Dense 512 relu, Dense 512 relu, Dense 10 softmax;
// "cnn" is the classic Keras MNIST convnet; "resnet" is a small residual
// network (see ResNet).
func New(name string) (*keras.Model, error) {
	switch name {
	case "mlp":
		return keras.NewSequential(
			&layers.InputLayer{Shape: []int{28, 28, 1}},
			&layers.Flatten{},
			&layers.Dense{Units: 512, Activation: "relu"},
			&layers.Dense{Units: 512, Activation: "relu"},
			&layers.Dense{Units: 10, Activation: "softmax"},
		)
	case "cnn":
		return keras.NewSequential(
			&layers.InputLayer{Shape: []int{28, 28, 1}},
			&layers.Conv2D{Filters: 32, KernelSize: [2]int{3, 3}, Activation: "relu"},
			&layers.Conv2D{Filters: 64, KernelSize: [2]int{3, 3}, Activation: "relu"},
			&layers.MaxPooling2D{PoolSize: [2]int{2, 2}},
			&layers.Dropout{Rate: 0.25},
			&layers.Flatten{},
			&layers.Dense{Units: 128, Activation: "relu"},
			&layers.Dropout{Rate: 0.5},
			&layers.Dense{Units: 10, Activation: "softmax"},
		)
	case "resnet":
		return ResNet()
	}
	return nil, fmt.Errorf("unknown model %q: use mlp, cnn or resnet", name)
}

// ResNet is a small residual network for 28x28x1 images, in the style of
// Keras's ResNet examples: a Conv2D + BatchNormalization + ReLU stem of 32
// filters and 2x2 max pooling, a residual block, a strided convolution to
// 64 filters, another residual block, global average pooling and a
// softmax classifier.
func ResNet() (*keras.Model, error) {
	convBN := func(x *layers.KerasTensor, filters, stride int) *layers.KerasTensor {
		x = layers.Apply(&layers.Conv2D{Filters: filters, KernelSize: [2]int{3, 3}, Strides: [2]int{stride, stride}, Padding: "same", NoBias: true}, x)
		return layers.Apply(&layers.BatchNormalization{}, x)
	}
	relu := func(x *layers.KerasTensor) *layers.KerasTensor {
		return layers.Apply(&layers.Activation{Fn: "relu"}, x)
	}
	block := func(x *layers.KerasTensor, filters int) *layers.KerasTensor {
		y := relu(convBN(x, filters, 1))
		y = convBN(y, filters, 1)
		return relu(layers.Apply(&layers.Add{}, x, y))
	}
	in := layers.Input(28, 28, 1)
	x := relu(convBN(in, 32, 1))
	x = layers.Apply(&layers.MaxPooling2D{PoolSize: [2]int{2, 2}}, x)
	x = block(x, 32)
	x = relu(convBN(x, 64, 2))
	x = block(x, 64)
	x = layers.Apply(&layers.GlobalAveragePooling2D{}, x)
	out := layers.Apply(&layers.Dense{Units: 10, Activation: "softmax"}, x)
	return keras.NewModel(in, out)
}
