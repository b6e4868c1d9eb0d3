package layers

// AssetLayer is a layer whose state Keras saves as files beside the
// weights, under the .keras archive's assets/<layer path>/ (Keras's
// save_assets and load_assets): a lookup layer's vocabulary.txt.
type AssetLayer interface {
	Layer
	// SaveAssets returns the layer's files by name (a name may hold a
	// folder: "_lookup_layer/vocabulary.txt"); none when the state is in
	// the config.
	SaveAssets() (map[string][]byte, error)
	// LoadAssets sets the layer's state from the files SaveAssets (or
	// Keras) wrote, by the same names.
	LoadAssets(files map[string][]byte) error
}

// OwnVariables is a layer with state that Keras saves in the weights file
// by name, beside or instead of its variables (Keras's
// save_own_variables: a tf_idf lookup's "idf_weights"), as float32
// vectors.
type OwnVariables interface {
	Layer
	// SaveOwnVariables returns the vectors by their path in the layer's
	// group: "vars/idf_weights", or a sub-layer's
	// "_lookup_layer/vars/idf_weights"; none is fine.
	SaveOwnVariables() (map[string][]float32, error)
	// LoadOwnVariables takes the vectors of the layer's vars/ by name
	// ("idf_weights"), before LoadAssets.
	LoadOwnVariables(vars map[string][]float32) error
}
