// Package applications builds the networks of keras.applications with
// Keras's layer names, configuration and weight shapes, so that weights
// saved by Keras load into them and a model saved by either side reads the
// same in the other: ResNet50, ResNet101 and ResNet152 (keras.applications
// .resnet), ResNet50V2, ResNet101V2 and ResNet152V2 (resnet_v2), VGG16
// (vgg16) and MobileNetV2 (mobilenet_v2).
//
//	model, err := applications.ResNet50(applications.Options{})
//
// The options mirror Keras's arguments, with Keras's defaults for their
// zero values (the top classifier included, 1000 classes, softmax,
// 224x224x3 images). Where kerasgo differs:
//
//   - Weights defaults to random initialization (Keras's weights=None),
//     not "imagenet": kerasgo does not download. To use ImageNet's
//     weights, save them once with Keras (model.save_weights(
//     "resnet50.weights.h5")) and give that path as Weights.
//   - InputShape must be known: without the top, Keras's default input
//     is (None, None, 3), which kerasgo's convolutions cannot take yet;
//     kerasgo's default is (224, 224, 3) with or without the top.
//   - input_tensor is not an option: apply the returned model to a
//     tensor (layers.Apply(model, x)) instead.
//
// Each constructor returns a new, independent model; build them from
// as many goroutines as you like.
package applications
