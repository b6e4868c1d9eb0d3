// Package export writes a model's inference graph for other runtimes:
// ONNX, as Keras's model.export(format="onnx") does. Most users call
// [github.com/kerasgo/kerasgo/keras.Model.Export]; this package is the
// writer underneath.
//
// The exporter is an engine that runs nothing: it implements the
// backend's op contract ([backend.Ops]) by writing each op as ONNX
// nodes, so every layer written over Builder ops exports with no
// exporter code of its own, and a new layer exports as soon as it is
// written. The model is traced twice, with two batch sizes, so that the
// graph's batch dimension is free.
//
// Functions here are safe for concurrent use: each export has its own
// state.
package export
