// Package serialization holds Keras 3's serialization schema, shared by
// every piece that saves its settings in a model's config.json: layers,
// optimizers, losses, metrics and initializers.
//
// A Keras object is serialized as
//
//	{"module": "keras.layers", "class_name": "Dense", "config": {...}, "registered_name": null}
//
// (keras/src/saving/serialization_lib.py). [Config] is the "config" part,
// with Keras's snake_case keys; [Reader] reads one strictly: a setting
// kerasgo does not implement is an error naming it unless it holds
// Keras's default, so a loaded model never computes something other than
// what was saved.
package serialization
