package layers

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	named "github.com/kerasgo/kerasgo/internal/registry"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// TextVectorization turns raw text into token indices or token counts,
// like keras.layers.TextVectorization: each string is standardized
// (lower-cased and stripped of punctuation, by default), split into
// tokens (on whitespace, by default), optionally joined into n-grams, and
// looked up in a vocabulary learned with keras.Adapt (the MaxTokens most
// frequent tokens) or given. Index 0 is padding (the empty token) and 1
// is for out-of-vocabulary tokens.
//
// In the output mode "int" (the default) each string becomes its token
// indices, cut or padded with 0 to OutputSequenceLength (or, when it is
// 0, to the longest string of the batch); the other modes give one
// vector per string of the vocabulary's size ("multi_hot", "count",
// "tf_idf").
//
// It is a host layer (see HostLayer): it takes a layers.StringInput, so
// that a model saved with it predicts from raw strings. The standardizing
// and splitting are TensorFlow's, byte for byte: lower-casing changes
// ASCII letters only, punctuation is ASCII's (Python's
// string.punctuation), and whitespace is ASCII's.
type TextVectorization struct {
	MaxTokens int // the vocabulary's cap with the padding and OOV tokens; 0 for none
	// Standardize is "lower_and_strip_punctuation" (the default when
	// empty), "lower", "strip_punctuation", "none" (Keras's None), or the
	// name of a function given to RegisterTextStandardizer (Keras's
	// standardize callable).
	Standardize string
	// Split is "whitespace" (the default when empty), "character",
	// "none" (each string is one token), or the name of a function given
	// to RegisterTextSplitter.
	Split string
	// Ngrams lists the n-gram lengths to make from the tokens, e.g.
	// []int{1, 2} (Keras's ngrams=2); nil for the tokens alone.
	Ngrams               []int
	OutputMode           string // "int" (the default when empty), "multi_hot", "count" or "tf_idf"
	OutputSequenceLength int    // "int" only: the length of every output row; 0 pads to the batch's longest
	PadToMaxTokens       bool
	Vocabulary           []string // nil to adapt one
	IDFWeights           []float64
	Base

	state lookupState[string]
	// ngramsInt is the config's ngrams when Keras wrote one integer.
	ngramsInt int
}

// ClassName returns "TextVectorization".
func (*TextVectorization) ClassName() string { return "TextVectorization" }

func (l *TextVectorization) standardize() (string, error) {
	switch l.Standardize {
	case "":
		return "lower_and_strip_punctuation", nil
	case "lower_and_strip_punctuation", "lower", "strip_punctuation", "none":
		return l.Standardize, nil
	}
	if _, ok := textStandardizers.Lookup(l.Standardize); ok {
		return l.Standardize, nil
	}
	return "", fmt.Errorf("unknown Standardize %q: use lower_and_strip_punctuation, lower, strip_punctuation, none, or a function given to layers.RegisterTextStandardizer under that name", l.Standardize)
}

func (l *TextVectorization) split() (string, error) {
	switch l.Split {
	case "":
		return "whitespace", nil
	case "whitespace", "character", "none":
		return l.Split, nil
	}
	if _, ok := textSplitters.Lookup(l.Split); ok {
		return l.Split, nil
	}
	return "", fmt.Errorf("unknown Split %q: use whitespace, character, none, or a function given to layers.RegisterTextSplitter under that name", l.Split)
}

func (l *TextVectorization) spec() (*lookupSpec[string], error) {
	mode, err := lookupMode(l.OutputMode)
	if err != nil {
		return nil, err
	}
	if mode == "one_hot" {
		return nil, fmt.Errorf("the output mode one_hot is not for text (each string has several tokens): use multi_hot or count")
	}
	if _, err := l.standardize(); err != nil {
		return nil, err
	}
	if _, err := l.split(); err != nil {
		return nil, err
	}
	for _, n := range l.Ngrams {
		if n < 1 {
			return nil, fmt.Errorf("the Ngrams %v: every n-gram length must be at least 1", l.Ngrams)
		}
	}
	if l.OutputSequenceLength < 0 {
		return nil, fmt.Errorf("OutputSequenceLength is %d: give a positive length, or 0 for the batch's longest", l.OutputSequenceLength)
	}
	if l.OutputSequenceLength > 0 && mode != "int" {
		return nil, fmt.Errorf("OutputSequenceLength is for the output mode int only, not %s", mode)
	}
	s := &lookupSpec[string]{maxTokens: l.MaxTokens, numOOV: 1, mask: true, oovToken: "[UNK]", mode: mode, padToMax: l.PadToMaxTokens}
	if err := s.check(l.IDFWeights); err != nil {
		return nil, err
	}
	return s, nil
}

// Build checks the settings and the input, (batch,) or (batch, 1)
// strings, and gives the output shape.
func (l *TextVectorization) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	s, err := l.spec()
	if err != nil {
		return nil, err
	}
	split, _ := l.split()
	if split != "none" && len(in) > 1 && (len(in) > 2 || in[1] != 1) {
		return nil, fmt.Errorf("it splits strings into tokens, so it takes one string per sample, of shape (batch,) or (batch, 1), not %v", in)
	}
	if err := l.state.ensureVocab(s, l.Vocabulary, l.IDFWeights); err != nil {
		return nil, err
	}
	if s.mode == "int" {
		if l.OutputSequenceLength > 0 {
			return backend.Shape{in[0], l.OutputSequenceLength}, nil
		}
		return backend.Shape{in[0], -1}, nil
	}
	d, err := l.state.depth(s)
	if err != nil {
		return nil, err
	}
	return backend.Shape{in[0], d}, nil
}

// Call is not used: the model runs the layer on the host (CallHost).
func (l *TextVectorization) Call(*Context, []backend.Value) backend.Value { return hostCall(l) }

// OutputDType takes strings and gives int64 indices or float32 vectors.
func (l *TextVectorization) OutputDType(in []backend.DType) (backend.DType, error) {
	if in[0] != backend.String {
		return 0, fmt.Errorf("it takes strings, not %s: give the model a layers.StringInput", in[0])
	}
	if mode, _ := lookupMode(l.OutputMode); mode == "int" {
		return backend.Int64, nil
	}
	return backend.Float32, nil
}

// tokenRows standardizes and splits a batch of strings: the tokens of
// each sample, in order.
func (l *TextVectorization) tokenRows(t backend.Array) ([][]string, error) {
	if t.Strings == nil {
		return nil, fmt.Errorf("TextVectorization %q takes strings, not %s", l.Name, t.DType())
	}
	std, err := l.standardize()
	if err != nil {
		return nil, err
	}
	split, err := l.split()
	if err != nil {
		return nil, err
	}
	rows := 1
	if len(t.Shape) > 0 {
		rows = t.Shape[0]
	}
	per := 0
	if rows > 0 {
		per = len(t.Strings) / rows
	}
	ownStandardize, _ := textStandardizers.Lookup(std)
	ownSplit, _ := textSplitters.Lookup(split)
	out := make([][]string, rows)
	for r := range rows {
		texts := t.Strings[r*per : (r+1)*per]
		var tokens []string
		for _, text := range texts {
			if ownStandardize != nil {
				text = ownStandardize(text)
			} else {
				text = standardizeText(text, std)
			}
			switch {
			case ownSplit != nil:
				tokens = append(tokens, ownSplit(text)...)
			case split == "whitespace":
				tokens = append(tokens, strings.FieldsFunc(text, isASCIISpace)...)
			case split == "character":
				tokens = append(tokens, splitCharacters(text)...)
			default:
				tokens = append(tokens, text)
			}
		}
		out[r] = ngrams(tokens, l.Ngrams)
	}
	return out, nil
}

// standardizeText is TensorFlow's tf.strings.lower (ASCII letters only)
// and the regex_replace of Python's string.punctuation that Keras runs.
func standardizeText(s, mode string) string {
	if mode == "lower" || mode == "lower_and_strip_punctuation" {
		b := []byte(s)
		for i, c := range b {
			if 'A' <= c && c <= 'Z' {
				b[i] = c + 'a' - 'A'
			}
		}
		s = string(b)
	}
	if mode == "strip_punctuation" || mode == "lower_and_strip_punctuation" {
		s = strings.Map(func(r rune) rune {
			if r < utf8.RuneSelf && strings.ContainsRune(punctuation, r) {
				return -1
			}
			return r
		}, s)
	}
	return s
}

// punctuation is Python's string.punctuation, the class Keras strips.
const punctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// isASCIISpace is the whitespace tf.strings.split splits on.
func isASCIISpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}

// splitCharacters is tf.strings.unicode_split(s, "UTF-8"): one token per
// character, an invalid byte as U+FFFD.
func splitCharacters(s string) []string {
	out := make([]string, 0, len(s))
	for _, r := range s {
		out = append(out, string(r))
	}
	return out
}

// ngrams is tf.strings.ngrams(tokens, widths, separator=" "): for each
// width in order, every run of that many tokens joined by a space; a row
// shorter than a width gives none of it.
func ngrams(tokens []string, widths []int) []string {
	if widths == nil {
		return tokens
	}
	var out []string
	for _, w := range widths {
		for i := 0; i+w <= len(tokens); i++ {
			out = append(out, strings.Join(tokens[i:i+w], " "))
		}
	}
	return out
}

// CallHost vectorizes a batch of strings.
func (l *TextVectorization) CallHost(in []backend.Array) (backend.Array, error) {
	s, err := l.spec()
	if err != nil {
		return backend.Array{}, err
	}
	rows, err := l.tokenRows(in[0])
	if err != nil {
		return backend.Array{}, err
	}
	v, err := l.state.current()
	if err != nil {
		return backend.Array{}, err
	}
	var flat []string
	lens := make([]int, len(rows))
	for i, r := range rows {
		flat = append(flat, r...)
		lens[i] = len(r)
	}
	ids, err := v.lookup(s, flat, quoteKey[string])
	if err != nil {
		return backend.Array{}, err
	}
	if s.mode != "int" {
		d, err := l.state.depth(s)
		if err != nil {
			return backend.Array{}, err
		}
		return backend.Array{Shape: []int{len(rows), d}, Data: encodeRows(s.mode, ids, lens, d, v.idf)}, nil
	}
	width := l.OutputSequenceLength
	if width == 0 {
		for _, n := range lens {
			width = max(width, n)
		}
	}
	ints, err := int32IDs(ids)
	if err != nil {
		return backend.Array{}, err
	}
	out := make([]int32, len(rows)*width)
	at := 0
	for i, n := range lens {
		copy(out[i*width:(i+1)*width], ints[at:at+min(n, width)])
		at += n
	}
	return backend.Array{Shape: []int{len(rows), width}, Ints: out}, nil
}

// GetVocabulary returns the vocabulary with the padding token "" and the
// OOV token "[UNK]" first (Keras's get_vocabulary()); nil before the
// layer has one.
func (l *TextVectorization) GetVocabulary() []string {
	s, err := l.spec()
	return l.state.vocabulary(s, err, l.Vocabulary, l.IDFWeights)
}

// VocabularySize returns the vocabulary's size with the padding and OOV
// tokens.
func (l *TextVectorization) VocabularySize() int { return len(l.GetVocabulary()) }

// StartAdapt begins learning the vocabulary from raw strings.
func (l *TextVectorization) StartAdapt(backend.Shape) (Adaptation, error) {
	s, err := l.spec()
	if err != nil {
		return nil, err
	}
	ad, err := l.state.startAdapt(l, *s, l.Vocabulary != nil, nil)
	if err != nil {
		return nil, err
	}
	return &textAdaptation{l: l, a: ad.(*lookupAdaptation[string])}, nil
}

// textAdaptation counts the tokens of each string, each a document.
type textAdaptation struct {
	l *TextVectorization
	a *lookupAdaptation[string]
}

func (t *textAdaptation) Update(batch backend.Array) error {
	rows, err := t.l.tokenRows(batch)
	if err != nil {
		return err
	}
	for _, r := range rows {
		t.a.counts.addRow(r, t.a.spec.mode == "tf_idf")
	}
	return nil
}

func (t *textAdaptation) Finish() error { return t.a.Finish() }

// SaveAssets returns the vocabulary file Keras writes, twice, as Keras
// does: for the layer and for its inner StringLookup.
func (l *TextVectorization) SaveAssets() (map[string][]byte, error) {
	s, err := l.spec()
	return l.state.saveAssets(s, err, identity, "_lookup_layer/vocabulary.txt")
}

// LoadAssets reads the vocabulary file Keras or SaveAssets wrote.
func (l *TextVectorization) LoadAssets(files map[string][]byte) error {
	s, err := l.spec()
	return l.state.loadAssets(s, err, l.Vocabulary != nil, files, stringTerms, "_lookup_layer/vocabulary.txt")
}

// SaveOwnVariables returns a tf_idf layer's weights, which Keras keeps
// in the weights file (idf_weights).
func (l *TextVectorization) SaveOwnVariables() (map[string][]float32, error) {
	s, err := l.spec()
	return l.state.ownVariables(s, err, "_lookup_layer")
}

// LoadOwnVariables takes a tf_idf layer's saved weights.
func (l *TextVectorization) LoadOwnVariables(vars map[string][]float32) error {
	s, err := l.spec()
	return l.state.loadOwnVariables(s, err, vars)
}

// GetConfig returns Keras's config.
func (l *TextVectorization) GetConfig() (serialization.Config, error) {
	s, err := l.spec()
	if err != nil {
		return nil, err
	}
	cfg := lookupConfig(&l.state, s, l.Vocabulary, l.IDFWeights, "", nil)
	out := serialization.Config{}
	for _, k := range []string{"max_tokens", "output_mode", "pad_to_max_tokens", "sparse", "vocabulary", "idf_weights", "vocabulary_size"} {
		out[k] = cfg[k]
	}
	std, _ := l.standardize()
	split, _ := l.split()
	out["standardize"], out["split"] = textFunction(std, &textStandardizers), textFunction(split, &textSplitters)
	var ng any
	switch {
	case l.ngramsInt > 0 && slices.Equal(l.Ngrams, countTo(l.ngramsInt)):
		ng = l.ngramsInt
	case l.Ngrams != nil:
		ng = l.Ngrams
	}
	out["ngrams"] = ng
	out["output_sequence_length"] = nullIfZero(l.OutputSequenceLength)
	out["ragged"] = false
	out["encoding"] = "utf-8"
	return out, nil
}

// textFunction is how Keras writes a standardize or split setting: a
// built-in's name, null for "none", and a registered function as the
// function object Keras's serialize_keras_object writes for a function.
func textFunction[T any](name string, own *named.Registry[T]) any {
	if _, ok := own.Lookup(name); ok {
		return map[string]any{"module": "builtins", "class_name": "function", "config": name, "registered_name": "function"}
	}
	return noneIfNone(name)
}

func noneIfNone(s string) any {
	if s == "none" {
		return nil
	}
	return s
}

// countTo returns 1, 2, ..., n: Keras's ngrams=n.
func countTo(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

func init() {
	mustRegister("TextVectorization", func(r *serialization.Reader) (Layer, error) {
		l := &TextVectorization{MaxTokens: r.Int("max_tokens", 0), OutputMode: r.String("output_mode", "int"),
			OutputSequenceLength: r.Int("output_sequence_length", 0), PadToMaxTokens: r.Bool("pad_to_max_tokens", false),
			IDFWeights: r.Floats("idf_weights")}
		l.Standardize = noneOrString(r, "standardize", &textStandardizers, "RegisterTextStandardizer")
		l.Split = noneOrString(r, "split", &textSplitters, "RegisterTextSplitter")
		if v, ok := r.Value("ngrams"); ok {
			if n, isNum := v.(float64); isNum {
				l.ngramsInt = int(n)
				l.Ngrams = countTo(int(n))
			} else {
				l.Ngrams = r.Ints("ngrams")
			}
		}
		l.Vocabulary = readStrings(r, "vocabulary")
		l.state.frozenSize = r.Int("vocabulary_size", 0)
		r.Expect("sparse", false, "kerasgo's outputs are dense")
		r.Expect("ragged", false, "kerasgo pads the rows (OutputSequenceLength)")
		r.Expect("encoding", "utf-8", "kerasgo reads text as UTF-8")
		return l, nil
	})
}

// noneOrString reads a setting Keras writes as a name, null ("none") or
// a function object ({"class_name": "function", "config":
// "package>name"}), which must be registered (own) under its registered
// name or its bare name.
func noneOrString[T any](r *serialization.Reader, key string, own *named.Registry[T], register string) string {
	if r.IsNull(key) {
		r.Ignore(key)
		return "none"
	}
	if v, ok := r.Value(key); ok {
		if _, isStr := v.(string); !isStr {
			r.Ignore(key)
			fn, _ := v.(map[string]any)
			name, _ := fn["config"].(string)
			if fn["class_name"] != "function" || name == "" {
				r.Fail(key, "%v is neither a name nor a function: kerasgo reads Keras's built-in names and registered functions", v)
				return ""
			}
			bare := name[strings.LastIndex(name, ">")+1:]
			for _, n := range []string{name, bare} {
				if _, ok := own.Lookup(n); ok {
					return n
				}
			}
			r.Fail(key, "the function %q is not registered: give kerasgo's version of it to layers.%s(%q, f) before loading", name, register, bare)
			return ""
		}
	}
	return r.String(key, "")
}
