package applications

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strconv"

	"github.com/kerasgo/kerasgo/keras/utils"
)

// weightsBase is where keras.applications downloads its weight files
// from (the tests point it at a local server): the networks' files name
// their path under it, most in tfApplications, EfficientNet's in
// kerasApplications.
var weightsBase = "https://storage.googleapis.com/"

// The two folders of weightsBase that keras.applications downloads from.
const (
	tfApplications    = "tensorflow/keras-applications/"
	kerasApplications = "keras-applications/"
)

// imagenetWeights names a network's ImageNet weight files under
// weightsBase, with and without the top, and their md5 hashes as Keras
// checks them ("" where Keras checks none).
type imagenetWeights struct {
	network          string // Keras's constructor, for messages
	top, topHash     string
	notop, notopHash string
	// topName and notopName are the files' names in Keras's cache where
	// Keras gives them other names than their origin's (NASNet's
	// nasnet_mobile.h5 for NASNet-mobile.h5); "" is the origin's.
	topName, notopName string
}

// resnetWeights are keras.applications' resnet.py WEIGHTS_HASHES, by the
// name resNet gets.
var resnetWeights = map[string]imagenetWeights{
	"resnet50":    resnetFiles("ResNet50", "resnet50", "2cb95161c43110f7111970584f804107", "4d473c1dd8becc155b73f8504c6f6626"),
	"resnet101":   resnetFiles("ResNet101", "resnet101", "f1aeb4b969a6efcfb50fad2f0c20cfc5", "88cf7a10940856eca736dc7b7e228a21"),
	"resnet152":   resnetFiles("ResNet152", "resnet152", "100835be76be38e30d865e96f2aaae62", "ee4c566cf9a93f14d82f913c2dc6dd0c"),
	"resnet50v2":  resnetFiles("ResNet50V2", "resnet50v2", "3ef43a0b657b3be2300d5770ece849e0", "fac2f116257151a9d068a22e544a4917"),
	"resnet101v2": resnetFiles("ResNet101V2", "resnet101v2", "6343647c601c52e1368623803854d971", "c0ed64b8031c3730f411d2eb4eea35b5"),
	"resnet152v2": resnetFiles("ResNet152V2", "resnet152v2", "a49b44d1979771252814e80f8ec446f9", "ed17cf2e0169df9d443503ef94b23b33"),
}

func resnetFiles(network, name, topHash, notopHash string) imagenetWeights {
	return imagenetWeights{network: network,
		top: tfApplications + "resnet/" + name + "_weights_tf_dim_ordering_tf_kernels.h5", topHash: topHash,
		notop: tfApplications + "resnet/" + name + "_weights_tf_dim_ordering_tf_kernels_notop.h5", notopHash: notopHash}
}

// denseNetWeights are densenet.py's files.
var denseNetWeights = map[string]imagenetWeights{
	"densenet121": denseNetFiles("DenseNet121", "densenet121", "9d60b8095a5708f2dcce2bca79d332c7", "30ee3e1110167f948a6b9946edeeb738"),
	"densenet169": denseNetFiles("DenseNet169", "densenet169", "d699b8f76981ab1b30698df4c175e90b", "b8c4d4c20dd625c148057b9ff1c1176b"),
	"densenet201": denseNetFiles("DenseNet201", "densenet201", "1ceb130c1ea1b78c3bf6114dbdfd8807", "c13680b51ded0fb44dff2d8f86ac8bb1"),
}

func denseNetFiles(network, name, topHash, notopHash string) imagenetWeights {
	return imagenetWeights{network: network,
		top: tfApplications + "densenet/" + name + "_weights_tf_dim_ordering_tf_kernels.h5", topHash: topHash,
		notop: tfApplications + "densenet/" + name + "_weights_tf_dim_ordering_tf_kernels_notop.h5", notopHash: notopHash}
}

// vgg16Weights are vgg16.py's files.
var vgg16Weights = imagenetWeights{network: "VGG16",
	top: tfApplications + "vgg16/vgg16_weights_tf_dim_ordering_tf_kernels.h5", topHash: "64373286793e3c8b2b4e3219cbf3544b",
	notop: tfApplications + "vgg16/vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5", notopHash: "6d6bbae143d832006294945121d1f1fc"}

// vgg19Weights are vgg19.py's files.
var vgg19Weights = imagenetWeights{network: "VGG19",
	top: tfApplications + "vgg19/vgg19_weights_tf_dim_ordering_tf_kernels.h5", topHash: "cbe5617147190e668d6c5d5026f83318",
	notop: tfApplications + "vgg19/vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5", notopHash: "253f8cb515780f3b799900260a226db6"}

// mobileNetFiles are mobilenet.py's files for alpha and rows (Keras checks
// no hash for them).
func mobileNetFiles(alpha float64, rows int) imagenetWeights {
	base := tfApplications + "mobilenet/mobilenet_" + mobileNetAlphas[alpha] + "_" + strconv.Itoa(rows) + "_tf"
	return imagenetWeights{network: "MobileNet", top: base + ".h5", notop: base + "_no_top.h5"}
}

// mobileNetV2Alphas and mobileNetV2Sizes are the widths and image sizes
// Keras has MobileNetV2's ImageNet weights for.
var (
	mobileNetV2Alphas = []float64{0.35, 0.5, 0.75, 1.0, 1.3, 1.4}
	mobileNetV2Sizes  = []int{96, 128, 160, 192, 224}
)

// mobileNetV2Files are mobilenet_v2.py's files for alpha and rows (Keras
// checks no hash for them).
func mobileNetV2Files(alpha float64, rows int) imagenetWeights {
	a := strconv.FormatFloat(alpha, 'f', -1, 64)
	if alpha == float64(int(alpha)) {
		a += ".0" // Python's str(float(alpha))
	}
	base := tfApplications + "mobilenet_v2/mobilenet_v2_weights_tf_dim_ordering_tf_kernels_" + a + "_" + strconv.Itoa(rows)
	return imagenetWeights{network: "MobileNetV2", top: base + ".h5", notop: base + "_no_top.h5"}
}

// anyImageSize, as checkImagenet's sizes, takes images of any size
// (MobileNetV3's weights, which Keras loads for any size with a warning).
const anyImageSize = -1

// checkImagenet refuses what Keras refuses with weights="imagenet": a
// top for other than 1000 classes, or for another image size than the
// weights' (sizes, nil for 224), and images of other than 3 channels.
func (o Options) checkImagenet(shape []int, sizes []int) error {
	if sizes == nil {
		sizes = []int{224}
	}
	switch {
	case shape[2] != 3:
		return fmt.Errorf(`weights "imagenet" need images of 3 channels, got input shape %v`, shape)
	case o.ExcludeTop:
		return nil
	case o.classes() != 1000:
		return fmt.Errorf(`weights "imagenet" with the top classify into ImageNet's 1000 classes, got Classes %d: use ExcludeTop and a head of your own`, o.Classes)
	case slices.Contains(sizes, anyImageSize):
		return nil
	case shape[0] != shape[1] || !slices.Contains(sizes, shape[0]):
		return fmt.Errorf(`weights "imagenet" with the top need an input shape of %v, got %v: use ExcludeTop for other sizes`, squares(sizes), shape)
	}
	return nil
}

func squares(sizes []int) string {
	s := ""
	for i, n := range sizes {
		if i > 0 {
			s += " or "
		}
		s += fmt.Sprintf("(%d, %d, 3)", n, n)
	}
	return s
}

// imagenetPath returns the path of the network's ImageNet weight file in
// Keras's cache, downloading it from Keras's origin (checked against
// Keras's hash) when it is not there, as keras.applications does.
func (o Options) imagenetPath(w imagenetWeights) (string, error) {
	rel, hash, name := w.top, w.topHash, w.topName
	if o.ExcludeTop {
		rel, hash, name = w.notop, w.notopHash, w.notopName
	}
	if name == "" {
		name = path.Base(rel)
	}
	p, err := utils.GetFile(context.Background(), name, weightsBase+rel, utils.GetFileOptions{FileHash: hash, CacheSubdir: "models"})
	if err != nil {
		return "", fmt.Errorf(`weights "imagenet": %s is not in Keras's cache (%s) and could not be downloaded (%w): put it there, e.g. by running keras.applications.%s(weights="imagenet") once in Python, which downloads it to the same cache (KERAS_HOME moves it), or give the file's path as Weights`,
			name, path.Join(utils.CacheDir(""), "models"), err, w.network)
	}
	return p, nil
}
