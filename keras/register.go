package keras

import "github.com/kerasgo/kerasgo/keras/layers"

// RegisterLayer makes a layer class of your own loadable by LoadModel,
// like Keras's @keras.saving.register_keras_serializable: className is
// what the layer's ClassName returns, and factory builds the layer from
// the settings its GetConfig saved (read them through the Reader, which
// rejects settings nobody read). Register once, in an init function.
func RegisterLayer(className string, factory layers.Factory) error {
	return layers.Register(className, factory)
}
