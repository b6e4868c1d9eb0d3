package applications

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/utils"
)

// classIndexOrigin and classIndexHash are where Keras's
// decode_predictions downloads ImageNet's class index from, and its md5.
var (
	classIndexOrigin = "https://storage.googleapis.com/download.tensorflow.org/data/imagenet_class_index.json"
	classIndexHash   = "c2c37ea517e94d9795004a39431a14cb"
)

// classIndex is ImageNet's class index once read: [wnid, description]
// by class number.
var classIndex struct {
	sync.Mutex
	entries map[int][2]string
}

// Prediction is one of DecodePredictions' guesses.
type Prediction struct {
	ClassID     string  // ImageNet's WordNet id, "n02504458"
	Description string  // "African_elephant"
	Score       float32 // the model's output for the class
}

// DecodePredictions returns each row's top guesses among ImageNet's 1000
// classes, best first, like Keras's decode_predictions (top 5 when top is
// 0). preds is (samples, 1000), an ImageNet classifier's output. The
// class index is read from Keras's cache (models/imagenet_class_index.json,
// where Keras keeps it too), or downloaded from Keras's origin into it
// and checked against Keras's hash, once per process. Safe for
// concurrent use.
func DecodePredictions(ctx context.Context, preds keras.Array, top int) ([][]Prediction, error) {
	if len(preds.Shape) != 2 || preds.Shape[1] != 1000 || len(preds.Data) != preds.Shape[0]*1000 {
		return nil, fmt.Errorf("DecodePredictions expects a batch of predictions, an array of shape (samples, 1000), got %v", preds.Shape)
	}
	if top <= 0 {
		top = 5
	}
	top = min(top, 1000)
	index, err := loadClassIndex(ctx)
	if err != nil {
		return nil, err
	}
	out := make([][]Prediction, preds.Shape[0])
	for r := range out {
		row := preds.Data[r*1000 : (r+1)*1000]
		order := make([]int, 1000)
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(row[b], row[a]) })
		for _, c := range order[:top] {
			e := index[c]
			out[r] = append(out[r], Prediction{ClassID: e[0], Description: e[1], Score: row[c]})
		}
	}
	return out, nil
}

func loadClassIndex(ctx context.Context) (map[int][2]string, error) {
	classIndex.Lock()
	defer classIndex.Unlock()
	if classIndex.entries != nil {
		return classIndex.entries, nil
	}
	p, err := utils.GetFile(ctx, "imagenet_class_index.json", classIndexOrigin, utils.GetFileOptions{FileHash: classIndexHash, CacheSubdir: "models"})
	if err != nil {
		return nil, fmt.Errorf("DecodePredictions: ImageNet's class index is not in Keras's cache and could not be downloaded (%w): run keras.applications.imagenet_utils.decode_predictions once in Python, which downloads it to the same cache", err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("DecodePredictions: %w", err)
	}
	var raw map[string][2]string
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("DecodePredictions: %s: %w", p, err)
	}
	entries := map[int][2]string{}
	for k, v := range raw {
		i, err := strconv.Atoi(k)
		if err != nil || i < 0 || i >= 1000 {
			return nil, fmt.Errorf("DecodePredictions: %s: class %q is not a number from 0 to 999", p, k)
		}
		entries[i] = v
	}
	if len(entries) != 1000 {
		return nil, fmt.Errorf("DecodePredictions: %s holds %d classes, not ImageNet's 1000", p, len(entries))
	}
	classIndex.entries = entries
	return entries, nil
}

// The modes of Keras's imagenet_utils.preprocess_input.
const (
	caffeMode = "caffe" // RGB to BGR, then ImageNet's mean pixel subtracted
	tfMode    = "tf"    // scaled to [-1, 1]
	torchMode = "torch" // scaled to [0, 1], then normalized by ImageNet's mean and deviation
)

// preprocessInput is Keras's imagenet_utils.preprocess_input for images
// in channels-last layout (the last dimension the 3 colours, values 0 to
// 255), in a new array.
func preprocessInput(x keras.Array, mode, caller string) (keras.Array, error) {
	if len(x.Shape) == 0 || x.Shape[len(x.Shape)-1] != 3 || len(x.Data)%3 != 0 {
		return keras.Array{}, fmt.Errorf("%s: want images whose last dimension is the 3 colours (channels last), got shape %v", caller, x.Shape)
	}
	out := keras.Array{Shape: slices.Clone(x.Shape), Data: make([]float32, len(x.Data))}
	switch mode {
	case tfMode:
		for i, v := range x.Data {
			out.Data[i] = v/127.5 - 1
		}
	case torchMode:
		mean := [3]float32{0.485, 0.456, 0.406}
		std := [3]float32{0.229, 0.224, 0.225}
		for i, v := range x.Data {
			c := i % 3
			out.Data[i] = (v/255 - mean[c]) / std[c]
		}
	case caffeMode:
		mean := [3]float32{103.939, 116.779, 123.68} // B, G, R
		for i := 0; i < len(x.Data); i += 3 {
			for c := range 3 {
				out.Data[i+c] = x.Data[i+2-c] - mean[c]
			}
		}
	}
	return out, nil
}

// ResNetPreprocessInput prepares images (0 to 255, RGB, channels last)
// for ResNet50, ResNet101 and ResNet152, as Keras's
// keras.applications.resnet.preprocess_input: to BGR, and each channel
// centred on ImageNet's mean, not scaled.
func ResNetPreprocessInput(x keras.Array) (keras.Array, error) {
	return preprocessInput(x, caffeMode, "ResNetPreprocessInput")
}

// VGG16PreprocessInput prepares images for VGG16, as Keras's
// keras.applications.vgg16.preprocess_input (the same as ResNet's).
func VGG16PreprocessInput(x keras.Array) (keras.Array, error) {
	return preprocessInput(x, caffeMode, "VGG16PreprocessInput")
}

// VGG19PreprocessInput prepares images for VGG19, as Keras's
// keras.applications.vgg19.preprocess_input (the same as VGG16's).
func VGG19PreprocessInput(x keras.Array) (keras.Array, error) {
	return preprocessInput(x, caffeMode, "VGG19PreprocessInput")
}

// DenseNetPreprocessInput prepares images (0 to 255, RGB) for DenseNet121,
// DenseNet169 and DenseNet201, as Keras's densenet.preprocess_input:
// scaled to [0, 1], then each channel normalized by ImageNet's mean and
// standard deviation.
func DenseNetPreprocessInput(x keras.Array) (keras.Array, error) {
	return preprocessInput(x, torchMode, "DenseNetPreprocessInput")
}

// ResNetV2PreprocessInput prepares images (0 to 255) for ResNet50V2,
// ResNet101V2 and ResNet152V2, as Keras's resnet_v2.preprocess_input:
// scaled to [-1, 1].
func ResNetV2PreprocessInput(x keras.Array) (keras.Array, error) {
	return preprocessInput(x, tfMode, "ResNetV2PreprocessInput")
}

// XceptionPreprocessInput prepares images (0 to 255) for Xception, as
// Keras's xception.preprocess_input: scaled to [-1, 1].
func XceptionPreprocessInput(x keras.Array) (keras.Array, error) {
	return preprocessInput(x, tfMode, "XceptionPreprocessInput")
}

// InceptionV3PreprocessInput prepares images (0 to 255) for InceptionV3,
// as Keras's inception_v3.preprocess_input: scaled to [-1, 1].
func InceptionV3PreprocessInput(x keras.Array) (keras.Array, error) {
	return preprocessInput(x, tfMode, "InceptionV3PreprocessInput")
}

// InceptionResNetV2PreprocessInput prepares images (0 to 255) for
// InceptionResNetV2, as Keras's inception_resnet_v2.preprocess_input:
// scaled to [-1, 1].
func InceptionResNetV2PreprocessInput(x keras.Array) (keras.Array, error) {
	return preprocessInput(x, tfMode, "InceptionResNetV2PreprocessInput")
}

// NASNetPreprocessInput prepares images (0 to 255) for NASNetMobile and
// NASNetLarge, as Keras's nasnet.preprocess_input: scaled to [-1, 1].
func NASNetPreprocessInput(x keras.Array) (keras.Array, error) {
	return preprocessInput(x, tfMode, "NASNetPreprocessInput")
}

// MobileNetPreprocessInput prepares images (0 to 255) for MobileNet, as
// Keras's mobilenet.preprocess_input: scaled to [-1, 1].
func MobileNetPreprocessInput(x keras.Array) (keras.Array, error) {
	return preprocessInput(x, tfMode, "MobileNetPreprocessInput")
}

// EfficientNetPreprocessInput is Keras's efficientnet.preprocess_input,
// which returns the images as they are (x itself, not a copy):
// EfficientNet's models scale and normalize pixels in [0, 255] in their
// own layers.
func EfficientNetPreprocessInput(x keras.Array) (keras.Array, error) { return x, nil }

// EfficientNetV2PreprocessInput is Keras's
// efficientnet_v2.preprocess_input, which returns the images as they are
// (x itself): EfficientNetV2's models scale pixels in [0, 255] in their
// own layers, unless built with ExcludePreprocessing.
func EfficientNetV2PreprocessInput(x keras.Array) (keras.Array, error) { return x, nil }

// MobileNetV3PreprocessInput is Keras's mobilenet_v3.preprocess_input,
// which returns the images as they are (x itself): MobileNetV3's models
// scale pixels in [0, 255] in their own Rescaling layer, unless built
// with ExcludePreprocessing.
func MobileNetV3PreprocessInput(x keras.Array) (keras.Array, error) { return x, nil }

// ConvNeXtPreprocessInput is Keras's convnext.preprocess_input, which
// returns the images as they are (x itself): ConvNeXt's models normalize
// pixels in [0, 255] in their own Normalization layer, unless built with
// ExcludePreprocessing.
func ConvNeXtPreprocessInput(x keras.Array) (keras.Array, error) { return x, nil }

// MobileNetV2PreprocessInput prepares images (0 to 255) for MobileNetV2,
// as Keras's mobilenet_v2.preprocess_input: scaled to [-1, 1].
func MobileNetV2PreprocessInput(x keras.Array) (keras.Array, error) {
	return preprocessInput(x, tfMode, "MobileNetV2PreprocessInput")
}
