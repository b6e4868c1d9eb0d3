package layers

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dchest/siphash"
	farm "github.com/dgryski/go-farm"
	"github.com/kerasgo/kerasgo/keras/backend"
)

// This file is Keras's IndexLookup (keras/src/layers/preprocessing/
// index_lookup.py), the table StringLookup, IntegerLookup and
// TextVectorization share, written once for string and integer keys.

// lookupKey is the type of a lookup layer's vocabulary terms.
type lookupKey interface{ ~string | ~int64 }

// lookupSpec is a lookup layer's settings, resolved as IndexLookup reads
// them.
type lookupSpec[K lookupKey] struct {
	maxTokens int // 0: no cap (Keras's None)
	numOOV    int
	mask      bool // a mask token is set (Keras's mask_token not None)
	maskToken K
	oovToken  K
	mode      string // "int", "one_hot", "multi_hot", "count" or "tf_idf"
	padToMax  bool
	invert    bool
	// farmhash buckets integer OOV keys by FarmHash64 of their decimal
	// form instead of floormod (strings always hash).
	farmhash bool
	salt     []uint64 // SipHash's key instead of FarmHash64, when set
}

// outputModes are the output modes of the lookup layers.
var lookupModes = []string{"int", "one_hot", "multi_hot", "count", "tf_idf"}

// lookupMode resolves a lookup layer's OutputMode: "" is "int", and
// Keras's aliases "binary" and "tf-idf" are accepted.
func lookupMode(mode string) (string, error) {
	switch mode {
	case "":
		return "int", nil
	case "binary":
		return "multi_hot", nil
	case "tf-idf":
		return "tf_idf", nil
	}
	if !slices.Contains(lookupModes, mode) {
		return "", fmt.Errorf("unknown output mode %q: use one of %s", mode, strings.Join(lookupModes, ", "))
	}
	return mode, nil
}

// check refuses settings Keras's IndexLookup refuses.
func (s *lookupSpec[K]) check(idf []float64) error {
	switch {
	case s.maxTokens < 0 || s.maxTokens == 1:
		return fmt.Errorf("MaxTokens is %d: give a number greater than 1, or 0 for no cap", s.maxTokens)
	case s.padToMax && s.maxTokens == 0:
		return fmt.Errorf("PadToMaxTokens needs MaxTokens")
	case s.numOOV < 0:
		return fmt.Errorf("NumOOVIndices is %d: give 0 or more", s.numOOV)
	case s.invert && s.mode != "int":
		return fmt.Errorf("the setting Invert needs the output mode int, not %q", s.mode)
	case idf != nil && s.mode != "tf_idf":
		return fmt.Errorf("the IDFWeights are only for the output mode tf_idf, not %q", s.mode)
	}
	return nil
}

// oovStart is the first OOV index: 1 when index 0 is the mask's.
func (s *lookupSpec[K]) oovStart() int {
	if s.mask && s.mode == "int" {
		return 1
	}
	return 0
}

// tokenStart is the index of the first vocabulary term.
func (s *lookupSpec[K]) tokenStart() int { return s.oovStart() + s.numOOV }

// lookupVocab is a lookup layer's vocabulary, immutable once made: a
// layer swaps in a new one when it is adapted or given one, so calls
// that run meanwhile see the old one or the new one whole.
type lookupVocab[K lookupKey] struct {
	tokens []K         // the terms, without the mask and OOV tokens
	index  map[K]int64 // term -> index (tokenStart + position)
	idf    []float32   // tf_idf: a weight per output index
	given  bool        // from the layer's Vocabulary (saved in the config, not as an asset)
	byID   map[int64]K // invert: index -> term
}

// size is the vocabulary's size with the mask and OOV indices: Keras's
// vocabulary_size().
func (v *lookupVocab[K]) size(s *lookupSpec[K]) int { return s.tokenStart() + len(v.tokens) }

// checkTermsText refuses a string term that is not valid UTF-8: Keras
// writes a vocabulary into config.json and vocabulary.txt as UTF-8 text,
// where such bytes would become U+FFFD, and the default standardization
// turns the same bytes of an input into U+FFFD too, so the term would
// never match (predictions would change after Save and Load).
func checkTermsText[K lookupKey](tokens []K, format func(K) string) error {
	for i, t := range tokens {
		if str, ok := any(t).(string); ok && !utf8.ValidString(str) {
			return fmt.Errorf("term %d of the vocabulary, %s, is not valid UTF-8: a vocabulary holds text (Keras writes it into config.json and vocabulary.txt as UTF-8, where such bytes would change): decode the data to UTF-8 first", i, format(t))
		}
	}
	return nil
}

// newLookupVocab is Keras's set_vocabulary: terms may start with the
// special tokens (the mask, then the OOV token repeated), which are then
// dropped, as in a vocabulary file Keras wrote; idf gives tf_idf's
// weights, one per term given.
func newLookupVocab[K lookupKey](s *lookupSpec[K], terms []K, idf []float64, format func(K) string) (*lookupVocab[K], error) {
	if len(terms) == 0 {
		return nil, fmt.Errorf("the vocabulary is empty")
	}
	if s.mode == "tf_idf" && idf == nil {
		return nil, fmt.Errorf("the output mode tf_idf needs IDFWeights with the vocabulary")
	}
	var special []K
	for range s.oovStart() {
		special = append(special, s.maskToken)
	}
	for range s.numOOV {
		special = append(special, s.oovToken)
	}
	tokens := terms
	found := len(terms) >= len(special) && slices.Equal(terms[:len(special)], special)
	if found {
		tokens = terms[len(special):]
	}
	if err := checkTermsText(tokens, format); err != nil {
		return nil, err
	}
	index := make(map[K]int64, len(tokens))
	start := int64(s.tokenStart())
	var repeated []string
	for i, t := range tokens {
		if _, dup := index[t]; dup {
			repeated = append(repeated, format(t))
			continue
		}
		index[t] = start + int64(i)
	}
	if repeated != nil {
		return nil, fmt.Errorf("the vocabulary repeats the terms %s: give each term once", strings.Join(repeated, ", "))
	}
	if _, in := index[s.maskToken]; s.mask && in {
		return nil, fmt.Errorf("the vocabulary holds the mask token %s past its start: leave the mask and OOV tokens out, or put them first, in this order: %s", format(s.maskToken), formatAll(special, format))
	}
	if _, in := index[s.oovToken]; s.invert && in {
		return nil, fmt.Errorf("the vocabulary holds the OOV token %s past its start: leave the mask and OOV tokens out, or put them first, in this order: %s", format(s.oovToken), formatAll(special, format))
	}
	if n := s.tokenStart() + len(tokens); s.maxTokens > 0 && n > s.maxTokens {
		return nil, fmt.Errorf("the vocabulary has %d terms with the mask and OOV tokens, more than MaxTokens (%d)", n, s.maxTokens)
	}
	v := &lookupVocab[K]{tokens: tokens, index: index}
	if s.invert {
		v.byID = make(map[int64]K, len(tokens))
		for t, i := range index {
			v.byID[i] = t
		}
	}
	if s.mode == "tf_idf" {
		if len(idf) != len(terms) {
			return nil, fmt.Errorf("IDFWeights has %d weights but the vocabulary %d terms: give one per term", len(idf), len(terms))
		}
		// As Keras: without the special tokens in front, their weights
		// are the mean of the others; the padding to MaxTokens is 0.
		var front []float64
		if !found {
			var sum float64
			for _, w := range idf {
				sum += w
			}
			for range s.tokenStart() {
				front = append(front, sum/float64(len(idf)))
			}
		}
		all := append(front, idf...)
		if s.padToMax {
			for len(all) < s.maxTokens {
				all = append(all, 0)
			}
		}
		v.idf = make([]float32, len(all))
		for i, w := range all {
			v.idf[i] = float32(w)
		}
	}
	return v, nil
}

func formatAll[K lookupKey](ks []K, format func(K) string) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = format(k)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// terms returns the vocabulary with its special tokens, index by index:
// Keras's get_vocabulary(include_special_tokens=True).
func (v *lookupVocab[K]) terms(s *lookupSpec[K]) []K {
	out := make([]K, 0, v.size(s))
	if s.oovStart() == 1 {
		out = append(out, s.maskToken)
	}
	for range s.numOOV {
		out = append(out, s.oovToken)
	}
	return append(out, v.tokens...)
}

// dropped marks a masked value in an encoded output mode: it counts
// nowhere (Keras maps it past the depth).
const dropped = -1

// lookup maps keys to indices: the mask token to 0 ("int") or dropped,
// a term to its index, any other key to an OOV index (an error with no
// OOV indices).
func (v *lookupVocab[K]) lookup(s *lookupSpec[K], keys []K, format func(K) string) ([]int64, error) {
	out := make([]int64, len(keys))
	start := int64(s.oovStart())
	for i, k := range keys {
		if s.mask && k == s.maskToken {
			if s.mode == "int" {
				out[i] = 0
			} else {
				out[i] = dropped
			}
			continue
		}
		if id, ok := v.index[k]; ok {
			out[i] = id
			continue
		}
		switch s.numOOV {
		case 0:
			return nil, fmt.Errorf("value %s is not in the vocabulary and NumOOVIndices is 0: add it to the vocabulary, or allow OOV indices", format(k))
		case 1:
			out[i] = start
		default:
			out[i] = start + s.oovBucket(k)
		}
	}
	return out, nil
}

// oovBucket is the OOV index (from 0) of a key when there are several:
// floormod for integers, else FarmHash64 (or SipHash with a salt) of the
// key's string form, as TensorFlow's to_hash_bucket_fast and
// to_hash_bucket_strong.
func (s *lookupSpec[K]) oovBucket(k K) int64 {
	switch v := any(k).(type) {
	case int64:
		if !s.farmhash {
			return floorMod(v, int64(s.numOOV))
		}
		return hashBucket(strconv.FormatInt(v, 10), s.numOOV, s.salt)
	case string:
		return hashBucket(v, s.numOOV, s.salt)
	}
	panic("unreachable: a lookup key is a string or an int64")
}

// floorMod is Python's a % n for n > 0.
func floorMod(a, n int64) int64 {
	m := a % n
	if m < 0 {
		m += n
	}
	return m
}

// hashBucket is TensorFlow's string hashing into n buckets:
// Fingerprint64 (FarmHash) % n, or with a key SipHash-2-4 % n.
func hashBucket(s string, n int, key []uint64) int64 {
	var h uint64
	if key != nil {
		h = siphash.Hash(key[0], key[1], []byte(s))
	} else {
		h = farm.Fingerprint64([]byte(s))
	}
	return int64(h % uint64(n))
}

// invert maps indices back to terms: 0 to the mask token (when there is
// one), a term's index to the term, anything else to the OOV token.
func (v *lookupVocab[K]) invertIDs(s *lookupSpec[K], ids []int64) []K {
	out := make([]K, len(ids))
	for i, id := range ids {
		if t, ok := v.byID[id]; ok {
			out[i] = t
		} else if s.mask && id == 0 {
			out[i] = s.maskToken
		} else {
			out[i] = s.oovToken
		}
	}
	return out
}

// encodeRows encodes rows of indices as Keras's encode_categorical_inputs
// does with bincount: each row becomes depth values, 1 where an index is
// present ("multi_hot", "one_hot" of one index per row), its count
// ("count"), or its count times its weight ("tf_idf"). Indices outside
// [0, depth) count nowhere.
func encodeRows(mode string, ids []int64, rowLen []int, depth int, idf []float32) []float32 {
	out := make([]float32, len(rowLen)*depth)
	at := 0
	for r, n := range rowLen {
		row := out[r*depth : (r+1)*depth]
		for _, id := range ids[at : at+n] {
			if id < 0 || id >= int64(depth) {
				continue
			}
			if mode == "multi_hot" || mode == "one_hot" {
				row[id] = 1
			} else {
				row[id]++
			}
		}
		if mode == "tf_idf" {
			for j := range row {
				row[j] *= idf[j]
			}
		}
		at += n
	}
	return out
}

// encodeIndices is the output of a lookup or a Hashing layer of indices
// ids of shape in: the indices themselves ("int"), one-hot vectors on a
// new last axis (or on a last axis of 1), or one encoded vector per row
// of the last axis.
func encodeIndices(mode string, ids []int64, in []int, depth int, idf []float32) (backend.Array, error) {
	if mode == "int" {
		ints, err := int32IDs(ids)
		return backend.Array{Shape: slices.Clone(in), Ints: ints}, err
	}
	if mode == "one_hot" {
		shape := slices.Clone(in)
		if len(shape) > 1 && shape[len(shape)-1] == 1 {
			shape = shape[:len(shape)-1]
		}
		rows := make([]int, len(ids))
		for i := range rows {
			rows[i] = 1
		}
		return backend.Array{Shape: append(shape, depth), Data: encodeRows(mode, ids, rows, depth, idf)}, nil
	}
	rows := make([]int, in[0]) // encodedShape allows (batch, values) only
	for i := range rows {
		rows[i] = in[1]
	}
	return backend.Array{Shape: []int{in[0], depth}, Data: encodeRows(mode, ids, rows, depth, idf)}, nil
}

// encodedShape is the output shape of a lookup or Hashing layer of input
// shape in, as Keras's compute_output_shape.
func encodedShape(in []int, mode string, depth int) ([]int, error) {
	switch mode {
	case "int":
		return slices.Clone(in), nil
	case "one_hot":
		if len(in) > 1 && in[len(in)-1] == 1 {
			return append(slices.Clone(in[:len(in)-1]), depth), nil
		}
		return append(slices.Clone(in), depth), nil
	}
	if len(in) != 2 {
		return nil, fmt.Errorf("the output mode %s encodes inputs of shape (batch, values), received %v: give the input a last axis (shape (1,) for one value per sample)", mode, in)
	}
	return []int{in[0], depth}, nil
}

// lookupCounts accumulates an Adapt of a lookup layer: each term's count
// and, for tf_idf, the number of documents (rows) holding it.
type lookupCounts[K lookupKey] struct {
	counts    map[K]int64
	docCounts map[K]int64
	docs      int64
}

func newLookupCounts[K lookupKey]() *lookupCounts[K] {
	return &lookupCounts[K]{counts: map[K]int64{}, docCounts: map[K]int64{}}
}

// addRow counts one row (document) of terms.
func (c *lookupCounts[K]) addRow(row []K, tfidf bool) {
	for _, t := range row {
		c.counts[t]++
	}
	if tfidf {
		seen := make(map[K]bool, len(row))
		for _, t := range row {
			if !seen[t] {
				seen[t] = true
				c.docCounts[t]++
			}
		}
		c.docs++
	}
}

// vocab is Keras's finalize_state: the terms by decreasing count (ties
// by decreasing term), without the mask and OOV tokens, cut to
// MaxTokens, and for tf_idf the weights log(1 + docs/(1 + docCount)).
func (c *lookupCounts[K]) vocab(s *lookupSpec[K]) (*lookupVocab[K], error) {
	if s.mask {
		delete(c.counts, s.maskToken)
	}
	delete(c.counts, s.oovToken)
	if len(c.counts) == 0 {
		return nil, fmt.Errorf("the data holds no terms besides the mask and OOV tokens")
	}
	tokens := make([]K, 0, len(c.counts))
	for t := range c.counts {
		tokens = append(tokens, t)
	}
	slices.SortFunc(tokens, func(a, b K) int {
		if d := cmp.Compare(c.counts[b], c.counts[a]); d != 0 {
			return d
		}
		return cmp.Compare(b, a)
	})
	if s.maxTokens > 0 {
		tokens = tokens[:min(len(tokens), max(s.maxTokens-s.tokenStart(), 0))]
	}
	if err := checkTermsText(tokens, quoteKey[K]); err != nil {
		return nil, err
	}
	v := &lookupVocab[K]{tokens: tokens, index: make(map[K]int64, len(tokens))}
	for i, t := range tokens {
		v.index[t] = int64(s.tokenStart() + i)
	}
	if s.invert {
		v.byID = make(map[int64]K, len(tokens))
		for t, i := range v.index {
			v.byID[i] = t
		}
	}
	if s.mode == "tf_idf" {
		idf := make([]float32, len(tokens))
		var sum float32
		for i, t := range tokens {
			idf[i] = float32(math.Log(1 + float64(c.docs)/float64(1+c.docCounts[t])))
			sum += idf[i]
		}
		v.idf = make([]float32, 0, max(s.tokenStart()+len(idf), s.maxTokens))
		for range s.tokenStart() {
			v.idf = append(v.idf, sum/float32(len(idf)))
		}
		v.idf = append(v.idf, idf...)
		for s.padToMax && len(v.idf) < s.maxTokens {
			v.idf = append(v.idf, 0)
		}
	}
	return v, nil
}

// vocabularyFile is Keras's assets/.../vocabulary.txt: every term with
// the special tokens, one per line, joined by "\n" with no final newline.
func vocabularyFile[K lookupKey](terms []K, format func(K) string) []byte {
	var b bytes.Buffer
	for i, t := range terms {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(format(t))
	}
	return b.Bytes()
}

// vocabularyLines reads a vocabulary file as Keras's load_assets does:
// its lines as Python's str.splitlines splits them, without trailing
// empty ones.
func vocabularyLines(data []byte) []string {
	text := string(data)
	var lines []string
	start := 0
	for i, r := range text {
		if i < start {
			continue // the \n of a \r\n
		}
		switch r {
		case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			lines = append(lines, text[start:i])
			start = i + len(string(r))
			if r == '\r' && strings.HasPrefix(text[start:], "\n") {
				start++
			}
		}
	}
	if start < len(text) {
		lines = append(lines, text[start:])
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// parseIntTerms reads integer vocabulary lines.
func parseIntTerms(lines []string) ([]int64, error) {
	out := make([]int64, len(lines))
	for i, l := range lines {
		v, err := strconv.ParseInt(strings.TrimSpace(l), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("vocabulary line %d is %q, not an integer", i+1, l)
		}
		out[i] = v
	}
	return out, nil
}
