package layers

import (
	"fmt"
	"math"
	"strconv"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// IntegerLookup maps integers to indices in a vocabulary, like
// keras.layers.IntegerLookup: StringLookup for integer categories (ids,
// codes). Unknown values go to OOV indices, by value modulo
// NumOOVIndices (OOVMethod "floormod", Keras's default) or by FarmHash64
// ("farmhash").
//
// It is a host layer (see HostLayer): it takes an integer model input
// (layers.IntInput) or another host layer's integers.
type IntegerLookup struct {
	MaxTokens     int // the vocabulary's cap with the special tokens; 0 for none
	NumOOVIndices int // 0 means Keras's default 1 (see NoOOVIndices)
	NoOOVIndices  bool
	Mask          bool  // reserve index 0 for MaskToken (Keras's mask_token not None)
	MaskToken     int64 // usually 0
	// OOVToken is the value Invert gives for an OOV index; nil means
	// Keras's -1.
	OOVToken       *int64
	OutputMode     string // "int" (the default), "one_hot", "multi_hot", "count" or "tf_idf"
	PadToMaxTokens bool
	Invert         bool
	Vocabulary     []int64 // nil to adapt one
	IDFWeights     []float64
	OOVMethod      string  // "floormod" (the default) or "farmhash"
	Salt           []int64 // with "farmhash": hash with SipHash keyed by these
	Base

	state lookupState[int64]
}

// ClassName returns "IntegerLookup".
func (*IntegerLookup) ClassName() string { return "IntegerLookup" }

func (l *IntegerLookup) spec() (*lookupSpec[int64], error) {
	mode, err := lookupMode(l.OutputMode)
	if err != nil {
		return nil, err
	}
	oov := int64(-1)
	if l.OOVToken != nil {
		oov = *l.OOVToken
	}
	s := &lookupSpec[int64]{maxTokens: l.MaxTokens, numOOV: oovIndices(l.NumOOVIndices, l.NoOOVIndices),
		mask: l.Mask, maskToken: l.MaskToken, oovToken: oov, mode: mode, padToMax: l.PadToMaxTokens,
		invert: l.Invert, farmhash: l.OOVMethod == "farmhash"}
	if err := checkOOVMethod(l.OOVMethod); err != nil {
		return nil, err
	}
	if l.Salt != nil && !s.farmhash {
		return nil, fmt.Errorf("a Salt needs OOVMethod farmhash")
	}
	if s.salt, err = resolveSalt(l.Salt); err != nil {
		return nil, err
	}
	if err := s.check(l.IDFWeights); err != nil {
		return nil, err
	}
	return s, nil
}

// Build checks the settings, reads a given vocabulary, and gives the
// output shape.
func (l *IntegerLookup) Build(inputs []backend.Shape) (backend.Shape, error) {
	s, err := l.spec()
	return l.state.build(inputs, s, err, l.Vocabulary, l.IDFWeights)
}

// Call is not used: the model runs the layer on the host (CallHost).
func (l *IntegerLookup) Call(*Context, []backend.Value) backend.Value { return hostCall(l) }

// OutputDType takes integers and gives int64 indices (or values with
// Invert) or float32 encodings.
func (l *IntegerLookup) OutputDType(in []backend.DType) (backend.DType, error) {
	if !in[0].IsInteger() {
		return 0, fmt.Errorf("it takes integers, not %s: give the model a layers.IntInput (StringLookup takes strings)", in[0])
	}
	mode, _ := lookupMode(l.OutputMode)
	if mode == "int" {
		return backend.Int64, nil
	}
	return backend.Float32, nil
}

// CallHost looks a batch of integers up (or inverts indices).
func (l *IntegerLookup) CallHost(in []backend.Array) (backend.Array, error) {
	s, err := l.spec()
	return l.state.callHost(s, err, in[0])
}

// GetVocabulary returns the vocabulary with its special tokens first, so
// that a term's position is its index (Keras's get_vocabulary()); nil
// before the layer has one.
func (l *IntegerLookup) GetVocabulary() []int64 {
	s, err := l.spec()
	return l.state.vocabulary(s, err, l.Vocabulary, l.IDFWeights)
}

// VocabularySize returns the vocabulary's size with the special tokens.
func (l *IntegerLookup) VocabularySize() int { return len(l.GetVocabulary()) }

// StartAdapt begins learning the vocabulary from integers (whole-number
// floats are accepted, as Keras casts them).
func (l *IntegerLookup) StartAdapt(backend.Shape) (Adaptation, error) {
	s, err := l.spec()
	if err != nil {
		return nil, err
	}
	return l.state.startAdapt(l, *s, l.Vocabulary != nil, func(t backend.Array) ([]int64, error) {
		switch {
		case t.Ints != nil:
			return int64s(t.Ints), nil
		case t.Strings != nil:
			return nil, fmt.Errorf("IntegerLookup %q adapts on integers, not strings", l.Name)
		}
		out := make([]int64, len(t.Data))
		for i, v := range t.Data {
			if v != float32(math.Trunc(float64(v))) {
				return nil, fmt.Errorf("IntegerLookup %q adapts on integers, but value %d is %v", l.Name, i, v)
			}
			out[i] = int64(v)
		}
		return out, nil
	})
}

// SaveAssets returns vocabulary.txt, unless the vocabulary is in the
// config.
func (l *IntegerLookup) SaveAssets() (map[string][]byte, error) {
	s, err := l.spec()
	return l.state.saveAssets(s, err, func(v int64) string { return strconv.FormatInt(v, 10) })
}

// LoadAssets reads the vocabulary.txt SaveAssets or Keras wrote.
func (l *IntegerLookup) LoadAssets(files map[string][]byte) error {
	s, err := l.spec()
	return l.state.loadAssets(s, err, l.Vocabulary != nil, files, parseIntTerms)
}

// SaveOwnVariables returns a tf_idf layer's weights, which Keras keeps
// in the weights file (idf_weights).
func (l *IntegerLookup) SaveOwnVariables() (map[string][]float32, error) {
	s, err := l.spec()
	return l.state.ownVariables(s, err)
}

// LoadOwnVariables takes a tf_idf layer's saved weights.
func (l *IntegerLookup) LoadOwnVariables(vars map[string][]float32) error {
	s, err := l.spec()
	return l.state.loadOwnVariables(s, err, vars)
}

// GetConfig returns Keras's config.
func (l *IntegerLookup) GetConfig() (serialization.Config, error) {
	s, err := l.spec()
	if err != nil {
		return nil, err
	}
	cfg := lookupConfig(&l.state, s, l.Vocabulary, l.IDFWeights, l.OOVMethod, l.Salt)
	cfg["vocabulary_dtype"] = "int64"
	return cfg, nil
}

func init() {
	mustRegister("IntegerLookup", func(r *serialization.Reader) (Layer, error) {
		l := &IntegerLookup{MaxTokens: r.Int("max_tokens", 0),
			OutputMode: r.String("output_mode", "int"), PadToMaxTokens: r.Bool("pad_to_max_tokens", false),
			Invert: r.Bool("invert", false), IDFWeights: r.Floats("idf_weights"),
			OOVMethod: r.String("oov_method", "floormod"), Salt: readSalt(r)}
		l.NumOOVIndices = r.Int("num_oov_indices", 1)
		l.NoOOVIndices = l.NumOOVIndices == 0
		if r.Has("mask_token") {
			l.Mask, l.MaskToken = true, int64(r.Int("mask_token", 0))
		} else {
			r.Ignore("mask_token")
		}
		oov := int64(r.Int("oov_token", -1))
		l.OOVToken = &oov
		if vs := r.Ints("vocabulary"); vs != nil {
			l.Vocabulary = make([]int64, len(vs))
			for i, v := range vs {
				l.Vocabulary[i] = int64(v)
			}
		}
		l.state.frozenSize = r.Int("vocabulary_size", 0)
		r.Expect("sparse", false, "kerasgo's outputs are dense")
		r.Expect("vocabulary_dtype", "int64", "Keras supports int64 only")
		return l, nil
	})
}
