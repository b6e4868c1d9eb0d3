package keras_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// freshCopy makes an unadapted layer with l's config.
func freshCopy(t *testing.T, l layers.Layer) layers.Adapter {
	t.Helper()
	cfg, err := layers.Config(l)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(cfg)
	var decoded serialization.Config
	if err := json.Unmarshal(data, &decoded); err != nil {
		t.Fatal(err)
	}
	c, err := layers.FromConfig(l.ClassName(), decoded)
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := c.(*layers.Discretization); ok {
		d.BinBoundaries = nil // the adapted boundaries are in the config
	}
	return c.(layers.Adapter)
}

// adaptedState is what Adapt computed: Normalization's mean and
// variance, Discretization's boundaries.
func adaptedState(t *testing.T, l layers.Layer) [][]float64 {
	t.Helper()
	if d, ok := l.(*layers.Discretization); ok {
		return [][]float64{d.BinBoundaries}
	}
	var out [][]float64
	for _, w := range l.Common().Weights()[:2] {
		v, err := w.Value()
		if err != nil {
			t.Fatal(err)
		}
		f := make([]float64, len(v))
		for i, x := range v {
			f[i] = float64(x)
		}
		out = append(out, f)
	}
	return out
}

// keras.Adapt computes what Keras's adapt computed on the same data: for
// each catalogue model whose preprocessing layer Keras adapted on the
// model's test inputs, a fresh layer with its config is adapted in
// kerasgo and holds Keras's mean and variance (within 1e-6) or bin
// boundaries (equal: both run Keras's summary algorithm in float32).
func TestAdaptMatchesKeras(t *testing.T) {
	dir, cases, _ := kerasCatalogue(t)
	n := 0
	for _, c := range cases {
		if !strings.HasPrefix(c.Name, "adapt_") {
			continue
		}
		n++
		t.Run(c.Name, func(t *testing.T) {
			m, err := keras.LoadModel(filepath.Join(dir, c.Name+".keras"))
			if err != nil {
				t.Fatal(err)
			}
			var ref struct{ Inputs []refArray }
			readJSON(t, filepath.Join(dir, c.Name+".json"), &ref)
			for _, l := range m.Layers() {
				if _, ok := l.(layers.Adapter); !ok {
					continue
				}
				fresh := freshCopy(t, l)
				if err := keras.Adapt(context.Background(), fresh, ref.Inputs[0].array()); err != nil {
					t.Fatal(err)
				}
				want, got := adaptedState(t, l), adaptedState(t, fresh)
				for k := range want {
					if len(got[k]) != len(want[k]) {
						t.Fatalf("state %d: %d values, Keras has %d (%v vs %v)", k, len(got[k]), len(want[k]), got[k], want[k])
					}
					for i := range want[k] {
						if math.Abs(got[k][i]-want[k][i]) > 1e-6*math.Max(1, math.Abs(want[k][i])) {
							t.Fatalf("state %d: %v, Keras adapted %v", k, got[k], want[k])
						}
					}
				}
			}
		})
	}
	if n < 5 {
		t.Fatalf("only %d adapt_ cases in the catalogue", n)
	}
}

// sliced is a Dataset over an array's samples in batches of the given
// sizes.
type sliced struct {
	x     keras.Array
	sizes []int
}

func (s sliced) Len() int { return len(s.sizes) }

func (s sliced) Batch(_ context.Context, i int) (keras.Batch, error) {
	from := 0
	for _, n := range s.sizes[:i] {
		from += n
	}
	return keras.Batch{X: s.x.Rows(from, from+s.sizes[i])}, nil
}

// Adapting a Normalization over a dataset's uneven batches, or over a
// generator, gives the statistics of the whole array (Keras's running
// combination), within 1e-6.
func TestAdaptNormalizationOverBatches(t *testing.T) {
	x := keras.Array{Shape: []int{10, 2, 3}, Data: make([]float32, 60)}
	for i := range x.Data {
		x.Data[i] = float32(math.Sin(float64(i)*1.3)*5 + float64(i%3))
	}
	whole := &layers.Normalization{Axis: []int{-1}}
	ctx := context.Background()
	if err := keras.Adapt(ctx, whole, x); err != nil {
		t.Fatal(err)
	}
	want := adaptedState(t, whole)
	// The whole array's statistics, by hand.
	for ch := range 3 {
		sum, sq := 0.0, 0.0
		for i := ch; i < 60; i += 3 {
			sum += float64(x.Data[i])
		}
		mean := sum / 20
		for i := ch; i < 60; i += 3 {
			sq += (float64(x.Data[i]) - mean) * (float64(x.Data[i]) - mean)
		}
		if math.Abs(want[0][ch]-mean) > 1e-6 || math.Abs(want[1][ch]-sq/20) > 1e-5 {
			t.Fatalf("channel %d: mean %v variance %v, want %v and %v", ch, want[0][ch], want[1][ch], mean, sq/20)
		}
	}
	ds := sliced{x: x, sizes: []int{3, 1, 4, 2}}
	gen := func(yield func(keras.Batch, error) bool) {
		for i := range ds.Len() {
			b, _ := ds.Batch(ctx, i)
			if !yield(b, nil) {
				return
			}
		}
	}
	for name, data := range map[string]keras.Batches{
		"dataset":   {Dataset: ds, Workers: 3},
		"generator": {Generator: gen},
	} {
		l := &layers.Normalization{}
		if err := keras.Adapt(ctx, l, data); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := adaptedState(t, l)
		for k := range want {
			for i := range want[k] {
				if math.Abs(got[k][i]-want[k][i]) > 1e-6 {
					t.Fatalf("%s: state %d is %v, the whole array's %v", name, k, got[k], want[k])
				}
			}
		}
	}
}

// Adapt's bad inputs are errors that name the problem, and leave the
// layer as it was.
func TestAdaptErrors(t *testing.T) {
	ctx := context.Background()
	x, _ := keras.NewArray(make([]float32, 12), 4, 3)
	empty := keras.Array{Shape: []int{0, 3}, Data: []float32{}}
	nan, _ := keras.NewArray([]float32{1, float32(math.NaN()), 2, 3}, 4, 1)
	noBatches := iter.Seq2[keras.Batch, error](func(func(keras.Batch, error) bool) {})
	wrongShape := iter.Seq2[keras.Batch, error](func(yield func(keras.Batch, error) bool) {
		a, _ := keras.NewArray(make([]float32, 6), 2, 3)
		b, _ := keras.NewArray(make([]float32, 8), 2, 4)
		_ = yield(keras.Batch{X: a}, nil) && yield(keras.Batch{X: b}, nil)
	})
	failing := iter.Seq2[keras.Batch, error](func(yield func(keras.Batch, error) bool) {
		yield(keras.Batch{}, fmt.Errorf("disk full"))
	})
	for _, c := range []struct {
		name  string
		layer layers.Adapter
		data  keras.ArraySet
		want  string
	}{
		{"empty array", &layers.Normalization{}, empty, "no samples"},
		{"no batches", &layers.Normalization{}, keras.Batches{Generator: noBatches}, "yielded no batches"},
		{"batch of another shape", &layers.Normalization{}, keras.Batches{Generator: wrongShape}, "batch 1"},
		{"failing source", &layers.Normalization{}, keras.Batches{Generator: failing}, "disk full"},
		{"endless dataset", &layers.Normalization{}, keras.Batches{Dataset: endless{}}, "no end"},
		{"two arrays", &layers.Normalization{}, keras.Arrays{x, x}, "2 arrays"},
		{"NaN", &layers.Normalization{}, nan, "not finite"},
		{"given statistics", &layers.Normalization{Mean: []float64{0}, Variance: []float64{1}}, x, "cannot be adapted"},
		{"bin boundaries", &layers.Discretization{BinBoundaries: []float64{0}}, x, "NumBins"},
		{"NaN to discretize", &layers.Discretization{NumBins: 2}, nan, "NaN"},
		{"no data", &layers.Normalization{}, nil, "no data"},
	} {
		err := keras.Adapt(ctx, c.layer, c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "Adapt") {
			t.Errorf("%s: got %v, want an error from Adapt saying %q", c.name, err, c.want)
		}
	}
	// A failed Adapt keeps the adapted state.
	l := &layers.Normalization{}
	if err := keras.Adapt(ctx, l, x); err != nil {
		t.Fatal(err)
	}
	before := adaptedState(t, l)
	if err := keras.Adapt(ctx, l, keras.Batches{Generator: wrongShape}); err == nil {
		t.Fatal("adapting on a batch of another shape succeeded")
	}
	if after := adaptedState(t, l); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("a failed Adapt changed the state from %v to %v", before, after)
	}
}
