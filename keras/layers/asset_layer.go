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
