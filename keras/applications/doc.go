// Package applications builds the networks of keras.applications with
// Keras's layer names, configuration and weight shapes, so that weights
// saved by Keras load into them and a model saved by either side reads the
// same in the other: ResNet50, ResNet101 and ResNet152 (keras.applications
// .resnet), ResNet50V2, ResNet101V2 and ResNet152V2 (resnet_v2), VGG16
// and VGG19, DenseNet121, DenseNet169 and DenseNet201, MobileNet,
// MobileNetV2, MobileNetV3Small and MobileNetV3Large, Xception,
// InceptionV3, InceptionResNetV2, EfficientNetB0 to EfficientNetB7,
// EfficientNetV2B0 to B3, S, M and L, ConvNeXtTiny to ConvNeXtXLarge, and
// NASNetMobile and NASNetLarge: all 40 of Keras's. Each module's
// preprocess_input is a function here (ResNetPreprocessInput, ...), and
// DecodePredictions is imagenet_utils.decode_predictions.
//
//	model, err := applications.ResNet50(applications.Options{Weights: "imagenet"})
//
// The options mirror Keras's arguments, with Keras's defaults for their
// zero values (the top classifier included, 1000 classes, softmax,
// 224x224x3 images). Weights "imagenet" reads Keras's own weight file
// from Keras's cache ($KERAS_HOME/models, else ~/.keras/models), or
// downloads it from Keras's origin into that cache and checks Keras's
// hash. Where kerasgo differs:
//
//   - Weights defaults to random initialization (Keras's weights=None),
//     not "imagenet", so that no constructor touches the network unless
//     asked.
//   - InputShape must be known: without the top, Keras's default input
//     is (None, None, 3), which kerasgo's convolutions cannot take yet;
//     kerasgo's default is the network's image size with or without the
//     top.
//   - input_tensor is not an option: apply the returned model to a
//     tensor (layers.Apply(model, x)) instead.
//
// Each constructor returns a new, independent model; build them from
// as many goroutines as you like.
package applications
