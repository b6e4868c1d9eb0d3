package ops_test

// Reasons shared by several ops.
const (
	integerOnly  = "integer-only: a kerasgo computation holds one float dtype (and int32 inputs)"
	dataShape    = "its result's shape depends on the values, which a compiled kerasgo step cannot have"
	complexDType = "complex tensors: kerasgo has no complex dtype"
	hostOnly     = "a host-side question about a value, not a tensor op: Go's types answer it"
)

// notDone lists each keras.ops name kerasgo does not implement, with the
// reason (docs/ops.md shows it).
var notDone = map[string]string{
	"bitwise_and": integerOnly, "bitwise_invert": integerOnly, "bitwise_left_shift": integerOnly,
	"bitwise_not": integerOnly, "bitwise_or": integerOnly, "bitwise_right_shift": integerOnly,
	"bitwise_xor": integerOnly, "left_shift": integerOnly, "right_shift": integerOnly, "gcd": integerOnly, "lcm": integerOnly,
	"nextafter": "needs the bits of a float, which the engines' op sets do not expose",
	"unique":    dataShape, "nonzero": dataShape,
	"view_as_complex": complexDType, "view_as_real": complexDType, "polar": complexDType,
	"view":      "reinterprets the bits of a tensor as another dtype, which kerasgo's one-float-dtype computations cannot",
	"is_tensor": hostOnly, "dtype": hostOnly, "convert_to_numpy": "reading values out is Function.Run's job (keras.Model.NewFunction)",
	"eig": "the general eigenproblem has complex eigenvalues and vectors, and kerasgo has no complex dtype (eigh covers symmetric matrices)",
}

// partly lists, for implemented ops, the arguments or modes not done yet
// (docs/ops.md shows them beside the op).
var partly = map[string]string{
	"ctc_decode":      "strategy=\"beam_search\" (greedy only)",
	"custom_gradient": "one output (Keras allows a nested structure); the gradient function takes only upstream",
	"while_loop":      "a loop without maximum_iterations (a Go loop unrolled while the step is built needs a bound)",
}
