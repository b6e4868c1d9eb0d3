package ops

// logEpsilon is CTC's log of an impossible path, Keras's log_epsilon
// (a large negative number rather than -Inf, so that sums stay finite).
const logEpsilon = -1e5

// CtcLoss is the connectionist temporal classification loss, Keras's
// ops.ctc_loss: for each sequence, the negative log-probability of its
// label sequence target (batch, max_label_length) given the logits
// output (batch, max_time, num_classes), summed over every alignment.
// targetLength and outputLength (batch,) say how many labels and time
// steps of each sequence count; maskIndex is the blank class (Keras's
// default is 0). Labels and lengths are whole numbers (int32, or floats
// holding them). The result has shape (batch,).
//
// It is Keras's JAX computation (optax's ctc_loss_with_forward_probs):
// the forward variables of blank and label states, updated in log space
// once per time step, a padded step keeping its predecessor's. The time
// loop is a Go loop, unrolled into the computation.
func CtcLoss(b Builder, target, output, targetLength, outputLength Value, maskIndex int) Value {
	const op = "CtcLoss"
	if missing(b, op, []string{"target", "output", "target_length", "output_length"}, target, output, targetLength, outputLength) {
		return b.Fail(nil, b.Err())
	}
	ts, os := target.Shape(), output.Shape()
	if len(os) != 3 {
		return failf(b, op, os, "output %v must be (batch, max_time, num_classes) logits", os)
	}
	if len(ts) != 2 || ts[0] != os[0] {
		return failf(b, op, ts, "target %v must be (batch, max_label_length) with the output's batch %d", ts, os[0])
	}
	batch, steps, classes, labels := os[0], os[1], os[2], ts[1]
	for _, l := range []struct {
		name string
		v    Value
	}{{"target_length", targetLength}, {"output_length", outputLength}} {
		if s := l.v.Shape(); len(s) != 1 || s[0] != batch {
			return failf(b, op, s, "%s %v must be (batch,) = (%d,)", l.name, s, batch)
		}
	}
	if maskIndex < 0 || maskIndex >= classes {
		return failf(b, op, os, "mask_index %d is not a class of the output's %d", maskIndex, classes)
	}
	asFloat := func(v Value) Value {
		if v.DType() != b.DType() {
			v = b.Cast(v)
		}
		return b.StopGradient(v)
	}
	target, targetLength, outputLength = asFloat(target), asFloat(targetLength), asFloat(outputLength)
	one := scalar(b, 1)

	// paddings(lengths, n)[i, j] is 1 where j ≥ lengths[i]: past the end.
	paddings := func(lengths Value, n int) Value {
		positions := b.Reshape(Arange(b, 0, float64(n), 1), Shape{1, n})
		return GreaterEqual(b, positions, b.Reshape(lengths, Shape{batch, 1}))
	}
	targetPad, outputPad := paddings(targetLength, labels), paddings(outputLength, steps)
	logprobs := LogSoftmax(b, output, -1)
	labelLengths := b.Sub(scalar(b, float64(labels)), b.Sum(targetPad, 1))

	// repeat[i, n] is 1 where label n equals label n+1 (0 for the last).
	repeat := b.Constant(make([]float64, batch), Shape{batch, 1})
	if labels > 1 {
		same := Equal(b, sliceAxis(b, target, 1, 0, labels-1), sliceAxis(b, target, 1, 1, labels-1))
		repeat = b.Concat(1, same, repeat)
	}
	phiScores := b.Reshape(sliceAxis(b, logprobs, 2, maskIndex, 1), Shape{batch, steps}) // blank
	emitScores := Matmul(b, logprobs, b.Transpose(OneHot(b, target, classes), 0, 2, 1))  // (batch, steps, labels)

	// addToPhi adds (in log space) added to phi's label states.
	addToPhi := func(phi, added Value) Value {
		return b.Concat(1, sliceAxis(b, phi, 1, 0, 1), Logaddexp(b, sliceAxis(b, phi, 1, 1, labels), added))
	}
	initPhi := make([]float64, batch*(labels+1))
	for i := range initPhi {
		if i%(labels+1) != 0 {
			initPhi[i] = logEpsilon
		}
	}
	initEmit := make([]float64, batch*labels)
	for i := range initEmit {
		initEmit[i] = logEpsilon
	}
	phi, emit := b.Constant(initPhi, Shape{batch, labels + 1}), b.Constant(initEmit, Shape{batch, labels})
	eps := scalar(b, logEpsilon)
	for t := range steps {
		emitScore := b.Reshape(sliceAxis(b, emitScores, 1, t, 1), Shape{batch, labels})
		phiScore := b.Reshape(sliceAxis(b, phiScores, 1, t, 1), Shape{batch, 1})
		pad := sliceAxis(b, outputPad, 1, t, 1) // (batch, 1)
		// emit-to-phi epsilon transition, except before a repeated label
		prevPhi := addToPhi(phi, b.Add(emit, b.Mul(repeat, eps)))
		nextEmit := Logaddexp(b, b.Add(sliceAxis(b, prevPhi, 1, 0, labels), emitScore), b.Add(emit, emitScore))
		nextPhi := b.Add(prevPhi, phiScore)
		// emit-to-phi through a blank, needed before a repeated label
		nextPhi = addToPhi(nextPhi, b.Add(b.Add(emit, phiScore), b.Mul(b.Sub(one, repeat), eps)))
		keep := b.Sub(one, pad)
		emit = b.Add(b.Mul(pad, emit), b.Mul(keep, nextEmit))
		phi = b.Add(b.Mul(pad, phi), b.Mul(keep, nextPhi))
	}
	last := addToPhi(phi, emit)
	return b.Neg(b.Sum(b.Mul(last, OneHot(b, labelLengths, labels+1)), 1))
}

// CtcStrategy is how CtcDecode searches: Keras's strategy argument.
type CtcStrategy string

// The CTC decoding strategies.
const (
	// CtcGreedy takes the most likely class at every step (the default).
	CtcGreedy CtcStrategy = "greedy"
	// CtcBeamSearch keeps the beam_width best prefixes; not implemented
	// yet: CtcDecode fails saying so.
	CtcBeamSearch CtcStrategy = "beam_search"
)

// CtcDecodeOptions are Keras's ctc_decode arguments beyond the inputs and
// their lengths. The zero value is Keras's default: greedy, repeats
// merged, class 0 the blank.
type CtcDecodeOptions struct {
	Strategy CtcStrategy // "" is CtcGreedy
	// NoMergeRepeated keeps a class repeated on consecutive steps as
	// several labels (Keras's merge_repeated=False).
	NoMergeRepeated bool
	MaskIndex       int // the blank class
}

// CtcDecode decodes the best label sequence from per-step class scores
// inputs (batch, max_time, num_classes), each sequence sequenceLengths
// (batch,) steps long: Keras's ops.ctc_decode. It returns the labels
// (1, batch, max_time), each row's labels first and -1 after them, and
// the scores (batch, 1): minus the sum of each step's best input.
//
// Only the greedy strategy is implemented; CtcBeamSearch is an error.
func CtcDecode(b Builder, inputs, sequenceLengths Value, o CtcDecodeOptions) (decoded, logProbabilities Value) {
	const op = "CtcDecode"
	fail := func() (Value, Value) { return b.Fail(nil, b.Err()), b.Fail(nil, b.Err()) }
	if missing(b, op, []string{"inputs", "sequence_lengths"}, inputs, sequenceLengths) {
		return fail()
	}
	s := inputs.Shape()
	if len(s) != 3 {
		failf(b, op, s, "inputs %v must be (batch, max_time, num_classes)", s)
		return fail()
	}
	batch, steps, classes := s[0], s[1], s[2]
	if ls := sequenceLengths.Shape(); len(ls) != 1 || ls[0] != batch {
		failf(b, op, ls, "sequence_lengths %v must be (batch,) = (%d,)", ls, batch)
		return fail()
	}
	switch o.Strategy {
	case "", CtcGreedy:
	case CtcBeamSearch:
		failf(b, op, s, "strategy %q is not implemented yet: use CtcGreedy", o.Strategy)
		return fail()
	default:
		failf(b, op, s, "unknown strategy %q: use CtcGreedy", o.Strategy)
		return fail()
	}
	if o.MaskIndex < 0 || o.MaskIndex >= classes {
		failf(b, op, s, "mask_index %d is not a class of the inputs' %d", o.MaskIndex, classes)
		return fail()
	}
	lengths := sequenceLengths
	if lengths.DType() != b.DType() {
		lengths = b.Cast(lengths)
	}
	x := b.StopGradient(inputs)
	positions := b.Reshape(Arange(b, 0, float64(steps), 1), Shape{1, steps})
	past := GreaterEqual(b, positions, b.Reshape(b.StopGradient(lengths), Shape{batch, 1})) // (batch, steps)
	mask := scalar(b, float64(o.MaskIndex))
	indices := Where(b, past, mask, Argmax(b, x, Axis(-1)))
	scores := Where(b, past, scalar(b, 0), Max(b, x, Axis(-1)))
	if !o.NoMergeRepeated && steps > 1 {
		repeat := b.Concat(1, b.Constant(make([]float64, batch), Shape{batch, 1}),
			Equal(b, sliceAxis(b, indices, 1, 1, steps-1), sliceAxis(b, indices, 1, 0, steps-1)))
		indices = Where(b, repeat, mask, indices)
	}
	// The labels that remain move to the front, in order: label t goes
	// to position (labels before it), the rest of the row is -1.
	valid := b.Sub(scalar(b, 1), Equal(b, indices, mask))
	at := b.Mul(b.Sub(Cumsum(b, valid, Axis(1)), scalar(b, 1)), valid)             // (batch, steps); 0 where not valid
	place := b.Mul(OneHot(b, at, steps), b.Reshape(valid, Shape{batch, steps, 1})) // (batch, from, to)
	moved := Matmul(b, b.Reshape(indices, Shape{batch, 1, steps}), place)          // (batch, 1, to)
	filled := Matmul(b, b.Reshape(valid, Shape{batch, 1, steps}), place)           // 1 where a label landed
	labels := b.Sub(moved, b.Sub(scalar(b, 1), filled))                            // -1 elsewhere
	return b.Reshape(labels, Shape{1, batch, steps}), b.Reshape(b.Neg(b.Sum(scores, 1)), Shape{batch, 1})
}
