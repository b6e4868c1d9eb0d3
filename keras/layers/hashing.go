package layers

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Hashing hashes values into NumBins bins, like keras.layers.Hashing:
// TensorFlow's FarmHash64 Fingerprint of each value's string form
// (integers in decimal, floats cast to integers first) modulo NumBins, or
// with a Salt its SipHash-2-4, so that the bins equal Keras's. With a
// MaskValue, bin 0 is the mask's and the others hash into 1..NumBins-1.
// The output is the bins ("int", the default) or encoded ("one_hot",
// "multi_hot", "count").
//
// It is a host layer (see HostLayer): it takes a model input of strings
// or numbers, or another host layer's output.
type Hashing struct {
	NumBins int
	// MaskValue is the value that goes to bin 0 (Keras's mask_value, None
	// unless set): a string for string inputs, a number otherwise.
	MaskValue  any
	Salt       []int64 // one integer for both SipHash keys, or two; nil for FarmHash64
	OutputMode string  // "int" (the default when empty), "one_hot", "multi_hot" or "count"
	Base
}

// ClassName returns "Hashing".
func (*Hashing) ClassName() string { return "Hashing" }

func (l *Hashing) mode() (string, error) {
	switch l.OutputMode {
	case "":
		return "int", nil
	case "int", "one_hot", "multi_hot", "count":
		return l.OutputMode, nil
	}
	return "", fmt.Errorf("unknown output mode %q: use int, one_hot, multi_hot or count", l.OutputMode)
}

// Build checks the settings and gives the output shape.
func (l *Hashing) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if l.NumBins <= 0 {
		return nil, fmt.Errorf("NumBins is %d: give a positive number of bins", l.NumBins)
	}
	mode, err := l.mode()
	if err != nil {
		return nil, err
	}
	if _, err := resolveSalt(l.Salt); err != nil {
		return nil, err
	}
	switch l.MaskValue.(type) {
	case nil, string, int, int64, float64:
	default:
		return nil, fmt.Errorf("MaskValue is a %T: give a string or a number", l.MaskValue)
	}
	return encodedShape(in, mode, l.NumBins)
}

// Call is not used: the model runs the layer on the host (CallHost).
func (l *Hashing) Call(*Context, []backend.Value) backend.Value { return hostCall(l) }

// OutputDType takes strings or numbers and gives int64 bins or float32
// encodings.
func (l *Hashing) OutputDType(in []backend.DType) (backend.DType, error) {
	if _, isString := l.MaskValue.(string); isString && in[0] != backend.String {
		return 0, fmt.Errorf("MaskValue is a string, but the input is %s", in[0])
	}
	if mode, _ := l.mode(); mode == "int" {
		return backend.Int64, nil
	}
	return backend.Float32, nil
}

// CallHost hashes a batch.
func (l *Hashing) CallHost(in []backend.Array) (backend.Array, error) {
	mode, err := l.mode()
	if err != nil {
		return backend.Array{}, err
	}
	key, err := resolveSalt(l.Salt)
	if err != nil {
		return backend.Array{}, err
	}
	x := in[0]
	keys := hashKeys(x)
	bins := l.NumBins
	masked := l.MaskValue != nil && bins > 1
	if masked {
		bins--
	}
	ids := make([]int64, len(keys))
	for i, k := range keys {
		if masked && isMaskValue(x, i, l.MaskValue) {
			ids[i] = 0
			continue
		}
		ids[i] = hashBucket(k, bins, key)
		if masked {
			ids[i]++
		}
	}
	shape := slices.Clone(x.Shape)
	if mode == "one_hot" && len(shape) > 0 && shape[len(shape)-1] == 1 {
		shape = shape[:len(shape)-1]
	}
	return encodeIndices(mode, ids, shape, l.NumBins, nil)
}

// hashKeys returns the strings Keras hashes: the strings, or the
// numbers' decimal forms (floats truncated to integers first).
func hashKeys(t backend.Array) []string {
	if t.Strings != nil {
		return t.Strings
	}
	out := make([]string, t.Len())
	for i := range out {
		if t.Ints != nil {
			out[i] = strconv.FormatInt(int64(t.Ints[i]), 10)
		} else {
			out[i] = strconv.FormatInt(int64(t.Data[i]), 10)
		}
	}
	return out
}

// isMaskValue reports whether value i of t equals mask, compared before
// hashing as Keras compares (a float 0.5 is not a mask value 0).
func isMaskValue(t backend.Array, i int, mask any) bool {
	var m float64
	switch x := mask.(type) {
	case string:
		return t.Strings != nil && t.Strings[i] == x
	case int:
		m = float64(x)
	case int64:
		m = float64(x)
	case float64:
		m = x
	}
	switch {
	case t.Ints != nil:
		return float64(t.Ints[i]) == m
	case t.Data != nil:
		return float64(t.Data[i]) == m
	}
	return false
}

// GetConfig returns Keras's config; the dtype is int64 for "int", as
// Keras sets it.
func (l *Hashing) GetConfig() (serialization.Config, error) {
	mode, err := l.mode()
	if err != nil {
		return nil, err
	}
	var salt any
	if s, err := resolveSalt(l.Salt); err == nil && s != nil {
		salt = []int64{int64(s[0]), int64(s[1])}
	}
	dtype := ""
	if mode == "int" {
		dtype = "int64"
	}
	return serialization.Config{"num_bins": l.NumBins, "salt": salt, "mask_value": l.MaskValue,
		"output_mode": mode, "sparse": false, "dtype": serialization.DTypePolicyNamed(dtype)}, nil
}

func init() {
	mustRegister("Hashing", func(r *serialization.Reader) (Layer, error) {
		l := &Hashing{NumBins: r.Int("num_bins", 0), Salt: readSalt(r), OutputMode: r.String("output_mode", "int")}
		if v, ok := r.Value("mask_value"); ok {
			l.MaskValue = v
		}
		r.Expect("sparse", false, "kerasgo's outputs are dense")
		return l, nil
	})
	hostDTypes["Hashing"] = true
}
