// Package layers holds Keras's layers, written once against the backend
// contract so that they run on every engine.
//
// A layer is configured with a struct literal whose zero fields take Keras's
// defaults:
//
//	&layers.Conv2D{Filters: 32, KernelSize: [2]int{3, 3}, Activation: "relu"}
//	&layers.Dense{Units: 10, Activation: "softmax"}
//
// Layers are combined by keras.NewSequential, or functionally with
// [Input] and [Apply]:
//
//	x := layers.Input(784)
//	h := layers.Apply(&layers.Dense{Units: 64, Activation: "relu"}, x)
//	y := layers.Apply(&layers.Dense{Units: 10}, h)
//	model, err := keras.NewModel(x, y)
//
// Shapes are checked when a layer is applied, before any engine sees the
// model, so a shape error reads the same on every engine and names the
// layer, the shape it received and the shape it expected.
//
// A layer of your own embeds [Base] and adds ClassName, Build and Call
// (docs/custom-layers.md); one that holds layers in its fields has them
// tracked, built and saved as Keras's attributes are ([Sublayers]); one
// that wraps a single layer embeds [Wrapper]; one whose calls take Keras
// arguments that change from call to call (ReversibleEmbedding's
// reverse) implements [PerCallArguments] and is applied with
// [ApplyWithArguments].
package layers
