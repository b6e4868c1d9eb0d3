package layers

import (
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// lookupState is the state of a lookup layer (StringLookup,
// IntegerLookup, TextVectorization's table): its vocabulary, swapped
// whole when the layer is given one or adapted, and the vocabulary size
// the layer's encoded outputs were built with.
type lookupState[K lookupKey] struct {
	vocab atomic.Pointer[lookupVocab[K]]
	// frozenSize is Keras's vocabulary_size: the size saved in the
	// config, which sizes an encoded output before the vocabulary file is
	// read; 0 when unknown.
	frozenSize int
	// idf holds a tf_idf layer's saved weights (LoadOwnVariables) until
	// its vocabulary file is read.
	idf []float32
}

// quoteKey writes a term for messages: a quoted string or an integer.
func quoteKey[K lookupKey](k K) string {
	switch v := any(k).(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case string:
		return strconv.Quote(v)
	}
	return fmt.Sprint(k)
}

// ensureVocab sets the layer's vocabulary from the terms it was given,
// once (Keras's vocabulary argument).
func (st *lookupState[K]) ensureVocab(s *lookupSpec[K], given []K, idf []float64) error {
	if v := st.vocab.Load(); given == nil || (v != nil && v.given) {
		return nil
	}
	v, err := newLookupVocab(s, given, idf, quoteKey[K])
	if err != nil {
		return err
	}
	v.given = true
	st.vocab.Store(v)
	st.frozenSize = v.size(s)
	return nil
}

// depth is the length of an encoded output: MaxTokens when padded, else
// the vocabulary's size (or the saved one before the vocabulary is read).
func (st *lookupState[K]) depth(s *lookupSpec[K]) (int, error) {
	if s.padToMax {
		return s.maxTokens, nil
	}
	if v := st.vocab.Load(); v != nil {
		return v.size(s), nil
	}
	if st.frozenSize > 0 {
		return st.frozenSize, nil
	}
	return 0, fmt.Errorf("the output mode %s needs the vocabulary's size: give the layer a Vocabulary, or adapt it (keras.Adapt) before applying it", s.mode)
}

// outputShape is the layer's output shape for input shape in.
func (st *lookupState[K]) outputShape(s *lookupSpec[K], in []int) ([]int, error) {
	if s.mode == "int" {
		return slices.Clone(in), nil
	}
	d, err := st.depth(s)
	if err != nil {
		return nil, err
	}
	return encodedShape(in, s.mode, d)
}

// current returns the vocabulary, or an error saying how to give one.
func (st *lookupState[K]) current() (*lookupVocab[K], error) {
	v := st.vocab.Load()
	if v == nil {
		return nil, fmt.Errorf("the layer has no vocabulary: give it one (Vocabulary) or adapt it with keras.Adapt")
	}
	return v, nil
}

// call looks keys (of shape in) up and encodes them.
func (st *lookupState[K]) call(s *lookupSpec[K], keys []K, in []int) (backend.Array, error) {
	v, err := st.current()
	if err != nil {
		return backend.Array{}, err
	}
	ids, err := v.lookup(s, keys, quoteKey[K])
	if err != nil {
		return backend.Array{}, err
	}
	if s.mode == "int" {
		return encodeIndices(s.mode, ids, in, 0, nil)
	}
	if _, err := encodedShape(in, s.mode, 0); err != nil {
		return backend.Array{}, err
	}
	d, err := st.depth(s)
	if err != nil {
		return backend.Array{}, err
	}
	return encodeIndices(s.mode, ids, in, d, v.idf)
}

// adopt makes v the vocabulary, refusing a size that would change an
// encoded output the layer was already built with (as Keras).
func (st *lookupState[K]) adopt(s *lookupSpec[K], v *lookupVocab[K], built bool) error {
	if built && s.mode != "int" && !s.padToMax {
		if old, _ := st.depth(s); old != v.size(s) {
			return fmt.Errorf("the adapted vocabulary has %d terms with the special tokens, but the layer's output was built for %d: adapt before applying the layer, or set PadToMaxTokens", v.size(s), old)
		}
	}
	st.vocab.Store(v)
	st.frozenSize = v.size(s)
	return nil
}

// lookupAdaptation is the Adapt of a lookup layer: term counts, then the
// vocabulary.
type lookupAdaptation[K lookupKey] struct {
	st     *lookupState[K]
	spec   lookupSpec[K]
	counts *lookupCounts[K]
	keys   func(backend.Array) ([]K, error) // a batch's terms
	built  bool
}

// Update counts a batch's terms, each sample a document.
func (a *lookupAdaptation[K]) Update(batch backend.Array) error {
	keys, err := a.keys(batch)
	if err != nil {
		return err
	}
	rows := 1
	if len(batch.Shape) > 0 {
		rows = batch.Shape[0]
	}
	per := 0
	if rows > 0 {
		per = len(keys) / rows
	}
	for r := range rows {
		a.counts.addRow(keys[r*per:(r+1)*per], a.spec.mode == "tf_idf")
	}
	return nil
}

// Finish makes the vocabulary from the counts.
func (a *lookupAdaptation[K]) Finish() error {
	v, err := a.counts.vocab(&a.spec)
	if err != nil {
		return err
	}
	return a.st.adopt(&a.spec, v, a.built)
}

// startAdapt begins an Adapt, which a layer given a vocabulary refuses.
func (st *lookupState[K]) startAdapt(l Layer, s lookupSpec[K], given bool, keys func(backend.Array) ([]K, error)) (Adaptation, error) {
	if given {
		return nil, fmt.Errorf("%s was given a Vocabulary, so it cannot be adapted: leave Vocabulary empty to learn one", Describe(l))
	}
	return &lookupAdaptation[K]{st: st, spec: s, counts: newLookupCounts[K](), keys: keys, built: len(l.Common().calls) > 0}, nil
}

// vocabularyFiles is the layer's assets: vocabulary.txt, its terms
// written by format, unless the vocabulary is in the config (given).
func (st *lookupState[K]) vocabularyFiles(s *lookupSpec[K], format func(K) string) map[string][]byte {
	v := st.vocab.Load()
	if v == nil || v.given {
		return nil
	}
	return map[string][]byte{"vocabulary.txt": vocabularyFile(v.terms(s), format)}
}

// loadVocabularyFile reads a vocabulary.txt Keras (or Save) wrote;
// idf keeps the weights of a tf_idf layer.
func (st *lookupState[K]) loadVocabularyFile(s *lookupSpec[K], data []byte, parse func([]string) ([]K, error)) error {
	terms, err := parse(vocabularyLines(data))
	if err != nil {
		return err
	}
	var idf []float64
	if s.mode == "tf_idf" {
		if st.idf == nil {
			return fmt.Errorf("a tf_idf lookup's vocabulary file needs its idf_weights, which the weights file does not hold")
		}
		idf = make([]float64, len(st.idf))
		for i, w := range st.idf {
			idf[i] = float64(w)
		}
	}
	v, err := newLookupVocab(s, terms, idf, quoteKey[K])
	if err != nil {
		return fmt.Errorf("vocabulary.txt: %w", err)
	}
	if st.frozenSize > 0 && v.size(s) != st.frozenSize && s.mode != "int" && !s.padToMax {
		return fmt.Errorf("vocabulary.txt has %d terms with the special tokens, but the config's vocabulary_size is %d (a vocabulary whose last term is the empty string loses it in the file, in Keras too): the file cannot be read back as it was saved", v.size(s), st.frozenSize)
	}
	st.vocab.Store(v)
	st.frozenSize = v.size(s)
	return nil
}

// lookupConfig is the config keys StringLookup and IntegerLookup share.
func lookupConfig[K lookupKey](st *lookupState[K], s *lookupSpec[K], vocabulary []K, idf []float64, oovMethod string, salt []int64) serialization.Config {
	var vocab, weights, size, saltv any
	if vocabulary != nil {
		vocab = vocabulary
	}
	if idf != nil {
		weights = idf
	}
	if v := st.vocab.Load(); v != nil {
		size = v.size(s)
	} else if st.frozenSize > 0 {
		size = st.frozenSize
	}
	if salt != nil {
		saltv = salt
	}
	var mask any
	if s.mask {
		mask = s.maskToken
	}
	if oovMethod == "" {
		oovMethod = "floormod"
	}
	return serialization.Config{
		"invert": s.invert, "max_tokens": nullIfZero(s.maxTokens), "num_oov_indices": s.numOOV,
		"oov_token": s.oovToken, "mask_token": mask, "output_mode": s.mode, "sparse": false,
		"pad_to_max_tokens": s.padToMax, "idf_weights": weights, "vocabulary": vocab,
		"vocabulary_size": size, "oov_method": oovMethod, "salt": saltv,
	}
}

// nullIfZero is Keras's None for an unset count.
func nullIfZero(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

// resolveSalt is Keras's salt: one integer for both SipHash keys, or two.
func resolveSalt(salt []int64) ([]uint64, error) {
	switch len(salt) {
	case 0:
		return nil, nil
	case 1:
		return []uint64{uint64(salt[0]), uint64(salt[0])}, nil
	case 2:
		return []uint64{uint64(salt[0]), uint64(salt[1])}, nil
	}
	return nil, fmt.Errorf("the Salt has %d values: give one integer or two", len(salt))
}

// readSalt reads Keras's salt: null, an integer or a list of two.
func readSalt(r *serialization.Reader) []int64 {
	v, ok := r.Value("salt")
	if !ok {
		return nil
	}
	switch x := v.(type) {
	case float64:
		return []int64{int64(x)}
	case []any:
		out := make([]int64, len(x))
		for i, e := range x {
			f, ok := e.(float64)
			if !ok {
				r.Fail("salt", "want integers, got %v", x)
				return nil
			}
			out[i] = int64(f)
		}
		return out
	}
	r.Fail("salt", "want an integer or a list of two, got %v", v)
	return nil
}

// vocabulary is a layer's GetVocabulary: the terms with the special
// tokens, or nil when the settings are wrong (err) or there is none yet.
func (st *lookupState[K]) vocabulary(s *lookupSpec[K], err error, given []K, idf []float64) []K {
	if err != nil || st.ensureVocab(s, given, idf) != nil {
		return nil
	}
	if v := st.vocab.Load(); v != nil {
		return v.terms(s)
	}
	return nil
}

// saveAssets is a layer's SaveAssets: vocabulary.txt with its terms
// written by format (and copies under the other names, as Keras writes
// TextVectorization's for its inner layer).
func (st *lookupState[K]) saveAssets(s *lookupSpec[K], err error, format func(K) string, copies ...string) (map[string][]byte, error) {
	if err != nil {
		return nil, err
	}
	files := st.vocabularyFiles(s, format)
	if f, ok := files["vocabulary.txt"]; ok {
		for _, c := range copies {
			files[c] = f
		}
	}
	return files, nil
}

// loadAssets is a layer's LoadAssets: the first of vocabulary.txt and
// the other names the files hold, parsed into terms; nothing for a layer
// given its vocabulary.
func (st *lookupState[K]) loadAssets(s *lookupSpec[K], err error, given bool, files map[string][]byte, parse func([]string) ([]K, error), others ...string) error {
	if given {
		return nil
	}
	if err != nil {
		return err
	}
	for _, name := range append([]string{"vocabulary.txt"}, others...) {
		if data, ok := files[name]; ok {
			return st.loadVocabularyFile(s, data, parse)
		}
	}
	return fmt.Errorf("the file has no vocabulary.txt for the layer")
}

// ownVariables is a lookup layer's SaveOwnVariables: a tf_idf layer's
// weights, one per output index, as Keras saves them, in the layer's
// vars/ and in those of its sub-layers' (TextVectorization's inner
// lookup).
func (st *lookupState[K]) ownVariables(s *lookupSpec[K], err error, sublayers ...string) (map[string][]float32, error) {
	if err != nil || s.mode != "tf_idf" {
		return nil, err
	}
	v := st.vocab.Load()
	if v == nil {
		return nil, nil
	}
	out := map[string][]float32{"vars/idf_weights": slices.Clone(v.idf)}
	for _, sub := range sublayers {
		out[sub+"/vars/idf_weights"] = slices.Clone(v.idf)
	}
	return out, nil
}

// loadOwnVariables is a lookup layer's LoadOwnVariables: a tf_idf
// layer's weights, kept for its vocabulary file.
func (st *lookupState[K]) loadOwnVariables(s *lookupSpec[K], err error, vars map[string][]float32) error {
	if err != nil || s.mode != "tf_idf" {
		return err
	}
	st.idf = vars["idf_weights"]
	return nil
}

// stringTerms parses vocabulary lines that are strings: the lines.
func stringTerms(lines []string) ([]string, error) { return lines, nil }

// build is a lookup layer's Build: one input, the settings checked, a
// given vocabulary read, and the output shape.
func (st *lookupState[K]) build(inputs []backend.Shape, s *lookupSpec[K], err error, given []K, idf []float64) (backend.Shape, error) {
	in, inErr := one(inputs)
	if inErr != nil {
		return nil, inErr
	}
	if err != nil {
		return nil, err
	}
	if err := st.ensureVocab(s, given, idf); err != nil {
		return nil, err
	}
	return st.outputShape(s, in)
}

// callHost is a lookup layer's CallHost: the keys of x looked up, or
// with Invert its indices mapped back to terms.
func (st *lookupState[K]) callHost(s *lookupSpec[K], err error, x backend.Array) (backend.Array, error) {
	if err != nil {
		return backend.Array{}, err
	}
	if s.invert {
		v, err := st.current()
		if err != nil {
			return backend.Array{}, err
		}
		return hostOf(x.Shape, v.invertIDs(s, int64s(x.Ints)))
	}
	var keys []K
	switch k := any(&keys).(type) {
	case *[]string:
		*k = x.Strings
	case *[]int64:
		*k = int64s(x.Ints)
	}
	return st.call(s, keys, x.Shape)
}

// hostOf is terms of shape as a host array.
func hostOf[K lookupKey](shape []int, terms []K) (backend.Array, error) {
	switch t := any(terms).(type) {
	case []string:
		return backend.Array{Shape: shape, Strings: t}, nil
	case []int64:
		ints, err := int32IDs(t)
		return backend.Array{Shape: shape, Ints: ints}, err
	}
	panic("unreachable: a lookup key is a string or an int64")
}
