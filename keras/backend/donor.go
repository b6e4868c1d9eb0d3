package backend

// Donor is an optional capability of an [Executable]: a Run that may
// write its results into the memory of inputs the caller gives up (buffer
// donation, as JAX's donate_argnums; PyTorch's optimizers update the
// parameters in place). A training step that donates its weights and
// optimizer slots keeps one copy of them alive instead of two.
//
// The rules an engine keeps:
//   - it writes into a donated input only where an op is the last one of
//     the Run to read that input, and only after the Func's last Grad;
//   - when the loss that Grad differentiated is not finite it writes into
//     none, so a caller that discards a step with a NaN loss still has the
//     inputs it had (Fit keeps the weights from before such a batch);
//   - it may decline to donate for any reason (the first Run of a program,
//     memory it cannot prove is the input's alone), and then the Run is
//     Run.
//
// After RunDonating returns, a donated input's values are undefined
// unless the loss was not finite: the caller must not read it, and still
// releases it. If the Run fails, a donated input may have been partly
// written.
type Donor interface {
	RunDonating(inputs []Tensor, donated []bool) ([]Tensor, error)
}

// Donates reports whether exe can donate its inputs' memory (Donor),
// looking through the wrappers of Open's guard.
func Donates(exe Executable) bool {
	if g, ok := exe.(guardedExecutable); ok {
		exe = g.Executable
	}
	_, ok := exe.(Donor)
	return ok
}
