// Package constraints holds Keras's weight constraints
// (keras.constraints): MaxNorm, MinMaxNorm, NonNeg and UnitNorm. A
// constraint projects a weight back into an allowed set after each
// optimizer update.
//
// Give one to a layer's weight (Dense's KernelConstraint,
// BiasConstraint, ...): every training step applies it to the weight's
// new value right after the optimizer's update, as Keras's
// optimizer.apply does (variable.assign(variable.constraint(variable))).
// A weight's initial value and values given with SetWeights are not
// constrained, as in Keras.
//
// Norms are taken over Axis (Keras's axis, default 0: for a Dense kernel
// of shape (inputs, units), the weights into each unit); negative axes
// count from the end. Zero values mean Keras's defaults: MaxNorm{} has
// MaxValue 2, MinMaxNorm{} has MaxValue 1 and Rate 1.
//
// Constraints are values without state: safe for concurrent use.
package constraints
