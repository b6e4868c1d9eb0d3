package layers

import (
	"fmt"
	"slices"

	farm "github.com/dgryski/go-farm"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// HashedCrossing crosses two or more categorical features with the
// hashing trick, like keras.layers.HashedCrossing: each sample's values,
// one from each input, are hashed together into one of NumBins bins. The
// bins are Keras's, which crosses with TensorFlow's
// tf.sparse.cross_hashed: starting from its hash key 0xDECAFCAFFE, each
// feature in turn is folded in with FingerprintCat64, a string as its
// FarmHash64 Fingerprint and an integer as its own 64 bits; the result
// modulo NumBins is the bin.
//
// The inputs are strings or integers, all of one shape: (batch,) or
// (batch, 1). The output is the bins, of that shape ("int", the
// default), or their one-hot rows, (batch, NumBins) ("one_hot").
//
// It is a host layer (see HostLayer): it takes model inputs or other
// host layers' outputs, as Keras runs it in tf.data.
type HashedCrossing struct {
	NumBins    int
	OutputMode string // "int" (the default when empty) or "one_hot"
	Base
}

// ClassName returns "HashedCrossing".
func (*HashedCrossing) ClassName() string { return "HashedCrossing" }

func (l *HashedCrossing) mode() (string, error) {
	switch l.OutputMode {
	case "", "int":
		return "int", nil
	case "one_hot":
		return "one_hot", nil
	}
	return "", fmt.Errorf("OutputMode is %q: use int or one_hot", l.OutputMode)
}

// Build checks the settings and the inputs' shapes and gives the output
// shape.
func (l *HashedCrossing) Build(inputs []backend.Shape) (backend.Shape, error) {
	if len(inputs) < 2 {
		return nil, fmt.Errorf("takes at least two inputs to cross, received %d: call it on a list of features", len(inputs))
	}
	if l.NumBins <= 0 {
		return nil, fmt.Errorf("NumBins is %d: give a positive number of bins", l.NumBins)
	}
	mode, err := l.mode()
	if err != nil {
		return nil, err
	}
	first := inputs[0]
	if len(first) > 2 || (len(first) == 2 && first[1] != 1) {
		return nil, fmt.Errorf("input 0 has shape %v: every input must be (batch,) or (batch, 1), one value per sample", first)
	}
	for i, s := range inputs[1:] {
		if !slices.Equal(s, first) {
			return nil, fmt.Errorf("input %d has shape %v and input 0 %v: the inputs must have equal shapes", i+1, s, first)
		}
	}
	return encodedShape(first, mode, l.NumBins)
}

// Call is not used: the model runs the layer on the host (CallHost).
func (l *HashedCrossing) Call(*Context, []backend.Value) backend.Value { return hostCall(l) }

// OutputDType takes strings or integers and gives int64 bins or float32
// one-hot rows.
func (l *HashedCrossing) OutputDType(in []backend.DType) (backend.DType, error) {
	for i, d := range in {
		if d != backend.String && d != backend.Int32 && d != backend.Int64 {
			return 0, fmt.Errorf("input %d is %s: HashedCrossing crosses strings or integers", i, d)
		}
	}
	if mode, _ := l.mode(); mode == "int" {
		return backend.Int64, nil
	}
	return backend.Float32, nil
}

// crossHashKey is tf.sparse.cross_hashed's default hash key.
const crossHashKey = 0xDECAFCAFFE

// fingerprintCat64 is TensorFlow's FingerprintCat64: it folds the
// fingerprint fp2 into fp1.
func fingerprintCat64(fp1, fp2 uint64) uint64 {
	const mul = 0xc6a4a7935bd1e995
	shiftMix := func(v uint64) uint64 { return v ^ (v >> 47) }
	result := fp1 ^ mul
	result ^= shiftMix(fp2*mul) * mul
	result *= mul
	result = shiftMix(result) * mul
	return shiftMix(result)
}

// CallHost crosses a batch.
func (l *HashedCrossing) CallHost(in []backend.Array) (backend.Array, error) {
	mode, err := l.mode()
	if err != nil {
		return backend.Array{}, err
	}
	n := in[0].Len()
	for i, x := range in {
		if x.Len() != n {
			return backend.Array{}, fmt.Errorf("input %d has %d values and input 0 %d: the inputs must have equal shapes", i, x.Len(), n)
		}
		if x.Strings == nil && x.Ints == nil {
			return backend.Array{}, fmt.Errorf("input %d holds floats: HashedCrossing crosses strings or integers", i)
		}
	}
	ids := make([]int64, n)
	for s := range ids {
		h := uint64(crossHashKey)
		for _, x := range in {
			var f uint64
			if x.Strings != nil {
				f = farm.Fingerprint64([]byte(x.Strings[s]))
			} else {
				f = uint64(int64(x.Ints[s]))
			}
			h = fingerprintCat64(h, f)
		}
		ids[s] = int64(h % uint64(l.NumBins))
	}
	return encodeIndices(mode, ids, in[0].Shape, l.NumBins, nil)
}

// GetConfig returns Keras's config; the dtype is int64 for "int", as
// Keras sets it.
func (l *HashedCrossing) GetConfig() (serialization.Config, error) {
	mode, err := l.mode()
	if err != nil {
		return nil, err
	}
	dtype := ""
	if mode == "int" {
		dtype = "int64"
	}
	return serialization.Config{"num_bins": l.NumBins, "output_mode": mode, "sparse": false,
		"dtype": serialization.DTypePolicyNamed(dtype)}, nil
}

func init() {
	mustRegister("HashedCrossing", func(r *serialization.Reader) (Layer, error) {
		l := &HashedCrossing{NumBins: r.Int("num_bins", 0), OutputMode: r.String("output_mode", "int")}
		r.Expect("sparse", false, "kerasgo's outputs are dense")
		return l, nil
	})
	hostDTypes["HashedCrossing"] = true
}
