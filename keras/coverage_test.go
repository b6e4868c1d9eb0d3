package keras_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/internal/kerasref"
	"github.com/kerasgo/kerasgo/keras/activations"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/metrics"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

var updateCoverage = flag.Bool("update-coverage", false, "rewrite docs/coverage.md from testdata/keras_api.json")

// coveredElsewhere are the Keras names kerasgo has outside a registry
// the test can ask: the callbacks, datasets and utilities, the abstract
// Wrapper, MultiOptimizer and the threshold activation, by their Go
// names.
var coveredElsewhere = map[string]map[string]string{
	"optimizers":  {"MultiOptimizer": "optimizers.MultiOptimizer (its config holds an OptimizerMap)"},
	"activations": {"threshold": "activations.Threshold (its two settings have no defaults, so, as in Keras, it has no name a layer takes)"},
	"layers":      {"Wrapper": "layers.Wrapper (a base to embed: abstract, as Keras's, so no class of its own to load)"},
	"callbacks": {
		"BackupAndRestore": "callbacks.BackupAndRestore", "CSVLogger": "callbacks.CSVLogger", "EarlyStopping": "callbacks.EarlyStopping",
		"History": "keras.History (Fit's result)", "LambdaCallback": "callbacks.LambdaCallback", "LearningRateScheduler": "callbacks.LearningRateScheduler",
		"ModelCheckpoint": "callbacks.ModelCheckpoint", "ProgbarLogger": "callbacks.Progbar", "ReduceLROnPlateau": "callbacks.ReduceLROnPlateau",
		"RemoteMonitor": "callbacks.RemoteMonitor", "SwapEMAWeights": "callbacks.SwapEMAWeights", "TensorBoard": "callbacks.TensorBoard", "TerminateOnNaN": "callbacks.TerminateOnNaN",
	},
	"datasets": {"mnist": "datasets/mnist", "fashion_mnist": "datasets/mnist (\"fashion\")", "cifar10": "datasets/cifar10", "cifar100": "datasets/cifar100",
		"imdb": "datasets/imdb", "reuters": "datasets/reuters", "boston_housing": "datasets/bostonhousing", "california_housing": "datasets/californiahousing"},
	"utils": {
		"get_file": "utils.GetFile", "image_dataset_from_directory": "utils.ImageDatasetFromDirectory", "img_to_array": "utils.ImgToArray",
		"load_img": "utils.LoadImg", "pad_sequences": "utils.PadSequences", "save_img": "utils.SaveImg",
		"text_dataset_from_directory": "utils.TextDatasetFromDirectory", "timeseries_dataset_from_array": "utils.TimeseriesDatasetFromArray",
		"to_categorical": "utils.ToCategorical", "array_to_img": "utils.ArrayToImg", "split_dataset": "utils.SplitDataset", "plot_model": "utils.PlotModel", "model_to_dot": "utils.ModelToDot (keras.Model.ToDot)", "audio_dataset_from_directory": "utils.AudioDatasetFromDirectory", "normalize": "utils.Normalize", "set_random_seed": "utils.SetRandomSeed (keras.SetRandomSeed)", "register_keras_serializable": "keras.RegisterLayer, losses.Register, metrics.Register",
		"serialize_keras_object":   "serialization.NewObject and each package's Serialize",
		"deserialize_keras_object": "layers.FromConfig and each package's Deserialize", "get_source_inputs": "utils.GetSourceInputs",
		"PyDataset": "keras.Dataset (keras.EpochEnder for on_epoch_end), fed by keras.Batches", "Sequence": "keras.Dataset (Sequence is PyDataset's old name)",
		"pack_x_y_sample_weight": "keras.Batch{X, Y, SampleWeight}: a struct, nothing to pack", "unpack_x_y_sample_weight": "keras.Batch's fields",
		"standardize_dtype": "backend.ParseDType", "clear_session": "keras.ClearSession", "Progbar": "utils.Progbar",
		"FeatureSpace": "utils.FeatureSpace", "bounding_boxes": "package utils/boundingboxes",
	},
}

// missingBecause says why each name kerasgo does not have is missing;
// docs/coverage.md lists the reasons.
var missingBecause = map[string]string{
	"OrbaxCheckpoint":                "Orbax is JAX's checkpoint library (Keras's callback needs JAX); ModelCheckpoint and BackupAndRestore keep kerasgo's training",
	"Config":                         "a Python attribute dictionary; Go's structs and the typed options are kerasgo's configs",
	"CustomObjectScope":              "a Python context manager for scoped registrations; kerasgo's registries (keras.RegisterLayer, losses.Register, metrics.Register) are process-wide",
	"custom_object_scope":            "as CustomObjectScope",
	"get_custom_objects":             "the registries are listed by layers.Registered (and each package's); Python's dict of classes has no Go counterpart",
	"get_registered_name":            "a registered Go layer's class name is its ClassName",
	"get_registered_object":          "LoadModel finds registered layers by class name; there are no Python classes to return",
	"clear_session":                  "kerasgo keeps no global graph or name counters (layers are named per model), so there is nothing to clear",
	"disable_interactive_logging":    "a process-wide switch: kerasgo's progress output is chosen per call (Verbose) and changes nothing process-wide",
	"enable_interactive_logging":     "as disable_interactive_logging",
	"is_interactive_logging_enabled": "as disable_interactive_logging",
	"is_keras_tensor":                "Go's types answer it: a symbolic value is a *layers.KerasTensor",
}

// savedAs are the layer classes Keras lists by their Python name but
// exports and saves under another: Keras 3.15.1's GroupedQueryAttention
// is keras.layers.GroupQueryAttention, and its files say so.
var savedAs = map[string]string{"GroupedQueryAttention": "GroupQueryAttention"}

// knownBy says whether kerasgo has a name of an area.
func knownBy(area, name string) bool {
	switch area {
	case "layers", "preprocessing":
		if saved, ok := savedAs[name]; ok {
			name = saved
		}
		if layers.IsKerasClass(name) {
			return true
		}
	case "losses":
		_, err := losses.Get(name)
		return err == nil
	case "metrics":
		if name == "Mean" || name == "Sum" { // trackers: Go types, not compiled metrics
			return true
		}
		_, err := metrics.Deserialize(map[string]any{"class_name": name, "config": map[string]any{}})
		return err == nil || !strings.Contains(err.Error(), "has no")
	case "optimizers":
		_, err := optimizers.Get(name)
		if err != nil { // a wrapper, read from its config with the optimizer it wraps
			_, err = optimizers.Deserialize(map[string]any{"class_name": name, "config": map[string]any{"inner_optimizer": "sgd"}})
		}
		if err == nil {
			return true
		}
	case "activations":
		if _, err := activations.Get(name); err == nil {
			return true
		}
	}
	_, ok := coveredElsewhere[area][name]
	return ok
}

// coverageAreas are the areas in the order docs/coverage.md gives them.
var coverageAreas = []string{"layers", "preprocessing", "losses", "metrics", "optimizers", "callbacks", "activations", "datasets", "utils"}

// Every public name of Keras's API (testdata/keras_api.json, listed from
// the installed Keras by scripts/keras-api.py), area by area, is one
// kerasgo has or one docs/coverage.md lists as missing: the page is
// generated from the same lists (go test ./keras -run TestKerasCoverage
// -update-coverage), so that its counts are measured, not typed.
func TestKerasCoverage(t *testing.T) {
	var api struct {
		Keras string              `json:"keras"`
		Areas map[string][]string `json:"areas"`
	}
	kerasref.ReadJSON(t, filepath.Join("testdata", "keras_api.json"), &api)
	var b strings.Builder
	fmt.Fprintf(&b, "# Coverage of Keras's API\n\n<!-- Generated by `go test ./keras -run TestKerasCoverage -update-coverage` from the API Keras %s lists (scripts/keras-api.py). Do not edit. -->\n\n", api.Keras)
	b.WriteString("What kerasgo has of each area of Keras's public API, counted against the\nnames the installed Keras lists (one name per class: aliases such as\n`AvgPool2D` are read as their class). Each page of the docs says how a\npiece is checked against Keras; the list under the table says why each\nmissing name is missing.\n\n")
	b.WriteString("| area | kerasgo / Keras | missing |\n| --- | --- | --- |\n")
	var reasons []string
	for _, area := range coverageAreas {
		names := api.Areas[area]
		if len(names) == 0 {
			t.Fatalf("testdata/keras_api.json lists no %s: run scripts/keras-api.py", area)
		}
		var missing []string
		for _, n := range names {
			if !knownBy(area, n) {
				missing = append(missing, n)
			}
		}
		sort.Strings(missing)
		list := "none"
		if len(missing) > 0 {
			list = "`" + strings.Join(missing, "`, `") + "`"
		}
		fmt.Fprintf(&b, "| %s | %d / %d | %s |\n", area, len(names)-len(missing), len(names), list)
	}
	b.WriteString("\nWhy each missing name is missing:\n\n")
	for _, area := range coverageAreas {
		for _, n := range api.Areas[area] {
			if knownBy(area, n) {
				continue
			}
			why, ok := missingBecause[n]
			if !ok {
				t.Errorf("keras.%s.%s is missing and missingBecause does not say why", area, n)
			}
			reasons = append(reasons, fmt.Sprintf("- `%s.%s`: %s\n", area, n, why))
		}
	}
	sort.Strings(reasons)
	b.WriteString(strings.Join(reasons, ""))
	b.WriteString("\nBeyond the names: `keras.ops` has its own table, [ops](ops.md).\n")
	page := filepath.Join("..", "docs", "coverage.md")
	if *updateCoverage {
		if err := os.WriteFile(page, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != b.String() {
		t.Errorf("docs/coverage.md is not what kerasgo has now: run go test ./keras -run TestKerasCoverage -update-coverage\nwant:\n%s", b.String())
	}
}

// testdata/keras_api.json lists what the installed Keras exports
// (scripts/keras-api.py --check); skipped without `make keras-env`.
func TestKerasAPIListIsCurrent(t *testing.T) {
	python := kerasref.Python(t)
	t.Logf("%s", kerasref.Run(t, python, kerasref.Script(t, "keras-api.py"), "--check"))
}
