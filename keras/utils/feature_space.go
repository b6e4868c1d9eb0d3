package utils

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// FeatureType names one of Keras's FeatureSpace feature types
// (FeatureSpace.float_normalized() and the others, or their names).
type FeatureType string

// Keras's feature types, with the preprocessing layer each uses.
const (
	FloatFeature       FeatureType = "float"               // the values as they are
	FloatRescaled      FeatureType = "float_rescaled"      // Rescaling(Scale, Offset)
	FloatNormalized    FeatureType = "float_normalized"    // Normalization, adapted
	FloatDiscretized   FeatureType = "float_discretized"   // Discretization(NumBins), adapted, then one-hot
	IntegerCategorical FeatureType = "integer_categorical" // IntegerLookup, adapted, then one-hot
	StringCategorical  FeatureType = "string_categorical"  // StringLookup, adapted, then one-hot
	IntegerHashed      FeatureType = "integer_hashed"      // Hashing(NumBins), then one-hot
	StringHashed       FeatureType = "string_hashed"       // Hashing(NumBins), then one-hot
)

var featureTypes = []FeatureType{FloatFeature, FloatRescaled, FloatNormalized, FloatDiscretized,
	IntegerCategorical, StringCategorical, IntegerHashed, StringHashed}

// Feature is one feature of a FeatureSpace: a type with its options
// (zero values are Keras's defaults), or a preprocessing layer of your
// own (Keras's FeatureSpace.feature).
type Feature struct {
	Type FeatureType
	// Scale and Offset are float_rescaled's (Scale 0 means Keras's 1).
	Scale, Offset float64
	// NumBins is float_discretized's number of bins (0: the space's
	// NumDiscretizationBins) and the hashed types' (0: its HashingDim).
	NumBins int
	// BinBoundaries fix float_discretized's boundaries instead of
	// adapting them.
	BinBoundaries []float64
	// MaxTokens caps a categorical feature's vocabulary (0: none), and
	// NumOOVIndices is its number of out-of-vocabulary indices (0 means
	// Keras's default 1; NoOOVIndices is Keras's num_oov_indices=0).
	MaxTokens     int
	NumOOVIndices int
	NoOOVIndices  bool
	// OutputMode is "one_hot" (the default of the categorical,
	// discretized and hashed types), "int" (the index, for
	// OutputMode "dict"), or "float" (the float types' only mode).
	OutputMode string

	// Preprocessor and DType make a feature of your own: the layer
	// applied to an input of that dtype (Type left empty).
	Preprocessor layers.Layer
	DType        backend.DType
}

// Cross is a feature cross: the named features' preprocessed values
// hashed together into CrossingDim bins (a HashedCrossing).
type Cross struct {
	FeatureNames []string
	CrossingDim  int    // 0: the space's CrossingDim
	OutputMode   string // "one_hot" (the default) or "int"
}

// Name is the cross's name, Keras's: the feature names joined by "_X_".
func (c Cross) Name() string { return strings.Join(c.FeatureNames, "_X_") }

// FeatureSpace is Keras's keras.utils.FeatureSpace: structured data (a
// column per feature) preprocessed and encoded by Keras's preprocessing
// layers, one per feature, with feature crosses, then concatenated into
// one vector per sample (OutputMode "concat") or kept per feature
// ("dict"). Adapt it on the data first; then call it on data (Call), or
// take its Inputs and EncodedFeatures to build a model that takes the raw
// columns (Keras's get_inputs and get_encoded_features).
//
// Features are merged as Keras merges them: the features in sorted name
// order, then the crosses in sorted name order. Each input has shape (1,)
// and the feature's dtype (strings for string features, int32 for
// integer features), named after its feature.
//
// A FeatureSpace is safe for concurrent Call once adapted; Adapt must
// not run beside anything else on it. Differences from Keras: Save is
// not written yet (save a model built from Inputs and EncodedFeatures
// instead, which keras.LoadModel and Keras both open), and a
// float_discretized feature with BinBoundaries one-hot encodes into
// len(BinBoundaries)+1 bins (Keras refuses num_bins and bin_boundaries
// together).
type FeatureSpace struct {
	Features map[string]Feature
	Crosses  []Cross
	// OutputMode is "concat" (the default when empty) or "dict".
	OutputMode string
	// CrossingDim, HashingDim and NumDiscretizationBins are the
	// defaults of the crosses, the hashed features and the discretized
	// features (0: Keras's 32).
	CrossingDim, HashingDim, NumDiscretizationBins int
	// Backend is the engine Call runs on ("" for kerasgo's default, as
	// keras.CompileOptions.Backend).
	Backend string

	mu    sync.Mutex
	graph *featureGraph
}

// featureGraph is an adapted FeatureSpace's layers and symbolic graph.
type featureGraph struct {
	names         []string // the features, sorted
	inputs        map[string]*layers.KerasTensor
	preprocessors map[string]layers.Layer
	crossers      map[string]*layers.HashedCrossing
	encoded       map[string]*layers.KerasTensor // per feature and cross, as merged
	concat        *layers.KerasTensor            // OutputMode "concat"
	model         *keras.Model                   // for Call, made on first use
	modelErr      error
	modelOnce     sync.Once
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func (fs *FeatureSpace) outputMode() string {
	if fs.OutputMode == "" {
		return "concat"
	}
	return fs.OutputMode
}

// spec is one feature resolved: its input dtype, preprocessor, output
// mode and one-hot cardinality function.
type featureSpec struct {
	dtype        backend.DType
	preprocessor layers.Layer // nil for "float": the input itself
	outputMode   string
}

// check validates the settings, with Keras's kind of error.
func (fs *FeatureSpace) check() error {
	if len(fs.Features) == 0 {
		return errors.New("FeatureSpace: Features cannot be empty: give at least one feature")
	}
	if m := fs.outputMode(); m != "concat" && m != "dict" {
		return fmt.Errorf("FeatureSpace: invalid OutputMode %q: expected \"concat\" or \"dict\"", m)
	}
	for _, n := range []struct {
		name string
		v    int
	}{{"CrossingDim", fs.CrossingDim}, {"HashingDim", fs.HashingDim}, {"NumDiscretizationBins", fs.NumDiscretizationBins}} {
		if n.v < 0 {
			return fmt.Errorf("FeatureSpace: %s is %d: give a positive number (0 for Keras's 32)", n.name, n.v)
		}
	}
	for _, c := range fs.Crosses {
		if len(c.FeatureNames) < 2 {
			return fmt.Errorf("FeatureSpace: cross %v crosses %d features: give at least two", c.FeatureNames, len(c.FeatureNames))
		}
		for _, n := range c.FeatureNames {
			if _, ok := fs.Features[n]; !ok {
				return fmt.Errorf("FeatureSpace: all features referenced in Crosses should be present in Features; received unknown feature %q in cross %v", n, c.FeatureNames)
			}
		}
		if m := c.OutputMode; m != "" && m != "int" && m != "one_hot" {
			return fmt.Errorf("FeatureSpace: cross %q: invalid OutputMode %q: expected \"int\" or \"one_hot\"", c.Name(), m)
		}
		if c.CrossingDim < 0 {
			return fmt.Errorf("FeatureSpace: cross %q: CrossingDim is %d: give a positive number", c.Name(), c.CrossingDim)
		}
	}
	return nil
}

// resolve makes a feature's preprocessing layer, as Keras's classmethods
// do (named <feature>_preprocessor).
func (fs *FeatureSpace) resolve(name string, f Feature) (featureSpec, error) {
	base := layers.Base{Name: name + "_preprocessor"}
	mode := f.OutputMode
	categorical := func(dt backend.DType) (featureSpec, error) {
		if mode == "" {
			mode = "one_hot"
		}
		if mode != "one_hot" && mode != "int" {
			return featureSpec{}, fmt.Errorf("feature %q (%s): invalid OutputMode %q: expected \"one_hot\" or \"int\"", name, f.Type, mode)
		}
		return featureSpec{dtype: dt, outputMode: mode}, nil
	}
	floating := func() (featureSpec, error) {
		if mode != "" && mode != "float" {
			return featureSpec{}, fmt.Errorf("feature %q (%s) gives floats: OutputMode must be \"float\" (or empty), not %q", name, f.Type, mode)
		}
		return featureSpec{dtype: backend.Float32, outputMode: "float"}, nil
	}
	var s featureSpec
	var err error
	switch f.Type {
	case FloatFeature:
		s, err = floating()
	case FloatRescaled:
		s, err = floating()
		s.preprocessor = &layers.Rescaling{Scale: f.Scale, Offset: f.Offset, Base: base}
	case FloatNormalized:
		s, err = floating()
		s.preprocessor = &layers.Normalization{Base: base}
	case FloatDiscretized:
		s, err = categorical(backend.Float32)
		d := &layers.Discretization{BinBoundaries: slices.Clone(f.BinBoundaries), Base: base}
		if f.BinBoundaries == nil {
			d.NumBins = orDefault(f.NumBins, orDefault(fs.NumDiscretizationBins, 32))
		}
		s.preprocessor = d
	case IntegerCategorical:
		s, err = categorical(backend.Int32)
		s.preprocessor = &layers.IntegerLookup{MaxTokens: f.MaxTokens, NumOOVIndices: f.NumOOVIndices, NoOOVIndices: f.NoOOVIndices, Base: base}
	case StringCategorical:
		s, err = categorical(backend.String)
		s.preprocessor = &layers.StringLookup{MaxTokens: f.MaxTokens, NumOOVIndices: f.NumOOVIndices, NoOOVIndices: f.NoOOVIndices, Base: base}
	case IntegerHashed, StringHashed:
		dt := backend.Int32
		if f.Type == StringHashed {
			dt = backend.String
		}
		s, err = categorical(dt)
		s.preprocessor = &layers.Hashing{NumBins: orDefault(f.NumBins, orDefault(fs.HashingDim, 32)), Base: base}
	case "":
		if f.Preprocessor == nil {
			return featureSpec{}, fmt.Errorf("feature %q has no Type and no Preprocessor: give a type (%v) or a preprocessing layer of your own with its input DType", name, featureTypes)
		}
		if mode != "int" && mode != "one_hot" && mode != "float" {
			return featureSpec{}, fmt.Errorf("feature %q: invalid OutputMode %q: expected one of \"int\", \"one_hot\", \"float\"", name, mode)
		}
		s = featureSpec{dtype: f.DType, preprocessor: f.Preprocessor, outputMode: mode}
	default:
		return featureSpec{}, fmt.Errorf("feature %q: invalid feature type %q: use one of %v", name, f.Type, featureTypes)
	}
	if err != nil {
		return featureSpec{}, err
	}
	if f.Type != "" && f.Preprocessor != nil {
		return featureSpec{}, fmt.Errorf("feature %q gives both a Type (%s) and a Preprocessor: give one", name, f.Type)
	}
	return s, nil
}

// adaptable reports whether a preprocessor computes its state from data
// (Keras's _list_adaptable_preprocessors): not a Normalization given its
// statistics, a lookup given its vocabulary, or a Discretization given
// its boundaries.
func adaptable(l layers.Layer) bool {
	switch p := l.(type) {
	case *layers.Normalization:
		return p.Mean == nil
	case *layers.StringLookup:
		return p.Vocabulary == nil
	case *layers.IntegerLookup:
		return p.Vocabulary == nil
	case *layers.Discretization:
		return p.BinBoundaries == nil
	case *layers.TextVectorization:
		return p.Vocabulary == nil
	}
	_, ok := l.(layers.Adapter)
	return ok
}

// Adapt computes each adaptable preprocessor's state from data (Keras's
// FeatureSpace.adapt on a dict of arrays), one column per feature, of
// shape (samples) or (samples, 1): Strings for string features, Ints
// for integer features, Data (or Ints) for float features. As Keras
// does with a dict, each layer adapts on batches of 32 samples (which
// Discretization's quantile summary depends on). It then builds the
// space's graph; adapting again makes new layers.
func (fs *FeatureSpace) Adapt(ctx context.Context, data keras.NamedArrays) error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	specs, err := fs.specs()
	if err != nil {
		return err
	}
	for _, name := range sortedNames(fs.Features) {
		s := specs[name]
		if s.preprocessor == nil || !adaptable(s.preprocessor) {
			continue
		}
		col, ok := data[name]
		if !ok {
			return fmt.Errorf("FeatureSpace.Adapt: the data has no column %q: give one array per feature (got %v)", name, sortedNames(data))
		}
		col, err := column(name, col, s.dtype)
		if err != nil {
			return fmt.Errorf("FeatureSpace.Adapt: %w", err)
		}
		if err := adaptInBatches(ctx, s.preprocessor.(layers.Adapter), col, 32); err != nil {
			return fmt.Errorf("FeatureSpace.Adapt: feature %q: %w", name, err)
		}
	}
	g, err := fs.build(specs)
	if err != nil {
		return err
	}
	fs.graph = g
	return nil
}

// specs resolves every feature.
func (fs *FeatureSpace) specs() (map[string]featureSpec, error) {
	if err := fs.check(); err != nil {
		return nil, err
	}
	specs := make(map[string]featureSpec, len(fs.Features))
	for _, name := range sortedNames(fs.Features) {
		s, err := fs.resolve(name, fs.Features[name])
		if err != nil {
			return nil, fmt.Errorf("FeatureSpace: %w", err)
		}
		specs[name] = s
	}
	return specs, nil
}

// adaptInBatches adapts l on col, batch samples at a time.
func adaptInBatches(ctx context.Context, l layers.Adapter, col keras.Array, batch int) error {
	n := col.Shape[0]
	if n == 0 {
		return errors.New("the column has no samples: give at least one")
	}
	ad, err := l.StartAdapt(backend.Shape{1})
	if err != nil {
		return err
	}
	for start := 0; start < n; start += batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(start+batch, n)
		b := keras.Array{Shape: []int{end - start, 1}}
		switch {
		case col.Strings != nil:
			b.Strings = col.Strings[start:end]
		case col.Ints != nil:
			b.Ints = col.Ints[start:end]
		default:
			b.Data = col.Data[start:end]
		}
		if err := ad.Update(b); err != nil {
			return err
		}
	}
	return ad.Finish()
}

// column checks one feature's data and gives it shape (samples, 1).
func column(name string, a keras.Array, dt backend.DType) (keras.Array, error) {
	if err := a.Validate(fmt.Sprintf("column %q", name)); err != nil {
		return keras.Array{}, err
	}
	if len(a.Shape) > 2 || len(a.Shape) == 2 && a.Shape[1] != 1 {
		return keras.Array{}, fmt.Errorf("column %q has shape %v: give one value per sample, of shape (samples) or (samples, 1)", name, a.Shape)
	}
	switch {
	case dt == backend.String && a.Strings == nil:
		return keras.Array{}, fmt.Errorf("column %q is a string feature: give its values as Strings", name)
	case dt == backend.Int32 && a.Ints == nil:
		return keras.Array{}, fmt.Errorf("column %q is an integer feature: give its values as Ints", name)
	case dt == backend.Float32 && a.Strings != nil:
		return keras.Array{}, fmt.Errorf("column %q is a float feature: give its values as Data, not Strings", name)
	}
	a.Shape = []int{a.Shape[0], 1}
	if dt == backend.Float32 && a.Ints != nil {
		f := keras.Array{Shape: a.Shape, Data: make([]float32, len(a.Ints))}
		for i, v := range a.Ints {
			f.Data[i] = float32(v)
		}
		a = f
	}
	return a, nil
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// build applies the layers to the inputs as Keras's
// get_encoded_features does: preprocess, cross, one-hot encode, merge.
func (fs *FeatureSpace) build(specs map[string]featureSpec) (*featureGraph, error) {
	g := &featureGraph{names: sortedNames(fs.Features), inputs: map[string]*layers.KerasTensor{},
		preprocessors: map[string]layers.Layer{}, crossers: map[string]*layers.HashedCrossing{}, encoded: map[string]*layers.KerasTensor{}}
	pre := map[string]*layers.KerasTensor{}
	for _, name := range g.names {
		s := specs[name]
		in := layers.NewInput(&layers.InputLayer{Shape: []int{1}, DType: s.dtype, Base: layers.Base{Name: name}})
		g.inputs[name] = in
		pre[name] = in
		if s.preprocessor != nil {
			g.preprocessors[name] = s.preprocessor
			pre[name] = layers.Apply(s.preprocessor, in)
		}
	}
	type merged struct {
		name        string
		value       *layers.KerasTensor
		mode        string
		cardinality int // for one_hot; 0 unknown
	}
	var all []merged
	for _, name := range g.names {
		all = append(all, merged{name, pre[name], specs[name].outputMode, cardinality(specs[name].preprocessor)})
	}
	crosses := slices.Clone(fs.Crosses)
	sort.SliceStable(crosses, func(i, j int) bool { return crosses[i].Name() < crosses[j].Name() })
	for _, c := range crosses {
		dim := orDefault(c.CrossingDim, orDefault(fs.CrossingDim, 32))
		crosser := &layers.HashedCrossing{NumBins: dim, Base: layers.Base{Name: c.Name()}}
		g.crossers[c.Name()] = crosser
		ins := make([]*layers.KerasTensor, len(c.FeatureNames))
		for i, n := range c.FeatureNames {
			ins[i] = pre[n]
		}
		mode := c.OutputMode
		if mode == "" {
			mode = "one_hot"
		}
		all = append(all, merged{c.Name(), layers.Apply(crosser, ins...), mode, dim})
	}
	var toConcat []*layers.KerasTensor
	for _, f := range all {
		v := f.value
		if err := v.Err(); err != nil {
			return nil, fmt.Errorf("FeatureSpace: feature %q: %w", f.name, err)
		}
		if f.mode == "one_hot" {
			if f.cardinality == 0 {
				return nil, fmt.Errorf("FeatureSpace: feature %q has OutputMode \"one_hot\", but its preprocessor's number of categories is not known, so it cannot be one-hot encoded: use OutputMode \"int\"", f.name)
			}
			v = layers.Apply(&layers.CategoryEncoding{NumTokens: f.cardinality, OutputMode: "multi_hot"}, v)
			if err := v.Err(); err != nil {
				return nil, fmt.Errorf("FeatureSpace: feature %q: %w", f.name, err)
			}
		}
		if fs.outputMode() == "concat" {
			if dt := v.DType(); dt == backend.String || dt == backend.Int32 || dt == backend.Int64 || f.mode == "int" {
				return nil, fmt.Errorf("FeatureSpace: cannot concatenate features because feature %q has not been encoded (OutputMode %q): use OutputMode \"dict\", or encode it", f.name, f.mode)
			}
			toConcat = append(toConcat, v)
		}
		g.encoded[f.name] = v
	}
	if fs.outputMode() == "concat" {
		if len(toConcat) == 1 {
			g.concat = toConcat[0]
		} else {
			g.concat = layers.Apply(&layers.Concatenate{}, toConcat...)
		}
		if err := g.concat.Err(); err != nil {
			return nil, fmt.Errorf("FeatureSpace: %w", err)
		}
	}
	return g, nil
}

// cardinality is a preprocessor's number of categories (Keras's
// vocabulary_size, num_tokens or num_bins), or 0 when it has none.
func cardinality(l layers.Layer) int {
	switch p := l.(type) {
	case *layers.StringLookup:
		return p.VocabularySize()
	case *layers.IntegerLookup:
		return p.VocabularySize()
	case *layers.Discretization:
		if p.NumBins > 0 {
			return p.NumBins
		}
		return len(p.BinBoundaries) + 1
	case *layers.Hashing:
		return p.NumBins
	case *layers.HashedCrossing:
		return p.NumBins
	case *layers.CategoryEncoding:
		return p.NumTokens
	}
	return 0
}

// adapted returns the graph, building it when no feature needs adapting
// (Keras's _check_if_adapted).
func (fs *FeatureSpace) adapted() (*featureGraph, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.graph != nil {
		return fs.graph, nil
	}
	specs, err := fs.specs()
	if err != nil {
		return nil, err
	}
	for _, name := range sortedNames(specs) {
		if p := specs[name].preprocessor; p != nil && adaptable(p) {
			return nil, fmt.Errorf("FeatureSpace: feature %q needs adapting: call Adapt on the data before you use the FeatureSpace", name)
		}
	}
	g, err := fs.build(specs)
	if err == nil {
		fs.graph = g
	}
	return g, err
}

// Inputs returns the model inputs, one per feature, by name (Keras's
// get_inputs).
func (fs *FeatureSpace) Inputs() (map[string]*layers.KerasTensor, error) {
	g, err := fs.adapted()
	if err != nil {
		return nil, err
	}
	return g.inputs, nil
}

// InputList returns the inputs in sorted feature order, as
// keras.NewFunctional takes them.
func (fs *FeatureSpace) InputList() ([]*layers.KerasTensor, error) {
	g, err := fs.adapted()
	if err != nil {
		return nil, err
	}
	out := make([]*layers.KerasTensor, len(g.names))
	for i, n := range g.names {
		out[i] = g.inputs[n]
	}
	return out, nil
}

// EncodedFeatures returns the concatenated encoded features (Keras's
// get_encoded_features with output_mode="concat"), a symbolic tensor of
// (batch, total width) to build a model on.
func (fs *FeatureSpace) EncodedFeatures() (*layers.KerasTensor, error) {
	g, err := fs.adapted()
	if err != nil {
		return nil, err
	}
	if g.concat == nil {
		return nil, errors.New("FeatureSpace: OutputMode is \"dict\": use EncodedFeatureMap")
	}
	return g.concat, nil
}

// EncodedFeatureMap returns each feature's and cross's encoded tensor by
// name (Keras's get_encoded_features with output_mode="dict").
func (fs *FeatureSpace) EncodedFeatureMap() (map[string]*layers.KerasTensor, error) {
	g, err := fs.adapted()
	if err != nil {
		return nil, err
	}
	return g.encoded, nil
}

// Preprocessors returns each feature's preprocessing layer by name
// (Keras's .preprocessors); a "float" feature has none.
func (fs *FeatureSpace) Preprocessors() (map[string]layers.Layer, error) {
	g, err := fs.adapted()
	if err != nil {
		return nil, err
	}
	return g.preprocessors, nil
}

// Crossers returns each cross's HashedCrossing by the cross's name
// (Keras's .crossers).
func (fs *FeatureSpace) Crossers() (map[string]*layers.HashedCrossing, error) {
	g, err := fs.adapted()
	if err != nil {
		return nil, err
	}
	return g.crossers, nil
}

// Call preprocesses and encodes data, one column per feature (as for
// Adapt), and returns the concatenated features, (samples, width):
// Keras's feature_space(data), as a tf.data map would call it. It runs a
// model made once from Inputs and EncodedFeatures on the default engine.
func (fs *FeatureSpace) Call(ctx context.Context, data keras.NamedArrays) (keras.Array, error) {
	g, err := fs.adapted()
	if err != nil {
		return keras.Array{}, err
	}
	if g.concat == nil {
		return keras.Array{}, errors.New("FeatureSpace.Call: OutputMode is \"dict\": build a model from Inputs and EncodedFeatureMap")
	}
	g.modelOnce.Do(func() {
		ins := make([]*layers.KerasTensor, len(g.names))
		for i, n := range g.names {
			ins[i] = g.inputs[n]
		}
		g.model, g.modelErr = keras.NewFunctional(ins, []*layers.KerasTensor{g.concat})
		if g.modelErr == nil && fs.Backend != "" {
			g.modelErr = g.model.Compile(keras.CompileOptions{Backend: fs.Backend})
		}
	})
	if g.modelErr != nil {
		return keras.Array{}, fmt.Errorf("FeatureSpace.Call: %w", g.modelErr)
	}
	cols := make(keras.NamedArrays, len(g.names))
	for _, n := range g.names {
		a, ok := data[n]
		if !ok {
			return keras.Array{}, fmt.Errorf("FeatureSpace.Call: the data has no column %q: give one array per feature", n)
		}
		if cols[n], err = column(n, a, g.inputs[n].DType()); err != nil {
			return keras.Array{}, fmt.Errorf("FeatureSpace.Call: %w", err)
		}
	}
	return g.model.Predict(ctx, cols, keras.PredictOptions{})
}
