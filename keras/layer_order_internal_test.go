package keras

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/saving"
)

// branchy returns input -> (short, main1 -> main2) -> add: a residual
// connection with a projection, whose Keras order (model.layers) puts
// main1 before short. With shortUnits = mainUnits the two first Dense
// layers have kernels of one shape.
func branchy(t *testing.T, shortUnits int) *Model {
	t.Helper()
	x := layers.Input(4)
	short := layers.Apply(layers.Named("short", &layers.Dense{Units: 6}), x)
	main := layers.Apply(layers.Named("main1", &layers.Dense{Units: shortUnits}), x)
	main = layers.Apply(layers.Named("main2", &layers.Dense{Units: 6}), main)
	m, err := NewModel(x, layers.Apply(layers.Named("add", &layers.Add{}), short, main))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// layerNames returns the names of ls.
func layerNames(ls []layers.Layer) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Common().Name
	}
	return out
}

// Layers follows Keras's model.layers (as Keras 3.15 lists these two
// models), and the weights follow the layers.
func TestLayersInKerasOrder(t *testing.T) {
	m := branchy(t, 6)
	if got, want := layerNames(m.Layers()), []string{"input_layer", "main1", "short", "main2", "add"}; !slices.Equal(got, want) {
		t.Errorf("layers %v, Keras lists %v", got, want)
	}
	if got, want := m.weights[0], m.Layers()[1].Common().Weights()[0]; got != want {
		t.Errorf("the first weight is %s, want main1's kernel", got.Name)
	}
	x := layers.Input(4)
	late := layers.NamedInput("late", 3)
	d := layers.Apply(layers.Named("d0", &layers.Dense{Units: 3}), x)
	d = layers.Apply(layers.Named("d1", &layers.Dense{Units: 2}), d)
	two, err := NewFunctional([]*layers.KerasTensor{x, late}, []*layers.KerasTensor{layers.Apply(layers.Named("cat", &layers.Concatenate{}), d, late)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := layerNames(two.Layers()), []string{"input_layer", "d0", "d1", "late", "cat"}; !slices.Equal(got, want) {
		t.Errorf("layers %v, Keras lists %v", got, want)
	}
}

// distinctWeights gives every weight of m its own values and returns them.
func distinctWeights(t *testing.T, m *Model) [][]float32 {
	t.Helper()
	values := make([][]float32, len(m.weights))
	for i, w := range m.weights {
		values[i] = make([]float32, w.Shape.Size())
		for j := range values[i] {
			values[i][j] = float32(100*i + j)
		}
	}
	if err := m.SetWeights(values); err != nil {
		t.Fatal(err)
	}
	return values
}

// checkWeights compares m's weights with want.
func checkWeights(t *testing.T, m *Model, want [][]float32) {
	t.Helper()
	got, err := m.GetWeights()
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Fatalf("weight %d (%s) value %d is %v, want %v: the layers' weights were swapped", i, m.weights[i].Name, j, got[i][j], want[i][j])
			}
		}
	}
}

// Weights files laid out in the order kerasgo 0.1.0-dev wrote still load
// into the right layers: a .weights.h5 whose layers' shapes fit only that
// order, and a .keras file of that version whose shapes fit both.
func TestLegacyOrderFilesLoad(t *testing.T) {
	dir := t.TempDir()
	m := branchy(t, 5)
	want := distinctWeights(t, m)
	tree, err := m.weightsTreeIn(legacyOrder, false)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "legacy.weights.h5")
	if err := saving.WriteWeightsH5(path, tree); err != nil {
		t.Fatal(err)
	}
	fresh := branchy(t, 5)
	if err := fresh.LoadWeights(path); err != nil {
		t.Fatal(err)
	}
	checkWeights(t, fresh, want)

	m = branchy(t, 6)
	want = distinctWeights(t, m)
	cfg, err := m.modelConfig()
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if tree, err = m.weightsTreeIn(legacyOrder, false); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, "legacy.keras")
	if err := saving.WriteKeras(path, saving.NewMetadata(legacyVersion, ""), js, tree, nil); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadModel(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkWeights(t, loaded, want)
	// And this version's file of the same model, in Keras's order.
	path = filepath.Join(dir, "current.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	if loaded, err = LoadModel(path, LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	checkWeights(t, loaded, want)
}
