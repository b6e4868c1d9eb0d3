package applications

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// Options are the arguments the keras.applications constructors share.
// Their zero values are Keras's defaults, except where the package doc
// says otherwise.
type Options struct {
	// ExcludeTop leaves out the classifier at the top of the network
	// (Keras's include_top=False), for feature extraction and transfer
	// learning.
	ExcludeTop bool
	// Weights is "imagenet" for Keras's ImageNet weights, or the path of a
	// weights file to load for the same architecture: a .weights.h5 that
	// Keras 3's save_weights or kerasgo's SaveWeights wrote, or a file in
	// Keras's legacy HDF5 layout (.h5), such as those keras.applications
	// downloads (with ExcludeTop, the "_notop" one); empty for random
	// initialization (Keras's weights=None). "imagenet" takes the file
	// from Keras's cache ($KERAS_HOME/models, else ~/.keras/models), where
	// Keras also keeps it, or downloads it from Keras's origin into that
	// cache and checks Keras's hash, as keras.applications does.
	Weights string
	// InputShape is (rows, cols, channels); default (224, 224, 3), for
	// Xception (299, 299, 3). Rows and cols must be at least 32 (Xception
	// 71), as in Keras.
	InputShape []int
	// Pooling, with ExcludeTop, reduces the last feature map: "" keeps
	// it (a 4-D output), "avg" averages it and "max" takes its maximum
	// over the rows and columns (a 2-D output).
	Pooling string
	// Classes is the number of classes of the top classifier; default
	// 1000.
	Classes int
	// ClassifierActivation is the top classifier's activation; default
	// "softmax"; "linear" returns logits (Keras's
	// classifier_activation=None).
	ClassifierActivation string
	// Name is the model's name; default Keras's ("resnet50", "vgg16",
	// ...).
	Name string
}

// defaultSize and minSize are the default and the smallest number of rows
// and columns of most networks (Keras's default_size and min_size).
const (
	defaultSize = 224
	minSize     = 32
)

// inputShape checks and returns the input shape, Keras's
// obtain_input_shape for channels_last data with a static shape.
func (o Options) inputShape() ([]int, error) { return o.inputShapeFor(defaultSize, minSize) }

// imageShape is inputShapeFor, and with Weights "imagenet" also
// checkImagenet for the image sizes the weights exist for (nil: 224).
func (o Options) imageShape(defaultSize, minSize int, imagenetSizes []int) ([]int, error) {
	shape, err := o.inputShapeFor(defaultSize, minSize)
	if err == nil && o.Weights == "imagenet" {
		err = o.checkImagenet(shape, imagenetSizes)
	}
	return shape, err
}

// classifier is Keras's classification block of most networks: with
// ExcludeTop the pooling Options asks for (named avgName or maxName, ""
// for Keras's automatic name), else a global average pooling named
// avg_pool and the dense predictions layer.
func (o Options) classifier(x *layers.KerasTensor, avgName, maxName string) *layers.KerasTensor {
	if o.ExcludeTop {
		return o.pool(x, avgName, maxName)
	}
	x = layers.Apply(layers.Named("avg_pool", &layers.GlobalAveragePooling2D{}), x)
	return layers.Apply(layers.Named("predictions", &layers.Dense{Units: o.classes(), Activation: o.classifierActivation()}), x)
}

// inputShapeFor is inputShape for a network of another default and
// smallest image size (Xception: 299 and 71).
func (o Options) inputShapeFor(defaultSize, minSize int) ([]int, error) {
	shape := o.InputShape
	if shape == nil {
		shape = []int{defaultSize, defaultSize, 3}
	}
	if len(shape) != 3 {
		return nil, fmt.Errorf("input shape must be (rows, cols, channels), got %v", shape)
	}
	if shape[0] < minSize || shape[1] < minSize {
		return nil, fmt.Errorf("input size must be at least %dx%d, got input shape %v", minSize, minSize, shape)
	}
	if shape[2] <= 0 {
		return nil, fmt.Errorf("input shape %v has no channels", shape)
	}
	if o.ExcludeTop {
		switch o.Pooling {
		case "", "avg", "max":
		default:
			return nil, fmt.Errorf(`unknown pooling %q: use "" (the 4-D feature map), "avg" or "max"`, o.Pooling)
		}
	} else if o.Pooling != "" {
		return nil, fmt.Errorf("pooling %q applies only without the top (ExcludeTop: true); the top classifier pools already", o.Pooling)
	}
	if o.Classes < 0 {
		return nil, fmt.Errorf("classes must be positive, got %d", o.Classes)
	}
	return shape, nil
}

// classes returns the number of classes, 1000 by default.
func (o Options) classes() int {
	if o.Classes == 0 {
		return 1000
	}
	return o.Classes
}

// classifierActivation returns the top's activation, softmax by default.
func (o Options) classifierActivation() string {
	if o.ClassifierActivation == "" {
		return "softmax"
	}
	return o.ClassifierActivation
}

// pool applies the pooling Options asks for without the top, with the
// layer name Keras gives it (empty for Keras's automatic name).
func (o Options) pool(x *layers.KerasTensor, avgName, maxName string) *layers.KerasTensor {
	switch o.Pooling {
	case "avg":
		return layers.Apply(layers.Named(avgName, &layers.GlobalAveragePooling2D{}), x)
	case "max":
		return layers.Apply(layers.Named(maxName, &layers.GlobalMaxPooling2D{}), x)
	}
	return x
}

// model makes the functional model from in to out, names it and loads
// the weights: the file Weights names, or with "imagenet" the network's
// ImageNet file w from Keras's cache or origin.
func (o Options) model(in, out *layers.KerasTensor, name string, w imagenetWeights) (*keras.Model, error) {
	m, err := keras.NewModel(in, out)
	if err != nil {
		return nil, err
	}
	m.Name = name
	if o.Name != "" {
		m.Name = o.Name
	}
	file := o.Weights
	if file == "imagenet" {
		if file, err = o.imagenetPath(w); err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
	}
	if file != "" {
		if err := m.LoadWeights(file); err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
	}
	return m, nil
}
