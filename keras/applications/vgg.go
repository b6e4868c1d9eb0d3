package applications

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// VGG16 returns the 16-layer network of Simonyan and Zisserman (2014), as
// keras.applications.VGG16 builds it: five blocks of 3x3 convolutions and
// max pooling, then two 4096-unit layers and the classifier (138,357,544
// parameters with the top, for 224x224x3 images). Its input is expected
// as Keras's vgg16.preprocess_input leaves it (BGR, centred, not scaled).
func VGG16(o Options) (*keras.Model, error) {
	return vgg(o, "vgg16", []vggBlock{{64, 2}, {128, 2}, {256, 3}, {512, 3}, {512, 3}}, vgg16Weights)
}

// VGG19 returns keras.applications.VGG19: VGG16 with four convolutions
// in each of the last three blocks (143,667,240 parameters with the top).
// Its input is expected as VGG19PreprocessInput leaves it.
func VGG19(o Options) (*keras.Model, error) {
	return vgg(o, "vgg19", []vggBlock{{64, 2}, {128, 2}, {256, 4}, {512, 4}, {512, 4}}, vgg19Weights)
}

// vggBlock is one block: its filters and number of convolutions.
type vggBlock struct{ filters, convs int }

// vgg is Keras's VGG16 and VGG19: the blocks, then the top or the pooling.
func vgg(o Options, name string, blocks []vggBlock, w imagenetWeights) (*keras.Model, error) {
	shape, err := o.imageShape(defaultSize, minSize, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	in := layers.Input(shape...)
	x := in
	for block, b := range blocks {
		for c := 1; c <= b.convs; c++ {
			x = layers.Apply(layers.Named(fmt.Sprintf("block%d_conv%d", block+1, c), &layers.Conv2D{
				Filters: b.filters, KernelSize: [2]int{3, 3}, Padding: "same", Activation: "relu",
			}), x)
		}
		x = layers.Apply(layers.Named(fmt.Sprintf("block%d_pool", block+1), &layers.MaxPooling2D{PoolSize: [2]int{2, 2}, Strides: [2]int{2, 2}}), x)
	}
	if o.ExcludeTop {
		x = o.pool(x, "", "")
	} else {
		x = layers.Apply(layers.Named("flatten", &layers.Flatten{}), x)
		x = layers.Apply(layers.Named("fc1", &layers.Dense{Units: 4096, Activation: "relu"}), x)
		x = layers.Apply(layers.Named("fc2", &layers.Dense{Units: 4096, Activation: "relu"}), x)
		x = layers.Apply(layers.Named("predictions", &layers.Dense{Units: o.classes(), Activation: o.classifierActivation()}), x)
	}
	return o.model(in, x, name, w)
}
