package keras

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kerasgo/kerasgo/internal/h5"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/saving"
)

// LoadWeightsOptions are the arguments of Keras's load_weights beside the
// path.
type LoadWeightsOptions struct {
	// ByName loads each layer's weights from the layer of the same name in
	// the file, and leaves the layers the file does not name as they are
	// (Keras's by_name=True). Only for files in the legacy HDF5 layout
	// (.h5), as in Keras.
	ByName bool
	// SkipMismatch leaves a layer's weight as it is when the file's has
	// another shape (and, with ByName, a layer whose number of weights
	// differs), as Keras's skip_mismatch=True does; each skip is a line
	// of Model.Notes, where Keras warns. Only for legacy .h5 files here.
	SkipMismatch bool
}

// isH5Format reports whether path names a file in Keras's legacy HDF5
// layout (model.save("x.h5"), save_weights("x.h5"), Keras 2's and
// tf.keras's files, the weights keras.applications downloads), as Keras
// 3's load_weights decides it: by the name.
func isH5Format(path string) bool {
	return !strings.HasSuffix(path, ".weights.h5") && (strings.HasSuffix(path, ".h5") || strings.HasSuffix(path, ".hdf5"))
}

// loadH5FormatWeights sets the model's weights from a file in the legacy
// HDF5 layout, as Keras 3's legacy_h5_format does: the root group (or
// model_weights, in a whole-model file) lists the layers in
// "layer_names"; each layer's group lists its weights in
// "weight_names", in the order of the layer's trainable weights then its
// other weights. Without ByName, the layers with weights are matched in
// order (topological loading), and every one must fit.
func (m *Model) loadH5FormatWeights(f *h5.File, path string, o LoadWeightsOptions) error {
	group := ""
	if _, ok := h5FormatNames(f, "", "layer_names"); !ok && f.HasGroup("model_weights") {
		group = "model_weights"
	}
	names, ok := h5FormatNames(f, group, "layer_names")
	if !ok {
		return fmt.Errorf("%s is not a Keras weights file in the HDF5 layout: it has no layer_names attribute (a Keras 3 weights file is named .weights.h5)", path)
	}
	if own, _ := h5FormatNames(f, join(group, "top_level_model_weights"), "weight_names"); len(own) > 0 {
		return fmt.Errorf("%s holds top-level model weights (a subclassed model's own variables), which kerasgo's models do not have", path)
	}
	index := map[*layers.Weight]int{}
	for i, w := range m.weights {
		index[w] = i
	}
	values := make([][]float32, len(m.weights))
	var notes []string
	trainable := map[*layers.Weight]bool{}
	for _, w := range m.TrainableWeights() {
		trainable[w] = true
	}
	load := func(k int, l layers.Layer, layerGroup string, byName bool) error {
		weightNames, _ := h5FormatNames(f, layerGroup, "weight_names")
		ws := legacyWeights(l, trainable)
		described := fmt.Sprintf("layer #%d (named %s", k, l.Common().Name)
		if !byName && layerGroup != join(group, l.Common().Name) {
			described += fmt.Sprintf(" in this model, %s in the file", strings.TrimPrefix(layerGroup, group+"/"))
		}
		described += ")"
		if len(weightNames) != len(ws) {
			msg := fmt.Sprintf("weight count mismatch for %s: the layer has %d weight(s), the file %d", described, len(ws), len(weightNames))
			if byName && o.SkipMismatch {
				notes = append(notes, "LoadWeights skipped "+msg)
				return nil
			}
			return fmt.Errorf("%s: %s: it was saved from another architecture", path, msg)
		}
		for i, wn := range weightNames {
			p := join(layerGroup, wn)
			info := f.Dataset(p)
			if info == nil {
				return fmt.Errorf("%s: %s lists the weight %q, which the file does not hold", path, described, wn)
			}
			w := ws[i]
			if !backend.Shape(info.Shape).Equal(w.Shape) {
				msg := fmt.Sprintf("shape mismatch in %s for weight %s: the weight has shape %v, the file's %s has shape %v", described, w.Name, w.Shape, wn, backend.Shape(info.Shape))
				if o.SkipMismatch {
					notes = append(notes, "LoadWeights skipped the "+msg)
					continue
				}
				return fmt.Errorf("%s: %s: it was saved from another architecture (SkipMismatch leaves such weights as they are)", path, msg)
			}
			v, err := datasetFloat32(f, p)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", path, described, err)
			}
			values[index[w]] = v
		}
		return nil
	}
	if o.ByName {
		byName := map[string][]layers.Layer{}
		for _, l := range m.Layers() {
			byName[l.Common().Name] = append(byName[l.Common().Name], l)
		}
		for k, name := range names {
			for _, l := range byName[name] {
				if err := load(k, l, join(group, name), true); err != nil {
					return err
				}
			}
		}
	} else {
		var withWeights []layers.Layer
		for _, l := range m.Layers() {
			if len(legacyWeights(l, trainable)) > 0 {
				withWeights = append(withWeights, l)
			}
		}
		var saved []string
		for _, name := range names {
			if wn, _ := h5FormatNames(f, join(group, name), "weight_names"); len(wn) > 0 {
				saved = append(saved, name)
			}
		}
		if len(saved) != len(withWeights) {
			return fmt.Errorf("%s: layer count mismatch: the model has %d layers with weights, the file %d: it was saved from another architecture (ByName loads the layers of the same name only)", path, len(withWeights), len(saved))
		}
		for k, name := range saved {
			if err := load(k, withWeights[k], join(group, name), false); err != nil {
				return err
			}
		}
	}
	current, err := m.GetWeights()
	if err != nil {
		return err
	}
	for i, v := range values {
		if v == nil {
			values[i] = current[i]
		}
	}
	if err := m.SetWeights(values); err != nil {
		return err
	}
	m.loadNotes = append(m.loadNotes, notes...)
	return nil
}

// loadH5FormatModel reads a whole model saved in Keras's legacy HDF5
// layout (model.save("x.h5")), as Keras 3's load_model does: the model's
// config from the root's "model_config" attribute, its weights from
// model_weights, its compile settings from "training_config" and the
// optimizer's state from optimizer_weights (skipped with a note when it
// does not fit the optimizer, as Keras skips it).
func loadH5FormatModel(path string, o LoadOptions) (*Model, error) {
	f, err := h5.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	cfg, ok := f.Attr("", "model_config")
	if !ok || len(cfg) != 1 {
		if _, weights := h5FormatNames(f, "", "layer_names"); weights {
			return nil, fmt.Errorf("%s holds weights only (save_weights): build the model, then LoadWeights", path)
		}
		return nil, fmt.Errorf("%s has no model config: it is not a model saved by Keras's model.save in the HDF5 layout", path)
	}
	data, err := keras2Config([]byte(cfg[0]))
	if err != nil {
		return nil, fmt.Errorf("%s: model_config: %w", path, err)
	}
	top, err := decodeSavedModel(data)
	if err != nil {
		return nil, fmt.Errorf("%s: model_config: %w", path, err)
	}
	if tc, ok := f.Attr("", "training_config"); ok && len(tc) == 1 {
		cc, err := compileConfigOfTraining(tc[0])
		if err != nil {
			return nil, fmt.Errorf("%s: training_config: %w", path, err)
		}
		top.CompileConfig = cc
	}
	m, err := fromConfig(top)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := m.loadH5FormatWeights(f, path, LoadWeightsOptions{}); err != nil {
		return nil, err
	}
	lr, found := h5FormatLearningRate(f)
	compiled, err := m.compileLoaded(top.CompileConfig, o, lr, found)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if names, _ := h5FormatNames(f, "optimizer_weights", "weight_names"); compiled && len(names) > 0 {
		view, err := m.h5FormatOptimizerView(f, names)
		if err == nil {
			err = m.loadOptimizerState(view)
		}
		if errors.Is(err, errOptimizerMismatch) {
			// Keras's legacy loader warns "Error in loading the saved
			// optimizer state" and starts the optimizer afresh.
			m.loadNotes = append(m.loadNotes, fmt.Sprintf("the optimizer's saved state was skipped, as Keras skips it (\"Error in loading the saved optimizer state\"): %v; training starts the optimizer afresh", err))
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return m, nil
}

// h5FormatOptimizerView lays a legacy file's optimizer weights out as a
// Keras 3 weights file holds them (optimizer/vars/0, 1, ...), for
// loadOptimizerState. Keras 3's legacy writer lists optimizer.variables:
// the iteration count, the learning rate, then each parameter's slots
// ("adam/dense_kernel_momentum", "..._velocity"); tf.keras the same
// without the learning rate ("iteration:0", "Adam/m/dense/kernel:0", ...),
// for which the compiled optimizer's is put in.
func (m *Model) h5FormatOptimizerView(f *h5.File, names []string) (*h5.File, error) {
	opt := m.Optimizer()
	vars := h5.NewGroup()
	root := vars
	vars = root.Group(saving.OptimizerPath + "/vars")
	i := 0
	for k, n := range names {
		d, err := f.Read(join("optimizer_weights", n))
		if err != nil {
			return nil, err
		}
		vars.Datasets[strconv.Itoa(i)] = d
		i++
		hasRate := len(names) > 1 && (strings.HasSuffix(names[1], "learning_rate") || strings.HasSuffix(names[1], "learning_rate:0"))
		if lr := optimizers.LearningRate(opt); k == 0 && !hasRate && lr != nil && optimizers.Schedule(opt) == nil {
			vars.Datasets[strconv.Itoa(i)] = &h5.Dataset{DType: h5.Float32, Float32: []float32{float32(*lr)}}
			i++
		}
	}
	var buf bytes.Buffer
	if _, err := h5.Write(&buf, root); err != nil {
		return nil, err
	}
	return h5.OpenReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
}

// compileConfigOfTraining turns a legacy file's training_config (loss,
// metrics, loss_weights, weighted_metrics and the optimizer's
// optimizer_config) into Keras 3's compile_config.
func compileConfigOfTraining(s string) (map[string]any, error) {
	top, err := decodeSavedModel([]byte(`{"class_name": "training_config", "compile_config": ` + s + `}`))
	if err != nil {
		return nil, err
	}
	tc := top.CompileConfig
	keras2TrainingConfig(tc)
	cc := map[string]any{}
	for _, k := range []string{"loss", "metrics", "loss_weights", "weighted_metrics"} {
		if v, ok := tc[k]; ok {
			cc[k] = v
		}
	}
	if opt, ok := tc["optimizer_config"]; ok {
		cc["optimizer"] = opt
	}
	return cc, nil
}

// h5FormatLearningRate is the learning rate a legacy file's optimizer
// weights hold (".../learning_rate"), if any.
func h5FormatLearningRate(f *h5.File) (float64, bool) {
	names, _ := h5FormatNames(f, "optimizer_weights", "weight_names")
	for _, n := range names {
		if strings.HasSuffix(n, "/learning_rate") || strings.HasSuffix(n, "/learning_rate:0") {
			v, err := datasetFloat32(f, join("optimizer_weights", n))
			if err == nil && len(v) == 1 {
				return float64(v[0]), true
			}
		}
	}
	return 0, false
}

// h5FormatNames reads a list of names from a group's attribute, joined
// from its chunks ("layer_names0", "layer_names1", ...) where Keras split
// one too large for an HDF5 object header.
func h5FormatNames(f *h5.File, group, name string) ([]string, bool) {
	if v, ok := f.Attr(group, name); ok {
		return v, true
	}
	var out []string
	found := false
	for i := 0; ; i++ {
		v, ok := f.Attr(group, name+strconv.Itoa(i))
		if !ok {
			return out, found
		}
		found = true
		out = append(out, v...)
	}
}

// legacyWeights is Keras's _legacy_weights: a layer's trainable weights,
// then its other weights, as the legacy HDF5 layout orders them.
// trainable holds the model's trainable weights.
func legacyWeights(l layers.Layer, trainable map[*layers.Weight]bool) []*layers.Weight {
	all := layerWeights(l)
	var first, rest []*layers.Weight
	for _, w := range all {
		if trainable[w] {
			first = append(first, w)
		} else {
			rest = append(rest, w)
		}
	}
	return append(first, rest...)
}

// join joins HDF5 path parts, skipping an empty group.
func join(group, name string) string {
	if group == "" {
		return name
	}
	return group + "/" + name
}

// datasetFloat32 reads a dataset of numbers as float32: Keras's float32
// weights, float64 ones, or an integer variable (Normalization's count).
func datasetFloat32(f *h5.File, p string) ([]float32, error) {
	d, err := f.Read(p)
	if err != nil {
		return nil, err
	}
	switch d.DType {
	case h5.Float32:
		return d.Float32, nil
	case h5.Float64:
		out := make([]float32, len(d.Float64))
		for i, v := range d.Float64 {
			out[i] = float32(v)
		}
		return out, nil
	case h5.Int64:
		out := make([]float32, len(d.Int64))
		for i, v := range d.Int64 {
			out[i] = float32(v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s holds %s values, not numbers", p, d.Stored)
}
