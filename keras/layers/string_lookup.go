package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// StringLookup maps strings to indices in a vocabulary, like
// keras.layers.StringLookup: a term to its index, an unknown string to an
// OOV index, output as the indices ("int", the default) or encoded
// ("one_hot", "multi_hot", "count", "tf_idf"). The vocabulary is given
// (Vocabulary) or learned from data with keras.Adapt: the MaxTokens most
// frequent terms. With Invert it maps indices back to strings.
//
// It is a host layer (see HostLayer): it takes a layers.StringInput (or
// another host layer's strings) and gives the engine int32 indices or
// float32 encodings. An adapted vocabulary is saved as Keras saves it, in
// the .keras file's assets/.
type StringLookup struct {
	MaxTokens     int // the vocabulary's cap with the special tokens; 0 for none (Keras's None)
	NumOOVIndices int // OOV indices; 0 means Keras's default 1 (see NoOOVIndices)
	// NoOOVIndices is Keras's num_oov_indices=0: an unknown string is an
	// error.
	NoOOVIndices bool
	// Mask reserves index 0 for MaskToken (Keras's mask_token, None
	// unless set); in an encoded output mode the mask token is dropped.
	Mask      bool
	MaskToken string
	OOVToken  string // the OOV term Invert gives; "" means Keras's "[UNK]"
	// OutputMode is "int" (the default when empty), "one_hot",
	// "multi_hot", "count" or "tf_idf".
	OutputMode     string
	PadToMaxTokens bool // encoded outputs have MaxTokens values, not the vocabulary's size
	Invert         bool // indices to strings
	// Vocabulary is the given vocabulary, optionally starting with the
	// special tokens; nil to adapt one. It is saved in the config.
	Vocabulary []string
	IDFWeights []float64 // tf_idf's weights, one per Vocabulary term
	// OOVMethod is Keras's oov_method ("floormod" or "farmhash"): strings
	// always hash with FarmHash64.
	OOVMethod string
	Salt      []int64 // with several OOV indices, hash with SipHash keyed by these (one or two values)
	Base

	state lookupState[string]
}

// ClassName returns "StringLookup".
func (*StringLookup) ClassName() string { return "StringLookup" }

func (l *StringLookup) spec() (*lookupSpec[string], error) {
	mode, err := lookupMode(l.OutputMode)
	if err != nil {
		return nil, err
	}
	s := &lookupSpec[string]{maxTokens: l.MaxTokens, numOOV: oovIndices(l.NumOOVIndices, l.NoOOVIndices),
		mask: l.Mask, maskToken: l.MaskToken, oovToken: l.OOVToken, mode: mode, padToMax: l.PadToMaxTokens, invert: l.Invert}
	if s.oovToken == "" {
		s.oovToken = "[UNK]"
	}
	if s.salt, err = resolveSalt(l.Salt); err != nil {
		return nil, err
	}
	if err := checkOOVMethod(l.OOVMethod); err != nil {
		return nil, err
	}
	if err := s.check(l.IDFWeights); err != nil {
		return nil, err
	}
	return s, nil
}

// oovIndices resolves NumOOVIndices and NoOOVIndices.
func oovIndices(n int, none bool) int {
	switch {
	case none:
		return 0
	case n == 0:
		return 1
	}
	return n
}

func checkOOVMethod(m string) error {
	switch m {
	case "", "floormod", "farmhash":
		return nil
	}
	return fmt.Errorf("unknown OOVMethod %q: use floormod or farmhash", m)
}

// Build checks the settings, reads a given vocabulary, and gives the
// output shape: the input's for "int", else (batch, depth).
func (l *StringLookup) Build(inputs []backend.Shape) (backend.Shape, error) {
	s, err := l.spec()
	return l.state.build(inputs, s, err, l.Vocabulary, l.IDFWeights)
}

// Call is not used: the model runs the layer on the host (CallHost).
func (l *StringLookup) Call(*Context, []backend.Value) backend.Value { return hostCall(l) }

// OutputDType takes strings (ints with Invert) and gives int64 indices,
// float32 encodings, or strings with Invert.
func (l *StringLookup) OutputDType(in []backend.DType) (backend.DType, error) {
	if l.Invert {
		if !in[0].IsInteger() {
			return 0, fmt.Errorf("with Invert it takes integer indices, not %s", in[0])
		}
		return backend.String, nil
	}
	if in[0] != backend.String {
		return 0, fmt.Errorf("it takes strings, not %s: use IntegerLookup for integers, or give the model a layers.StringInput", in[0])
	}
	mode, _ := lookupMode(l.OutputMode)
	if mode == "int" {
		return backend.Int64, nil
	}
	return backend.Float32, nil
}

// CallHost looks a batch of strings up (or inverts indices).
func (l *StringLookup) CallHost(in []backend.Array) (backend.Array, error) {
	s, err := l.spec()
	return l.state.callHost(s, err, in[0])
}

// GetVocabulary returns the vocabulary with its special tokens first (the
// mask token, then the OOV tokens), so that a term's position is its
// index: Keras's get_vocabulary(). It is nil before the layer has one.
func (l *StringLookup) GetVocabulary() []string {
	s, err := l.spec()
	return l.state.vocabulary(s, err, l.Vocabulary, l.IDFWeights)
}

// VocabularySize returns the vocabulary's size with the special tokens
// (Keras's vocabulary_size()), 0 before the layer has one.
func (l *StringLookup) VocabularySize() int { return len(l.GetVocabulary()) }

// StartAdapt begins learning the vocabulary from strings.
func (l *StringLookup) StartAdapt(backend.Shape) (Adaptation, error) {
	s, err := l.spec()
	if err != nil {
		return nil, err
	}
	return l.state.startAdapt(l, *s, l.Vocabulary != nil, func(t backend.Array) ([]string, error) {
		if t.Strings == nil {
			return nil, fmt.Errorf("StringLookup %q adapts on strings, not %s", l.Name, t.DType())
		}
		return t.Strings, nil
	})
}

// SaveAssets returns vocabulary.txt, as Keras writes it, unless the
// vocabulary is in the config.
func (l *StringLookup) SaveAssets() (map[string][]byte, error) {
	s, err := l.spec()
	return l.state.saveAssets(s, err, identity)
}

// LoadAssets reads the vocabulary.txt SaveAssets or Keras wrote.
func (l *StringLookup) LoadAssets(files map[string][]byte) error {
	s, err := l.spec()
	return l.state.loadAssets(s, err, l.Vocabulary != nil, files, stringTerms)
}

func identity(s string) string { return s }

// SaveOwnVariables returns a tf_idf layer's weights, which Keras keeps
// in the weights file (idf_weights).
func (l *StringLookup) SaveOwnVariables() (map[string][]float32, error) {
	s, err := l.spec()
	return l.state.ownVariables(s, err)
}

// LoadOwnVariables takes a tf_idf layer's saved weights.
func (l *StringLookup) LoadOwnVariables(vars map[string][]float32) error {
	s, err := l.spec()
	return l.state.loadOwnVariables(s, err, vars)
}

// GetConfig returns Keras's config.
func (l *StringLookup) GetConfig() (serialization.Config, error) {
	s, err := l.spec()
	if err != nil {
		return nil, err
	}
	cfg := lookupConfig(&l.state, s, l.Vocabulary, l.IDFWeights, l.OOVMethod, l.Salt)
	cfg["encoding"] = "utf-8"
	return cfg, nil
}

func init() {
	mustRegister("StringLookup", func(r *serialization.Reader) (Layer, error) {
		l := &StringLookup{MaxTokens: r.Int("max_tokens", 0), OOVToken: r.String("oov_token", "[UNK]"),
			OutputMode: r.String("output_mode", "int"), PadToMaxTokens: r.Bool("pad_to_max_tokens", false),
			Invert: r.Bool("invert", false), IDFWeights: r.Floats("idf_weights"),
			OOVMethod: r.String("oov_method", "floormod"), Salt: readSalt(r)}
		l.NumOOVIndices = r.Int("num_oov_indices", 1)
		l.NoOOVIndices = l.NumOOVIndices == 0
		if r.Has("mask_token") {
			l.Mask, l.MaskToken = true, r.String("mask_token", "")
		} else {
			r.Ignore("mask_token")
		}
		l.Vocabulary = readStrings(r, "vocabulary")
		l.state.frozenSize = r.Int("vocabulary_size", 0)
		r.Expect("sparse", false, "kerasgo's outputs are dense")
		r.Expect("encoding", "utf-8", "kerasgo reads text as UTF-8")
		return l, nil
	})
}

// readStrings reads a list of strings (nil when absent or null).
func readStrings(r *serialization.Reader, key string) []string {
	v, ok := r.Value(key)
	if !ok {
		return nil
	}
	list, isList := v.([]any)
	if !isList {
		r.Fail(key, "want a list of strings, got %v (a vocabulary file outside the model is not read: give the terms)", v)
		return nil
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, isStr := e.(string)
		if !isStr {
			r.Fail(key, "want strings, got %v", e)
			return nil
		}
		out[i] = s
	}
	return out
}
