// Package regularizers holds Keras's weight and activity regularizers
// (keras.regularizers): L1, L2, L1L2 and OrthogonalRegularizer. A
// regularizer turns a tensor into a scalar penalty that training adds to
// the loss it minimises.
//
// Give one to a layer's kernel, bias or other weight (Dense's
// KernelRegularizer, BiasRegularizer, ...) and the penalty of the
// weight's current value is added to the loss of every training and
// evaluation step, once per step, as Keras adds model.losses; give one to
// a layer's ActivityRegularizer (in its Base) and the penalty of the
// layer's output, divided by the batch size, is added for each call of
// the layer. Predict ignores them. Fit's and Evaluate's "loss" include
// the penalties, as Keras shows them.
//
// The zero value of each regularizer means Keras's default: L1{} and
// L2{} penalise with a factor of 0.01 (keras.regularizers.L1()),
// OrthogonalRegularizer{} with 0.01 in "rows" mode; L1L2{} is zero, as
// Keras's L1L2() is.
//
// Regularizers are values without state: safe for concurrent use.
package regularizers
