package applications_test

import (
	"archive/zip"
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/internal/kerasref"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/applications"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
)

// constructors are the networks by the name Keras gives them.
var constructors = map[string]func(applications.Options) (*keras.Model, error){
	"resnet50":            applications.ResNet50,
	"resnet101":           applications.ResNet101,
	"resnet152":           applications.ResNet152,
	"resnet50v2":          applications.ResNet50V2,
	"resnet101v2":         applications.ResNet101V2,
	"resnet152v2":         applications.ResNet152V2,
	"vgg16":               applications.VGG16,
	"vgg19":               applications.VGG19,
	"densenet121":         applications.DenseNet121,
	"densenet169":         applications.DenseNet169,
	"densenet201":         applications.DenseNet201,
	"xception":            applications.Xception,
	"inception_v3":        applications.InceptionV3,
	"inception_resnet_v2": applications.InceptionResNetV2,
	"mobilenet": func(o applications.Options) (*keras.Model, error) {
		return applications.MobileNet(applications.MobileNetOptions{Options: o})
	},
	"mobilenetv2": func(o applications.Options) (*keras.Model, error) {
		return applications.MobileNetV2(applications.MobileNetV2Options{Options: o})
	},
	"mobilenetv3small": func(o applications.Options) (*keras.Model, error) {
		return applications.MobileNetV3Small(applications.MobileNetV3Options{Options: o})
	},
	"mobilenetv3large": func(o applications.Options) (*keras.Model, error) {
		return applications.MobileNetV3Large(applications.MobileNetV3Options{Options: o})
	},
	"convnext_tiny": func(o applications.Options) (*keras.Model, error) {
		return applications.ConvNeXtTiny(applications.ConvNeXtOptions{Options: o})
	},
	"convnext_small": func(o applications.Options) (*keras.Model, error) {
		return applications.ConvNeXtSmall(applications.ConvNeXtOptions{Options: o})
	},
	"convnext_base": func(o applications.Options) (*keras.Model, error) {
		return applications.ConvNeXtBase(applications.ConvNeXtOptions{Options: o})
	},
	"convnext_large": func(o applications.Options) (*keras.Model, error) {
		return applications.ConvNeXtLarge(applications.ConvNeXtOptions{Options: o})
	},
	"convnext_xlarge": func(o applications.Options) (*keras.Model, error) {
		return applications.ConvNeXtXLarge(applications.ConvNeXtOptions{Options: o})
	},
	"nasnet_mobile":  applications.NASNetMobile,
	"nasnet_large":   applications.NASNetLarge,
	"efficientnetb0": applications.EfficientNetB0,
	"efficientnetb1": applications.EfficientNetB1,
	"efficientnetb2": applications.EfficientNetB2,
	"efficientnetb3": applications.EfficientNetB3,
	"efficientnetb4": applications.EfficientNetB4,
	"efficientnetb5": applications.EfficientNetB5,
	"efficientnetb6": applications.EfficientNetB6,
	"efficientnetb7": applications.EfficientNetB7,
	"efficientnetv2-b0": func(o applications.Options) (*keras.Model, error) {
		return applications.EfficientNetV2B0(applications.EfficientNetV2Options{Options: o})
	},
	"efficientnetv2-b1": func(o applications.Options) (*keras.Model, error) {
		return applications.EfficientNetV2B1(applications.EfficientNetV2Options{Options: o})
	},
	"efficientnetv2-b2": func(o applications.Options) (*keras.Model, error) {
		return applications.EfficientNetV2B2(applications.EfficientNetV2Options{Options: o})
	},
	"efficientnetv2-b3": func(o applications.Options) (*keras.Model, error) {
		return applications.EfficientNetV2B3(applications.EfficientNetV2Options{Options: o})
	},
	"efficientnetv2-s": func(o applications.Options) (*keras.Model, error) {
		return applications.EfficientNetV2S(applications.EfficientNetV2Options{Options: o})
	},
	"efficientnetv2-m": func(o applications.Options) (*keras.Model, error) {
		return applications.EfficientNetV2M(applications.EfficientNetV2Options{Options: o})
	},
	"efficientnetv2-l": func(o applications.Options) (*keras.Model, error) {
		return applications.EfficientNetV2L(applications.EfficientNetV2Options{Options: o})
	},
}

// kerasParams are the parameter counts keras.applications documents for
// its networks with the top, at 224x224x3.
var kerasParams = map[string]int{
	"resnet50":            25_636_712,
	"resnet101":           44_707_176,
	"resnet152":           60_419_944,
	"resnet50v2":          25_613_800,
	"resnet101v2":         44_675_560,
	"resnet152v2":         60_380_648,
	"vgg16":               138_357_544,
	"vgg19":               143_667_240,
	"densenet121":         8_062_504,
	"densenet169":         14_307_880,
	"densenet201":         20_242_984,
	"xception":            22_910_480,
	"inception_v3":        23_851_784,
	"inception_resnet_v2": 55_873_736,
	"mobilenet":           4_253_864,
	"mobilenetv2":         3_538_984,
	"mobilenetv3small":    2_554_968,
	"mobilenetv3large":    5_507_432,
	"convnext_tiny":       28_589_128,
	"convnext_small":      50_223_688,
	"convnext_base":       88_591_464,
	"convnext_large":      197_767_336,
	"convnext_xlarge":     350_196_968,
	"nasnet_mobile":       5_326_716,
	"nasnet_large":        88_949_818,
	"efficientnetb0":      5_330_571,
	"efficientnetb1":      7_856_239,
	"efficientnetb2":      9_177_569,
	"efficientnetb3":      12_320_535,
	"efficientnetb4":      19_466_823,
	"efficientnetb5":      30_562_527,
	"efficientnetb6":      43_265_143,
	"efficientnetb7":      66_658_687,
	"efficientnetv2-b0":   7_200_312,
	"efficientnetv2-b1":   8_212_124,
	"efficientnetv2-b2":   10_178_374,
	"efficientnetv2-b3":   14_467_622,
	"efficientnetv2-s":    21_612_360,
	"efficientnetv2-m":    54_431_388,
	"efficientnetv2-l":    119_027_848,
}

// The parameter counts are Keras's, without Python Keras at hand.
func TestParameterCounts(t *testing.T) {
	for name, build := range constructors {
		m, err := build(applications.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := m.CountParams(); got != kerasParams[name] {
			t.Errorf("%s has %d parameters, Keras's has %d", name, got, kerasParams[name])
		}
	}
}

// Without the top: the feature map, or its average or maximum.
func TestExcludeTop(t *testing.T) {
	for _, c := range []struct {
		pooling string
		want    []int
	}{{"", []int{-1, 2, 2, 2048}}, {"avg", []int{-1, 2048}}, {"max", []int{-1, 2048}}} {
		m, err := applications.ResNet50(applications.Options{ExcludeTop: true, InputShape: []int{64, 64, 3}, Pooling: c.pooling})
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Outputs()[0].Shape(); !slices.Equal(got, c.want) {
			t.Errorf("pooling %q: output shape %v, want %v", c.pooling, got, c.want)
		}
		if got, want := m.CountParams(), kerasParams["resnet50"]-(2048*1000+1000); got != want {
			t.Errorf("pooling %q: %d parameters, want %d (ResNet50 without its classifier)", c.pooling, got, want)
		}
	}
	m, err := applications.MobileNetV2(applications.MobileNetV2Options{Options: applications.Options{ExcludeTop: true, InputShape: []int{96, 96, 3}}, Alpha: 0.35})
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "mobilenetv2_0.35_96" {
		t.Errorf("MobileNetV2's name is %q, want Keras's mobilenetv2_0.35_96", m.Name)
	}
	if got := m.Outputs()[0].Shape(); !slices.Equal(got, []int{-1, 3, 3, 1280}) {
		t.Errorf("MobileNetV2 alpha 0.35 at 96x96: output shape %v, want (-1, 3, 3, 1280)", got)
	}
}

// Wrong options are errors that say what to do.
func TestOptionErrors(t *testing.T) {
	for _, c := range []struct {
		opts applications.Options
		want string
	}{
		{applications.Options{Weights: "imagenet", Classes: 10}, "1000 classes"},
		{applications.Options{Weights: "imagenet", InputShape: []int{64, 64, 3}}, "(224, 224, 3)"},
		{applications.Options{InputShape: []int{16, 16, 3}}, "at least 32x32"},
		{applications.Options{InputShape: []int{64, 64}}, "(rows, cols, channels)"},
		{applications.Options{ExcludeTop: true, Pooling: "mean"}, `"avg" or "max"`},
		{applications.Options{Pooling: "avg"}, "ExcludeTop"},
		{applications.Options{Weights: filepath.Join(t.TempDir(), "missing.weights.h5"), InputShape: []int{32, 32, 3}}, "missing.weights.h5"},
	} {
		_, err := applications.ResNet50(c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("options %+v: error %v, want one containing %q", c.opts, err, c.want)
		}
	}
}

// allApplicationsEnv, when set to 1, makes the Keras reference check the
// weights and predictions of every network, not only those of the
// script's CHECKED (make test-applications sets it); set to a list of
// Keras's names ("nasnet_large,convnext_xlarge"), of those networks.
const allApplicationsEnv = "KERASGO_TEST_ALL_APPLICATIONS"

// reference is what scripts/keras-applications.py wrote, built once.
var reference struct {
	once  sync.Once
	dir   string
	index map[string]network
	extra referenceExtras
}

// referenceExtras are the script's outputs beside the networks:
// preprocess_input of each module, and decode_predictions.
type referenceExtras struct {
	Preprocess map[string]json.RawMessage `json:"preprocess"`
	Decoded    [][][3]any                 `json:"decoded"`
}

// network is one network of the reference's index.json.
type network struct {
	ModelName     string     `json:"model_name"`
	Params        int        `json:"params"`
	Layers        []layer    `json:"layers"`
	InputShape    []int      `json:"input_shape"`
	CheckedLayers []layer    `json:"checked_layers"`
	Predictions   prediction `json:"predictions"`
	// NotopPredictions are those of the network without its top
	// (ExcludeTop, Pooling "avg") and the same weights.
	NotopPredictions prediction `json:"notop_predictions"`
}

// prediction is what Keras's predict returned.
type prediction struct {
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

// layer is a layer's name, class and weights, as Keras lists them.
type layer struct {
	Name    string `json:"name"`
	Class   string `json:"class"`
	Weights []struct {
		Name  string `json:"name"`
		Shape []int  `json:"shape"`
	} `json:"weights"`
}

// kerasReference runs the script with Keras (skipping t without it).
func kerasReference(t *testing.T) (string, map[string]network) {
	t.Helper()
	python := kerasref.Python(t)
	reference.once.Do(func() {
		dir, err := os.MkdirTemp("", "keras-applications")
		if err != nil {
			t.Fatal(err)
		}
		// Keras's NumPy backend: building the networks on JAX compiles
		// each weight shape's initializer (6.5 minutes against 1.7).
		args := []string{kerasref.Script(t, "keras-applications.py"), dir}
		switch which := os.Getenv(allApplicationsEnv); which {
		case "":
		case "1", "all":
			args = append(args, "all")
		default: // a list of networks: "nasnet_large,convnext_xlarge"
			args = append(args, which)
		}
		kerasref.RunEnv(t, python, []string{"KERAS_BACKEND=numpy"}, args...)
		data, err := os.ReadFile(filepath.Join(dir, "index.json"))
		if err != nil {
			t.Fatal(err)
		}
		var all map[string]json.RawMessage
		if err := json.Unmarshal(data, &all); err != nil {
			t.Fatal(err)
		}
		reference.index = map[string]network{}
		for k, v := range all {
			switch k {
			case "preprocess":
				if err := json.Unmarshal(v, &reference.extra.Preprocess); err != nil {
					t.Fatal(err)
				}
			case "decoded":
				if err := json.Unmarshal(v, &reference.extra.Decoded); err != nil {
					t.Fatal(err)
				}
			default:
				var n network
				if err := json.Unmarshal(v, &n); err != nil {
					t.Fatal(err)
				}
				reference.index[k] = n
			}
		}
		reference.dir = dir
	})
	if reference.dir == "" {
		t.Fatal("the Keras reference was not built (see the first test that tried)")
	}
	return reference.dir, reference.index
}

func TestMain(m *testing.M) {
	code := m.Run()
	if reference.dir != "" {
		os.RemoveAll(reference.dir)
	}
	os.Exit(code)
}

// Each network has Keras's layers, by name and class, with weights of
// Keras's names and shapes, Keras's parameter count and Keras's model
// name.
func TestArchitecturesMatchKeras(t *testing.T) {
	_, index := kerasReference(t)
	for name, build := range constructors {
		t.Run(name, func(t *testing.T) {
			m, err := build(applications.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := index[name]
			if m.Name != want.ModelName {
				t.Errorf("model name %q, Keras's is %q", m.Name, want.ModelName)
			}
			if got := m.CountParams(); got != want.Params {
				t.Errorf("%d parameters, Keras's has %d", got, want.Params)
			}
			compareLayers(t, m, want.Layers)
		})
	}
}

// compareLayers checks m's layers against Keras's, in Keras's order.
func compareLayers(t *testing.T, m *keras.Model, want []layer) {
	t.Helper()
	got := m.Layers()
	if len(got) != len(want) {
		t.Errorf("%d layers, Keras's has %d", len(got), len(want))
	}
	byName := map[string]int{}
	for i, l := range got {
		byName[l.Common().Name] = i
	}
	for _, w := range want {
		i, ok := byName[w.Name]
		if !ok {
			t.Errorf("no layer %q (%s)", w.Name, w.Class)
			continue
		}
		l := got[i]
		if l.ClassName() != w.Class {
			t.Errorf("layer %q is a %s, Keras's is a %s", w.Name, l.ClassName(), w.Class)
		}
		weights := l.Common().Weights()
		if inner, ok := l.(*keras.Model); ok { // ConvNeXt's nested Sequential blocks
			weights = inner.Weights()
		}
		if len(weights) != len(w.Weights) {
			t.Errorf("layer %q has %d weights, Keras's has %d", w.Name, len(weights), len(w.Weights))
			continue
		}
		for j, ww := range w.Weights {
			if weights[j].Name != ww.Name || !slices.Equal(weights[j].Shape, ww.Shape) {
				t.Errorf("layer %q weight %d is %s %v, Keras's is %s %v", w.Name, j, weights[j].Name, weights[j].Shape, ww.Name, ww.Shape)
			}
		}
	}
}

// images are the two images the script predicts: pixel i of the batch is
// ((i*7919) % 1000)/500 - 1.
func images(shape []int) keras.Array {
	n := 2 * shape[0] * shape[1] * shape[2]
	x := keras.Array{Shape: append([]int{2}, shape...), Data: make([]float32, n)}
	for i := range x.Data {
		x.Data[i] = float32(float64((i*7919)%1000)/500 - 1)
	}
	return x
}

// kerasTolerance is how far kerasgo's predictions may be from Keras's,
// relative to max(1, |Keras's value|): float32 rounding grows with the
// values, and the features of a network without its top reach the tens
// (ConvNeXtXLarge's), while probabilities stay under 1. The reference
// script keeps the redrawn networks' activations near a trained
// network's scale: where they grow to hundreds (NASNetLarge's, before its
// projections' scales were drawn smaller), rounding alone, 1e-6 of the
// largest value, exceeds this on the features near zero.
const kerasTolerance = 1e-4

// Weights saved by Keras (save_weights) load into kerasgo's network of
// the same name, which then predicts what Keras predicted, on every
// engine.
func TestKerasWeightsPredictTheSame(t *testing.T) {
	dir, index := kerasReference(t)
	for _, name := range checkedNetworks(index) {
		want := index[name]
		t.Run(name, func(t *testing.T) {
			backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
				m, err := constructors[name](applications.Options{
					InputShape: want.InputShape,
					Weights:    filepath.Join(dir, name+".weights.h5"),
				})
				if err != nil {
					t.Fatal(err)
				}
				compareLayers(t, m, want.CheckedLayers)
				checkPredictions(t, m, be, want)
			})
		})
	}
}

// Weights that Keras's legacy HDF5 writer wrote (the layout of the weight
// files keras.applications downloads: legacy_h5_format, by layer order)
// load into kerasgo's network, with and without its top, which then
// predicts what Keras predicted, on every engine.
func TestKerasLegacyWeightsPredictTheSame(t *testing.T) {
	dir, index := kerasReference(t)
	for _, name := range checkedNetworks(index) {
		want := index[name]
		for _, top := range []bool{true, false} {
			file, opts, wantPred := name+".h5", applications.Options{InputShape: want.InputShape}, want.Predictions
			if !top {
				file, opts.ExcludeTop, opts.Pooling, wantPred = name+"_notop.h5", true, "avg", want.NotopPredictions
			}
			opts.Weights = filepath.Join(dir, file)
			t.Run(file, func(t *testing.T) {
				backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
					m, err := constructors[name](opts)
					if err != nil {
						t.Fatal(err)
					}
					w := want
					w.Predictions = wantPred
					checkPredictions(t, m, be, w)
				})
			})
		}
	}
}

// A ResNet50 saved whole by Keras (model.save) loads and predicts what
// Keras predicted, on every engine.
func TestKerasResNet50FileLoads(t *testing.T) {
	dir, index := kerasReference(t)
	want := index["resnet50"]
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m, err := keras.LoadModel(filepath.Join(dir, "resnet50.keras"), keras.LoadOptions{Backend: be.Name()})
		if err != nil {
			t.Fatal(err)
		}
		if m.Name != "resnet50" {
			t.Errorf("the loaded model is called %q, want resnet50", m.Name)
		}
		compareLayers(t, m, want.CheckedLayers)
		checkPredictions(t, m, be, want)
	})
}

// checkedNetworks are the networks whose weights and predictions the
// script recorded (those with an input shape), sorted.
func checkedNetworks(index map[string]network) []string {
	var names []string
	for name, n := range index {
		if n.InputShape != nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// checkPredictions compiles m on be and compares its
// predictions of the script's images with Keras's.
func checkPredictions(t *testing.T, m *keras.Model, be backend.Backend, want network) {
	t.Helper()
	if err := m.Compile(keras.CompileOptions{Loss: keras.Loss("categorical_crossentropy"), Backend: be.Name()}); err != nil {
		t.Fatal(err)
	}
	got, err := m.Predict(context.Background(), images(want.InputShape), keras.PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Shape, want.Predictions.Shape) {
		t.Fatalf("predictions of shape %v, Keras's are %v", got.Shape, want.Predictions.Shape)
	}
	worst, at := 0.0, 0
	for i, v := range got.Data {
		if d := math.Abs(float64(v)-want.Predictions.Data[i]) / math.Max(1, math.Abs(want.Predictions.Data[i])); d > worst || math.IsNaN(d) {
			worst, at = d, i
		}
	}
	if !(worst <= kerasTolerance) {
		t.Errorf("predictions differ from Keras's by up to %.3g relative to max(1, |value|) (at %d: %g, Keras %g), more than %g", worst, at, got.Data[at], want.Predictions.Data[at], kerasTolerance)
	}
	t.Logf("largest difference from Keras's predictions: %.3g", worst)
}

// InceptionResNetV2's CustomScaleLayer, a class of Keras's applications
// module, survives saving: kerasgo writes Keras's module and class for
// it, and reads them back into a network that predicts what Keras did.
func TestInceptionResNetV2SavesAndLoads(t *testing.T) {
	dir, index := kerasReference(t)
	want, ok := index["inception_resnet_v2"]
	if !ok || want.InputShape == nil {
		t.Skip("the Keras reference did not check inception_resnet_v2")
	}
	m, err := applications.InceptionResNetV2(applications.Options{InputShape: want.InputShape, Weights: filepath.Join(dir, "inception_resnet_v2.weights.h5")})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "irv2.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	archive, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer archive.Close()
	f, err := archive.Open("config.json")
	if err != nil {
		t.Fatal(err)
	}
	config, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(config), `"class_name":"CustomScaleLayer"`) || !strings.Contains(string(config), `"module":"keras.src.applications.inception_resnet_v2"`) ||
		!strings.Contains(string(config), `"registered_name":"CustomScaleLayer"`) || !strings.Contains(string(config), `"scale":0.17`) {
		t.Errorf("the saved config does not name Keras's CustomScaleLayer, its module and scale")
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		loaded, err := keras.LoadModel(path, keras.LoadOptions{Backend: be.Name()})
		if err != nil {
			t.Fatal(err)
		}
		checkPredictions(t, loaded, be, want)
	})
}

// onnxChecked are the networks make test exports to ONNX: one of each
// family's blocks, at small sizes (every checked network with
// KERASGO_TEST_ALL_APPLICATIONS, which make test-applications sets).
var onnxChecked = []string{"convnext_tiny", "densenet121", "efficientnetb0", "efficientnetv2-b0", "inception_v3", "mobilenetv3small", "resnet50v2", "xception"}

// Each checked network, with the weights Keras saved, exports to ONNX,
// and onnxruntime predicts what Keras predicted, for the batch given and
// for twice that batch.
func TestExportONNXPredictsAsKeras(t *testing.T) {
	if os.Getenv(allApplicationsEnv) == "" {
		if be, err := backend.Open("libtorch"); err == nil { // exporting runs no engine
			be.Close()
			t.Skip("export runs no engine: checked by the build without libtorch (make test's first pass)")
		}
	}
	dir, index := kerasReference(t)
	out := t.TempDir()
	var cases []kerasref.ONNXCase
	wants := map[string][][]float32{}
	for _, name := range checkedNetworks(index) {
		if os.Getenv(allApplicationsEnv) == "" && !slices.Contains(onnxChecked, name) {
			continue
		}
		want := index[name]
		m, err := constructors[name](applications.Options{InputShape: want.InputShape, Weights: filepath.Join(dir, name+".weights.h5")})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Export(filepath.Join(out, name+".onnx"), keras.ExportOptions{}); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		x := images(want.InputShape)
		in := kerasref.ONNXInput{Name: m.InputNames()[0], DType: "float32", Shape: x.Shape}
		for _, v := range x.Data {
			in.Data = append(in.Data, float64(v))
		}
		cases = append(cases, kerasref.ONNXCase{Name: name, Inputs: []kerasref.ONNXInput{in}})
		wants[name] = [][]float32{kerasref.Array{Shape: want.Predictions.Shape, Data: want.Predictions.Data}.Float32()}
	}
	results := kerasref.RunONNX(t, out, cases)
	for _, c := range cases {
		worst, err := results[c.Name].Worst(wants[c.Name])
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		if worst > kerasTolerance {
			t.Errorf("%s: onnxruntime's predictions differ from Keras's by %.3g", c.Name, worst)
		}
		t.Logf("%s: onnxruntime within %.3g of Keras", c.Name, worst)
	}
}
