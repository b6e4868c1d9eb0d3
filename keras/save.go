package keras

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/kerasgo/kerasgo/internal/h5"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/distribution"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/saving"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Version is kerasgo's version; saved files record it.
const Version = "0.2.0-dev"

// legacyVersion is the kerasgo version that saved the layers of models
// with parallel branches in another order than Keras's (legacyLayers).
const legacyVersion = "0.1.0-dev"

// Save writes the model to a .keras file in Keras 3's own format (a zip of
// metadata.json, config.json and model.weights.h5), like Keras's
// model.save: the architecture, the weights and, for a compiled model, the
// compile settings and the optimizer's state, so that LoadModel (in Go or
// in Python's keras.models.load_model) can continue training. The file is
// written atomically: a crash leaves the previous file or the new one.
func (m *Model) Save(path string) error {
	if !strings.HasSuffix(path, ".keras") {
		return fmt.Errorf("Save(%q): the path must end in .keras (Keras's format); for weights alone use SaveWeights with .weights.h5 or .safetensors", path)
	}
	cfg, err := m.modelConfig()
	if err != nil {
		return fmt.Errorf("Save: %w", err)
	}
	js, err := json.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("Save: encoding the config: %w", err)
	}
	weights, err := m.weightsTree(true)
	if err != nil {
		return fmt.Errorf("Save: %w", err)
	}
	assets, err := m.assets()
	if err != nil {
		return fmt.Errorf("Save: %w", err)
	}
	engine := ""
	if c := m.currentCompiled(); c != nil {
		engine = c.be.Name()
	}
	return saving.WriteKeras(path, saving.NewMetadata(Version, engine), js, weights, assets)
}

// numbered returns the names that are variables' numbers ("0", "1",
// ...), leaving out the vectors layers save by name (OwnVariables).
func numbered(names []string) []string {
	var out []string
	for _, n := range names {
		if _, err := strconv.Atoi(n); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// loadOwnVariables gives each layer with OwnVariables the vectors its
// vars/ hold by name.
func (m *Model) loadOwnVariables(f *h5.File, order layerOrder) error {
	seen := map[layers.Layer]bool{}
	for _, wg := range m.weightGroupsIn(order) {
		ov, ok := wg.layer.(layers.OwnVariables)
		if !ok || seen[wg.layer] {
			continue
		}
		seen[wg.layer] = true
		vars := map[string][]float32{}
		prefix := wg.path + "/vars"
		for _, name := range f.Children(prefix) {
			if _, err := strconv.Atoi(name); err == nil {
				continue
			}
			d, err := f.Read(prefix + "/" + name)
			if err != nil {
				return fmt.Errorf("layer %s: %w", layers.Describe(wg.layer), err)
			}
			switch d.DType {
			case h5.Float32:
				vars[name] = d.Float32
			case h5.Float64:
				for _, v := range d.Float64 {
					vars[name] = append(vars[name], float32(v))
				}
			default:
				return fmt.Errorf("layer %s: %s/%s holds %s values, not floats", layers.Describe(wg.layer), prefix, name, d.Stored)
			}
		}
		if err := ov.LoadOwnVariables(vars); err != nil {
			return fmt.Errorf("layer %s: %w", layers.Describe(wg.layer), err)
		}
	}
	return nil
}

// assetLayers lists the model's layers that keep files under assets/
// (a lookup layer's vocabulary), each with its place in the archive: its
// place in the weights file, as Keras lays them out.
func (m *Model) assetLayers() (ls []layers.AssetLayer, paths []string) {
	seen := map[layers.Layer]bool{}
	for _, g := range m.weightGroups() {
		if a, ok := g.layer.(layers.AssetLayer); ok && !seen[g.layer] {
			seen[g.layer] = true
			ls, paths = append(ls, a), append(paths, g.path)
		}
	}
	return ls, paths
}

// assets returns the files the model's layers keep under assets/, by
// path below it: the layer's place, then the file's name.
func (m *Model) assets() (map[string][]byte, error) {
	out := map[string][]byte{}
	ls, paths := m.assetLayers()
	for i, a := range ls {
		files, err := a.SaveAssets()
		if err != nil {
			return nil, fmt.Errorf("layer %s: %w", layers.Describe(a), err)
		}
		for name, data := range files {
			out[paths[i]+"/"+name] = data
		}
	}
	return out, nil
}

// loadAssets gives each asset layer its files from a .keras archive.
func (m *Model) loadAssets(files map[string][]byte) error {
	ls, paths := m.assetLayers()
	for i, a := range ls {
		mine := map[string][]byte{}
		for name, data := range files {
			if rest, ok := strings.CutPrefix(name, paths[i]+"/"); ok {
				mine[rest] = data
			}
		}
		if err := a.LoadAssets(mine); err != nil {
			return fmt.Errorf("layer %s: assets/%s: %w", layers.Describe(a), paths[i], err)
		}
	}
	return nil
}

// LoadOptions configure LoadModel.
type LoadOptions struct {
	// Backend is the engine to compile the loaded model on (with
	// NoCompile, the engine it predicts on); empty chooses as Compile does
	// ($KERASGO_BACKEND, ~/.kerasgo/kerasgo.json, gorgonia).
	Backend string
	// NoCompile loads the architecture and weights only, ignoring the
	// saved compile settings and optimizer state (Keras's compile=False).
	NoCompile bool
	// Distribution compiles the loaded model for data-parallel training
	// (CompileOptions.Distribution).
	Distribution *distribution.DataParallel
}

// LoadModel reads a .keras file written by Keras 3 or by Save, like
// keras.models.load_model, or a whole model that Keras 3, Keras 2 or
// tf.keras saved in the legacy HDF5 layout (.h5, .hdf5; see
// docs/saving.md for what is read of it). A file with compile settings gives a compiled
// model whose optimizer continues from its saved state, so Fit picks up
// where training stopped. A layer, option or setting kerasgo does not have
// is an error that names it.
func LoadModel(path string, opts ...LoadOptions) (*Model, error) {
	var o LoadOptions
	if len(opts) > 1 {
		return nil, errors.New("LoadModel takes at most one LoadOptions")
	}
	if len(opts) == 1 {
		o = opts[0]
	}
	if isH5Format(path) {
		return loadH5FormatModel(path, o)
	}
	a, err := saving.OpenKeras(path)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	top, err := decodeSavedModel(a.Config)
	if err != nil {
		return nil, fmt.Errorf("%s: config.json: %w", path, err)
	}
	m, err := fromConfig(top)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// Weights first, on the host: their shapes are checked against the
	// file before anything is allocated, so a config declaring huge layers
	// fails here instead of allocating them.
	// kerasgo 0.1.0-dev laid out the weights of models with parallel
	// branches in another order than Keras's (legacyLayers).
	legacy := a.Metadata.KerasgoVersion == legacyVersion
	if err := m.loadWeightsH5(a.Weights, false, legacy); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := m.loadAssets(a.Assets); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	lr, found := savedLearningRate(a.Weights, m.lossScaled(top.CompileConfig))
	compiled, err := m.compileLoaded(top.CompileConfig, o, lr, found)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if compiled {
		if a.Weights.HasGroup(saving.OptimizerPath + "/vars") {
			err := m.loadOptimizerState(a.Weights)
			if errors.Is(err, errOptimizerMismatch) {
				// Keras warns "Skipping variable loading for optimizer" and
				// loads the model with a fresh optimizer; so does kerasgo,
				// with a note.
				m.loadNotes = append(m.loadNotes, fmt.Sprintf("the optimizer's saved state was skipped, as Keras skips it (\"Skipping variable loading for optimizer\"): %v; training starts the optimizer afresh", err))
			} else if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
	}
	return m, nil
}

// compileLoaded compiles a loaded model from its compile config, as
// LoadOptions says: Keras writes an empty compile_config for a model never
// compiled, and one without a loss for a model compiled with its optimizer
// alone (its losses from add_loss); kerasgo loads both uncompiled (Predict
// needs no Compile; compile it with a loss to train it). learningRate,
// when found, is the optimizer's current one from the file.
func (m *Model) compileLoaded(cc map[string]any, o LoadOptions, learningRate float64, found bool) (compiled bool, err error) {
	m.inferenceEngine = o.Backend
	if o.NoCompile && o.Backend != "" {
		// Open the engine now, so that an unknown or unavailable one is
		// an error of the load, not of the first prediction.
		if _, err := m.engine(); err != nil {
			return false, err
		}
	}
	if len(cc) == 0 || cc["loss"] == nil || o.NoCompile {
		return false, nil
	}
	if err := m.compileFromConfig(cc, o.Backend, o.Distribution, learningRate, found); err != nil {
		return false, err
	}
	return true, nil
}

// scalarOf is a scalar dataset's value, of any number type.
func scalarOf(d *h5.Dataset) float64 {
	switch d.DType {
	case h5.Int64:
		return float64(d.Int64[0])
	case h5.Float32:
		return float64(d.Float32[0])
	case h5.Float64:
		return d.Float64[0]
	}
	return 0
}

// savedLearningRate returns the learning rate in a weights file's
// optimizer variables (Keras saves the current one, which a callback may
// have changed since compiling), or 0.
func savedLearningRate(f *h5.File, lossScaled bool) (float64, bool) {
	p := saving.OptimizerPath + "/vars/1"
	if lossScaled { // after a LossScaleOptimizer's own four variables: its inner optimizer's
		p = saving.OptimizerPath + "/vars/5"
	}
	if info := f.Dataset(p); info == nil || len(info.Shape) != 0 {
		return 0, false
	}
	d, err := f.Read(p)
	if err != nil || d.DType != h5.Float32 {
		return 0, false
	}
	return float64(d.Float32[0]), true
}

// SaveWeights writes the model's weights alone, like Keras's
// save_weights: to a Keras .weights.h5 file (with the optimizer's state if
// the model is compiled) or to a .safetensors file (weights only, named
// "layers/<layer>/vars/<i>" as in Keras's files), atomically. Neither
// format has a checksum, so the file's SHA-256 is written beside it
// (path + ".sha256", sha256sum's format), and LoadWeights checks it.
func (m *Model) SaveWeights(path string) error {
	if err := m.saveWeights(path); err != nil {
		return err
	}
	return saving.WriteDigest(path)
}

func (m *Model) saveWeights(path string) error {
	switch {
	case strings.HasSuffix(path, ".weights.h5"):
		tree, err := m.weightsTree(true)
		if err != nil {
			return fmt.Errorf("SaveWeights: %w", err)
		}
		return saving.WriteWeightsH5(path, tree)
	case strings.HasSuffix(path, ".safetensors"):
		tree, err := m.weightsTree(false)
		if err != nil {
			return fmt.Errorf("SaveWeights: %w", err)
		}
		var ts []saving.Tensor
		tree.Walk(func(p string, d *h5.Dataset) {
			ts = append(ts, saving.Tensor{Name: p, Shape: d.Shape, Data: d.Float32})
		})
		return saving.WriteSafetensors(path, ts, map[string]string{"format": "kerasgo", "kerasgo_version": Version})
	}
	return fmt.Errorf("SaveWeights(%q): the path must end in .weights.h5 (Keras) or .safetensors; for the whole model use Save with .keras", path)
}

// LoadWeights reads weights saved by SaveWeights or by Keras's
// save_weights into a model of the same architecture. From a .weights.h5
// file of a compiled model it also restores the optimizer's state when the
// file holds one for the same optimizer (as Keras does, it is skipped
// otherwise). It also reads Keras's legacy HDF5 layout (.h5, .hdf5):
// weights saved by Keras 2, tf.keras or Keras 3's save_weights("x.h5"),
// the weights of a whole-model .h5 file, and the weight files
// keras.applications downloads; there LoadWeightsOptions.ByName and
// SkipMismatch (LoadWeightsWith) work as Keras's by_name and
// skip_mismatch. When the file has a digest beside it (path + ".sha256",
// as SaveWeights writes), the file must match it: a corrupt file is an
// error, never weights silently changed. Keras's files have no digest and
// load as they are.
func (m *Model) LoadWeights(path string) error {
	return m.LoadWeightsWith(path, LoadWeightsOptions{})
}

// LoadWeightsWith is LoadWeights with Keras's load_weights arguments.
func (m *Model) LoadWeightsWith(path string, o LoadWeightsOptions) error {
	if !m.Built() {
		return fmt.Errorf("LoadWeights: %w", m.errNotBuilt())
	}
	if _, err := saving.VerifyDigest(path); err != nil {
		return fmt.Errorf("LoadWeights: %w", err)
	}
	if isH5Format(path) {
		f, err := h5.Open(path)
		if err != nil {
			return fmt.Errorf("LoadWeights: %s: %w", path, err)
		}
		defer f.Close()
		if err := m.loadH5FormatWeights(f, path, o); err != nil {
			return fmt.Errorf("LoadWeights: %w", err)
		}
		return nil
	}
	if o != (LoadWeightsOptions{}) {
		return fmt.Errorf("LoadWeights(%q): ByName and SkipMismatch are for Keras's legacy HDF5 files (.h5) only", path)
	}
	switch {
	case strings.HasSuffix(path, ".weights.h5"):
		f, err := saving.OpenWeightsH5(path)
		if err != nil {
			return err
		}
		defer f.Close()
		err = m.loadWeightsH5(f, true, false)
		if errors.Is(err, errOptimizerMismatch) {
			return nil
		}
		return err
	case strings.HasSuffix(path, ".safetensors"):
		ts, err := saving.ReadSafetensors(path)
		if err != nil {
			return err
		}
		_, err = m.loadInEitherOrder(false, func(order layerOrder) error {
			return m.loadWeightsFrom(path, order, func(p string, shape []int) ([]float32, error) {
				t, ok := ts[p]
				if !ok {
					return nil, errMissing
				}
				if !backend.Shape(t.Shape).Equal(shape) {
					return nil, fmt.Errorf("%s has shape %v, the layer needs %v", p, backend.Shape(t.Shape), backend.Shape(shape))
				}
				return t.Data, nil
			}, func(prefix string) int {
				n := 0
				for name := range ts {
					if rest, ok := strings.CutPrefix(name, prefix+"/"); ok && !strings.Contains(rest, "/") {
						n++
					}
				}
				return n
			}, len(ts))
		})
		return err
	}
	return fmt.Errorf("LoadWeights(%q): the path must end in .weights.h5 (Keras 3), .h5 (Keras's legacy HDF5 layout) or .safetensors", path)
}

var (
	errMissing           = errors.New("missing")
	errOptimizerMismatch = errors.New("the saved optimizer state does not fit this optimizer")
)

// layerOrder is the order of the layers in a weights file: Keras's, or
// the one kerasgo wrote before it followed Keras's (see legacyLayers).
type layerOrder int

const (
	kerasOrder layerOrder = iota
	legacyOrder
)

// kerasLayers returns the layers whose variables Keras saves, in its
// order: Sequential's layers without the InputLayer, a Functional model's
// with it.
func (m *Model) kerasLayers(order layerOrder) []layers.Layer {
	ls := m.Layers()
	if order == legacyOrder {
		ls = m.legacyLayers()
	}
	if m.sequential {
		return ls[1:]
	}
	return ls
}

// legacyLayers returns the layers in the order kerasgo saved them in
// until version 0.1.0-dev: the inputs, then each layer in the order of
// its first call. It differs from Keras's only in models with parallel
// branches; weights files of such models written then still load (see
// loadInEitherOrder).
func (m *Model) legacyLayers() []layers.Layer {
	var out []layers.Layer
	for _, in := range m.inputs {
		out = append(out, in.Layer())
	}
	seen := map[layers.Layer]bool{}
	for _, n := range m.nodes {
		if l := n.Layer(); !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

// ordersDiffer reports whether the legacy order puts some layer with
// variables (of this model or a nested one) elsewhere than Keras's.
func (m *Model) ordersDiffer() bool {
	a, b := m.weightGroupsIn(kerasOrder), m.weightGroupsIn(legacyOrder)
	if len(a) != len(b) {
		return true
	}
	for i := range a {
		if a[i].path != b[i].path || a[i].layer != b[i].layer {
			return true
		}
	}
	return false
}

// loadInEitherOrder loads with load in Keras's order, unless preferLegacy
// (a .keras file kerasgo 0.1.0-dev wrote); when that fails and the
// other order differs, it tries the other order, whose success means the
// file was laid out in it. It returns the order that loaded.
func (m *Model) loadInEitherOrder(preferLegacy bool, load func(layerOrder) error) (layerOrder, error) {
	first, second := kerasOrder, legacyOrder
	if preferLegacy && m.ordersDiffer() {
		first, second = legacyOrder, kerasOrder
	}
	err := load(first)
	if err == nil || !m.ordersDiffer() {
		return first, err
	}
	if load(second) == nil {
		return second, nil
	}
	return first, err
}

func (m *Model) layerPaths(order layerOrder) ([]layers.Layer, []string) {
	ls := m.kerasLayers(order)
	classes := make([]string, len(ls))
	for i, l := range ls {
		classes[i] = layers.PythonClassName(l)
	}
	return ls, saving.LayerPaths(classes)
}

// weightGroup is one layer's place in Keras's weights file: its variables
// are path/vars/0, path/vars/1, ...
type weightGroup struct {
	layer layers.Layer
	path  string
	vars  []*layers.Weight // the layer's own variables (none for a nested model)
}

// weightGroups lists every layer's place in the weights file, nested
// models' layers under the model's path
// ("layers/sequential/layers/dense") and sub-layers' variables under the
// layer's ("layers/lstm/cell"), as Keras lays them out.
func (m *Model) weightGroups() []weightGroup { return m.weightGroupsIn(kerasOrder) }

// weightGroupsIn is weightGroups with the layers in the given order.
func (m *Model) weightGroupsIn(order layerOrder) []weightGroup {
	var out []weightGroup
	ls, paths := m.layerPaths(order)
	for i, l := range ls {
		out = append(out, heldGroups(l, paths[i], order)...)
	}
	return out
}

// heldGroups lists a layer's place in the weights file and, under it,
// the places of the layers it holds (layers.Sublayers: "layers/block/
// dense1"), as Keras saves a layer's tracked attributes.
func heldGroups(l layers.Layer, path string, order layerOrder) []weightGroup {
	out := []weightGroup{{layer: l, path: path}}
	switch v := l.(type) {
	case *Model:
		for _, g := range v.weightGroupsIn(order) {
			g.path = path + "/" + g.path
			out = append(out, g)
		}
		return out
	case layers.SavedGrouper: // an RNN's cell
		for _, sg := range v.SavedGroups() {
			out = append(out, weightGroup{layer: l, path: path + "/" + sg.Path, vars: sg.Weights})
		}
		return out
	}
	out[0].vars = l.Common().Weights()
	for _, s := range layers.Sublayers(l) {
		out = append(out, heldGroups(s.Layer, path+"/"+s.Path, order)...)
	}
	return out
}

// weightsTree lays out the model's weights (and the optimizer's state)
// as Keras's weights file holds them.
func (m *Model) weightsTree(withOptimizer bool) (*h5.Group, error) {
	return m.weightsTreeIn(kerasOrder, withOptimizer)
}

// weightsTreeIn is weightsTree with the layers in the given order (the
// legacy order only to test that such files load).
func (m *Model) weightsTreeIn(order layerOrder, withOptimizer bool) (*h5.Group, error) {
	if !m.Built() {
		return nil, m.errNotBuilt()
	}
	// The weights and the optimizer's state of one training step, even
	// while Fit runs in another goroutine.
	values, opt, err := m.snapshot()
	if err != nil {
		return nil, err
	}
	index := map[*layers.Weight]int{}
	for i, w := range m.weights {
		index[w] = i
	}
	root := h5.NewGroup()
	root.Group("vars").Attrs["name"] = m.Name
	ownSaved := map[layers.Layer]bool{}
	for _, wg := range m.weightGroupsIn(order) {
		g := root.Group(wg.path + "/vars")
		g.Attrs["name"] = wg.layer.Common().Name
		for j, w := range wg.vars {
			g.Datasets[strconv.Itoa(j)] = weightDataset(w, values[index[w]])
		}
		if ov, ok := wg.layer.(layers.OwnVariables); ok && !ownSaved[wg.layer] {
			ownSaved[wg.layer] = true
			own, err := ov.SaveOwnVariables()
			if err != nil {
				return nil, fmt.Errorf("layer %s: %w", layers.Describe(wg.layer), err)
			}
			for name, v := range own {
				dir, base := path.Split(name)
				root.Group(wg.path + "/" + strings.TrimSuffix(dir, "/")).Datasets[base] = &h5.Dataset{Shape: []int{len(v)}, DType: h5.Float32, Float32: v}
			}
		}
	}
	if c := m.currentCompiled(); withOptimizer && c != nil && opt != nil {
		if multi, ok := optimizers.AsMulti(c.opt); ok {
			return root, writeMultiState(root, c, multi, opt.iterations, opt.state)
		}
		for k, sl := range c.slots {
			g := root.Group(c.slotPath(k) + "/vars")
			g.Attrs["name"] = sl.opt.Name()
			vars, err := optimizerVars(sl, opt.iterations, c.rateOf(sl.opt, opt.iterations), opt.state[sl.offset:sl.offset+len(sl.specs)])
			if err != nil {
				return nil, err
			}
			for i, v := range vars {
				g.Datasets[strconv.Itoa(i)] = v
			}
		}
	}
	return root, nil
}

// multiSlots maps each of a MultiOptimizer's optimizers to its slot, nil
// for one no variable selects (never applied); any other slot (an
// optimizer a custom step applies beside it) is an error.
func multiSlots(c *compiled, multi *optimizers.MultiOptimizer) (map[optimizers.Optimizer]*optSlot, error) {
	out := map[optimizers.Optimizer]*optSlot{}
	inner := multi.Optimizers()
	for _, sl := range c.slots {
		if !slices.Contains(inner, sl.opt) {
			return nil, fmt.Errorf("the training step applies optimizer %s beside the compiled MultiOptimizer: kerasgo saves the state of a MultiOptimizer alone", sl.opt.Name())
		}
		out[sl.opt] = sl
	}
	return out, nil
}

// writeMultiState writes a MultiOptimizer's state as Keras does: under
// optimizer/vars its iteration count and learning rate (0), then each
// of its optimizers' variables in order (an optimizer never applied has
// only its iteration count, 0, and learning rate); and each optimizer's
// again under optimizer/optimizers/<its class in snake_case>, the
// attribute Keras also saves them under.
func writeMultiState(root *h5.Group, c *compiled, multi *optimizers.MultiOptimizer, iterations int64, state [][]float32) error {
	slots, err := multiSlots(c, multi)
	if err != nil {
		return err
	}
	g := root.Group(saving.OptimizerPath + "/vars")
	g.Attrs["name"] = multi.Name()
	all := []*h5.Dataset{{DType: h5.Int64, Int64: []int64{iterations}}, {DType: h5.Float32, Float32: []float32{0}}}
	used := map[string]int{}
	for _, o := range multi.Optimizers() {
		var vars []*h5.Dataset
		if sl := slots[o]; sl != nil {
			if vars, err = optimizerVars(sl, iterations, c.rateOf(o, iterations), state[sl.offset:sl.offset+len(sl.specs)]); err != nil {
				return err
			}
		} else {
			vars = []*h5.Dataset{{DType: h5.Int64, Int64: []int64{0}}}
			if savedBaseVars(o) == 2 {
				vars = append(vars, &h5.Dataset{DType: h5.Float32, Float32: []float32{float32(c.rateOf(o, 0))}})
			}
		}
		class := o.Name()
		if obj, err := optimizers.Serialize(o); err == nil {
			class = obj.ClassName
		}
		own := root.Group(saving.OptimizerPath + "/optimizers/" + serialization.UniqueName(serialization.SnakeCase(class), used) + "/vars")
		own.Attrs["name"] = o.Name()
		for i, v := range vars {
			own.Datasets[strconv.Itoa(i)] = v
		}
		all = append(all, vars...)
	}
	for i, v := range all {
		g.Datasets[strconv.Itoa(i)] = v
	}
	return nil
}

// weightDataset is w's value as Keras stores it: float32, or int64 for
// an integer variable.
func weightDataset(w *layers.Weight, value []float32) *h5.Dataset {
	if !w.Integer {
		return &h5.Dataset{Shape: w.Shape.Clone(), DType: h5.Float32, Float32: value}
	}
	ints := make([]int64, len(value))
	for i, v := range value {
		ints[i] = int64(math.Round(float64(v)))
	}
	return &h5.Dataset{Shape: w.Shape.Clone(), DType: h5.Int64, Int64: ints}
}

// savedBaseVars is how many variables Keras saves before an optimizer's
// slots: its iteration count, and its learning rate unless a schedule
// gives the rate (Keras then keeps no learning-rate variable).
func savedBaseVars(o optimizers.Optimizer) int {
	if optimizers.Schedule(o) != nil {
		return 1
	}
	return 2
}

// optimizerVars returns an optimizer's state in Keras's order: the
// iteration count, the learning rate (unless a schedule gives it), then
// for each parameter its slots.
func optimizerVars(sl *optSlot, iterations int64, rate float64, state [][]float32) ([]*h5.Dataset, error) {
	if l, ok := optimizers.AsLossScale(sl.opt); ok {
		// Keras's LossScaleOptimizer: its own iteration count (never
		// advanced) and learning rate (0), its step counter and scale,
		// then its inner optimizer's variables.
		own := []*h5.Dataset{{DType: h5.Int64, Int64: []int64{0}}, {DType: h5.Float32, Float32: []float32{0}},
			{DType: h5.Int64, Int64: []int64{int64(math.Round(float64(state[0][0])))}}, {DType: h5.Float32, Float32: []float32{state[1][0]}}}
		inner, err := optimizerVars(&optSlot{opt: l.Inner, specs: sl.specs[2:]}, iterations, rate, state[2:])
		return append(own, inner...), err
	}
	vars := []*h5.Dataset{{DType: h5.Int64, Int64: []int64{iterations}}}
	if savedBaseVars(sl.opt) == 2 {
		vars = append(vars, &h5.Dataset{DType: h5.Float32, Float32: []float32{float32(rate)}})
	}
	pos, count := optimizers.SavedPositions(sl.specs)
	slots := make([]*h5.Dataset, count)
	for i, s := range sl.specs {
		if pos[i] < 0 {
			continue
		}
		if s.Placeholder {
			slots[pos[i]] = &h5.Dataset{Shape: s.Shape.Clone(), DType: h5.Int64, Int64: make([]int64, s.Shape.Size())}
			continue
		}
		slots[pos[i]] = &h5.Dataset{Shape: s.Shape.Clone(), DType: h5.Float32, Float32: state[i]}
	}
	for i, s := range slots {
		if s == nil {
			return nil, fmt.Errorf("optimizer %s: no state for saved slot variable %d", sl.opt.Name(), i)
		}
	}
	return append(vars, slots...), nil
}

// loadWeightsH5 sets the model's weights (and, with withOptimizer, the
// compiled optimizer's state) from a Keras weights file, laid out in
// Keras's order of the layers, or in kerasgo 0.1.0-dev's (preferred with
// preferLegacy; see loadInEitherOrder). The optimizer's state of a file
// in the legacy order is not loaded: it starts afresh.
func (m *Model) loadWeightsH5(f *h5.File, withOptimizer, preferLegacy bool) error {
	order, err := m.loadInEitherOrder(preferLegacy, func(order layerOrder) error {
		return m.loadWeightsH5In(f, order)
	})
	if err != nil {
		return err
	}
	if !withOptimizer || order == legacyOrder || m.currentCompiled() == nil || !(f.HasGroup(saving.OptimizerPath+"/vars") || f.HasGroup(saving.OptimizerPath+"_1/vars")) {
		return nil
	}
	return m.loadOptimizerState(f)
}

// loadWeightsH5In sets the model's weights from a weights file laid out
// in the given order of the layers.
func (m *Model) loadWeightsH5In(f *h5.File, order layerOrder) error {
	err := m.loadWeightsFrom("the weights file", order, func(p string, shape []int) ([]float32, error) {
		info := f.Dataset(p)
		if info == nil {
			return nil, errMissing
		}
		if !backend.Shape(info.Shape).Equal(shape) {
			return nil, fmt.Errorf("%s has shape %v, the layer needs %v", p, backend.Shape(info.Shape), backend.Shape(shape))
		}
		return datasetFloat32(f, p)
	}, func(prefix string) int { return len(numbered(f.Children(prefix))) }, -1)
	if err != nil {
		return err
	}
	if err := m.loadOwnVariables(f, order); err != nil {
		return err
	}
	if extra := unexpectedLayers(f.Children("layers"), m, order); len(extra) > 0 {
		return fmt.Errorf("the weights file has variables for layers this model does not have (%v): it was saved from another architecture", extra)
	}
	return nil
}

func unexpectedLayers(inFile []string, m *Model, order layerOrder) []string {
	_, paths := m.layerPaths(order)
	ours := map[string]bool{}
	for _, p := range paths {
		ours[strings.TrimPrefix(p, "layers/")] = true
	}
	var extra []string
	for _, n := range inFile {
		if !ours[n] {
			extra = append(extra, n)
		}
	}
	return extra
}

// loadWeightsFrom reads each layer's variables through read (which
// returns errMissing for an absent one) and checks that the file has no
// more variables per layer than the layer has. total, when not negative,
// is the number of tensors in the file, which must all be used.
func (m *Model) loadWeightsFrom(file string, order layerOrder, read func(path string, shape []int) ([]float32, error), count func(prefix string) int, total int) error {
	index := map[*layers.Weight]int{}
	for i, w := range m.weights {
		index[w] = i
	}
	values := make([][]float32, len(m.weights))
	used := 0
	for _, wg := range m.weightGroupsIn(order) {
		l, prefix, ws := wg.layer, wg.path+"/vars", wg.vars
		for j, w := range ws {
			p := prefix + "/" + strconv.Itoa(j)
			v, err := read(p, w.Shape)
			if errors.Is(err, errMissing) {
				return fmt.Errorf("layer %s: %s has no variable %s (the layer's %s, shape %v): it was saved from another architecture", layers.Describe(l), file, p, w.Name, w.Shape)
			}
			if err != nil {
				return fmt.Errorf("layer %s: %w", layers.Describe(l), err)
			}
			values[index[w]] = v
			used++
		}
		if n := count(prefix); n > len(ws) {
			return fmt.Errorf("layer %s: %s holds %d variables under %s, the layer has %d: it was saved from another architecture", layers.Describe(l), file, n, prefix, len(ws))
		}
	}
	if total >= 0 && total != used {
		return fmt.Errorf("%s holds %d tensors, this model has %d weights: it was saved from another architecture", file, total, used)
	}
	return m.SetWeights(values)
}

// loadOptimizerState restores the compiled optimizer's state from Keras's
// optimizer variables. A file whose variables do not fit the optimizer
// gives errOptimizerMismatch.
func (m *Model) loadOptimizerState(f *h5.File) error {
	m.mu.Lock()
	c := m.compiled
	err := m.ready()
	m.mu.Unlock()
	if err != nil {
		return err
	}
	if len(c.slots) == 0 {
		return fmt.Errorf("%w: the training step has not run yet, so its optimizers are not known", errOptimizerMismatch)
	}
	if multi, ok := optimizers.AsMulti(c.opt); ok {
		state := make([][]float32, len(c.optSpecs))
		iterations, err := readMultiState(f, c, multi, state)
		if err != nil {
			return err
		}
		shapes := make([]backend.Shape, len(c.optSpecs))
		for i, sp := range c.optSpecs {
			shapes[i] = sp.Shape
		}
		uploaded, err := upload(c.be, state, shapes)
		if err != nil {
			return err
		}
		return c.bind.publish(stateChange{optState: uploaded, iterations: &iterations}, nil)
	}
	if extra := c.slotPath(len(c.slots)) + "/vars"; f.HasGroup(extra) {
		return fmt.Errorf("%w: the file holds the state of more optimizers (%s) than the training step applies (%d)", errOptimizerMismatch, extra, len(c.slots))
	}
	state := make([][]float32, len(c.optSpecs))
	shapes := make([]backend.Shape, len(c.optSpecs))
	var iterations int64
	for k, sl := range c.slots {
		it, err := readSlotState(f, c.slotPath(k), sl, state[sl.offset:sl.offset+len(sl.specs)])
		if err != nil {
			return err
		}
		if k == 0 {
			iterations = it
		} else if it != iterations {
			return fmt.Errorf("%w: the file's optimizers have taken %d and %d steps: they must be those of one training step", errOptimizerMismatch, iterations, it)
		}
		for i, sp := range sl.specs {
			shapes[sl.offset+i] = sp.Shape
		}
	}
	uploaded, err := upload(c.be, state, shapes)
	if err != nil {
		return err
	}
	return c.bind.publish(stateChange{optState: uploaded, iterations: &iterations}, nil)
}

// readMultiState reads a MultiOptimizer's state, saved as writeMultiState
// writes it (Keras's layout), into state and returns its iteration
// count. A file saved before the first step holds each optimizer's
// iteration count and learning rate alone: the slots start afresh.
func readMultiState(f *h5.File, c *compiled, multi *optimizers.MultiOptimizer, state [][]float32) (int64, error) {
	slots, err := multiSlots(c, multi)
	if err != nil {
		return 0, err
	}
	path := saving.OptimizerPath
	inner := multi.Optimizers()
	built, unbuilt := 2, 2
	for _, o := range inner {
		built, unbuilt = built+savedBaseVars(o), unbuilt+savedBaseVars(o)
		if sl := slots[o]; sl != nil {
			_, count := optimizers.SavedPositions(sl.specs)
			built += count
		}
	}
	n := len(numbered(f.Children(path + "/vars")))
	if n != built && n != unbuilt {
		return 0, fmt.Errorf("%w: the file holds %d variables under %s, the MultiOptimizer's %d optimizers need %d (or %d before their first step)", errOptimizerMismatch, n, path, len(inner), built, unbuilt)
	}
	d, err := f.Read(path + "/vars/0")
	if err != nil || len(d.Shape) != 0 {
		return 0, fmt.Errorf("%w: the MultiOptimizer's iteration count (%s/vars/0) is missing or not a scalar", errOptimizerMismatch, path)
	}
	iterations := int64(scalarOf(d))
	first := 2
	for _, o := range inner {
		size := savedBaseVars(o)
		if sl := slots[o]; sl != nil {
			if _, count := optimizers.SavedPositions(sl.specs); n == built {
				size += count
			}
			it, err := readSlotStateAt(f, path, first, size, sl, state[sl.offset:sl.offset+len(sl.specs)])
			if err != nil {
				return 0, err
			}
			if it != iterations {
				return 0, fmt.Errorf("%w: the MultiOptimizer has taken %d steps and its optimizer %s %d: they must be those of one training step", errOptimizerMismatch, iterations, o.Name(), it)
			}
		}
		first += size
	}
	return iterations, nil
}

// readSlotState reads one optimizer's state, saved by optimizerVars under
// path, into state (laid out as the slot's specs) and returns its
// iteration count.
func readSlotState(f *h5.File, path string, sl *optSlot, state [][]float32) (int64, error) {
	return readSlotStateAt(f, path, 0, -1, sl, state)
}

// readSlotStateAt is readSlotState for an optimizer whose variables start
// at index first (a LossScaleOptimizer's inner optimizer's, after its own
// four; a MultiOptimizer's optimizers', one after another) and are size
// in number (-1: all those after first).
func readSlotStateAt(f *h5.File, path string, first, size int, sl *optSlot, state [][]float32) (int64, error) {
	if l, ok := optimizers.AsLossScale(sl.opt); ok {
		for i, name := range []string{"step counter", "scale"} {
			p := fmt.Sprintf("%s/vars/%d", path, first+2+i)
			d, err := f.Read(p)
			if err != nil || len(d.Shape) != 0 {
				return 0, fmt.Errorf("%w: the LossScaleOptimizer's %s (%s) is missing or not a scalar", errOptimizerMismatch, name, p)
			}
			state[i] = []float32{float32(scalarOf(d))}
		}
		if size >= 0 {
			size -= 4
		}
		return readSlotStateAt(f, path, first+4, size, &optSlot{opt: l.Inner, specs: sl.specs[2:]}, state[2:])
	}
	pos, count := optimizers.SavedPositions(sl.specs)
	base := savedBaseVars(sl.opt)
	names := f.Children(path + "/vars")
	if len(names) < first {
		return 0, fmt.Errorf("%w: the file holds %d variables under %s, fewer than a LossScaleOptimizer's own", errOptimizerMismatch, len(names), path)
	}
	names = names[first:]
	if size >= 0 && size < len(names) {
		names = names[:size]
	}
	// A model compiled and saved before it trained (Keras builds its
	// optimizer's slots on the first step) holds only the base variables:
	// its slots start afresh.
	unbuilt := len(names) == base && count > 0
	if len(names) != base+count && !unbuilt {
		return 0, fmt.Errorf("%w: the file holds %d variables under %s, optimizer %s needs %d", errOptimizerMismatch, len(names), path, sl.opt.Name(), base+count)
	}
	readVar := func(i int, shape []int) (*h5.Dataset, error) {
		p := fmt.Sprintf("%s/vars/%d", path, first+i)
		info := f.Dataset(p)
		if info == nil || !backend.Shape(info.Shape).Equal(shape) {
			return nil, fmt.Errorf("%w: %s is missing or not of shape %v", errOptimizerMismatch, p, shape)
		}
		return f.Read(p)
	}
	it, err := readVar(0, nil)
	if err != nil {
		return 0, err
	}
	iterations := int64(scalarOf(it))
	if iterations < 0 {
		return 0, fmt.Errorf("the optimizer's saved iteration count %d is negative", iterations)
	}
	for i, s := range sl.specs {
		switch {
		case pos[i] >= 0 && !unbuilt:
			d, err := readVar(base+pos[i], s.Shape)
			if err != nil {
				return 0, err
			}
			if s.Placeholder { // never updated: any number type, kept at its start
				state[i] = make([]float32, s.Shape.Size())
				continue
			}
			if d.DType != h5.Float32 {
				return 0, fmt.Errorf("optimizer variable %d holds %s values, want float32", base+pos[i], d.Stored)
			}
			state[i] = d.Float32
		case s.FromIterations != nil:
			state[i] = []float32{float32(s.FromIterations(optimizers.Updates(sl.opt, iterations)))}
		default:
			state[i] = make([]float32, s.Shape.Size())
			for j := range state[i] {
				state[i][j] = float32(s.Init)
			}
		}
	}
	return iterations, nil
}
