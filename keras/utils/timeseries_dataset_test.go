package utils_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kerasgo/kerasgo/internal/testcheck"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/utils"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// arange returns 0, 1, ..., n-1 as an Array of shape (n,).
func arange(n int) keras.Array {
	a := keras.Array{Shape: []int{n}, Data: make([]float32, n)}
	for i := range a.Data {
		a.Data[i] = float32(i)
	}
	return a
}

// windowsOf returns every window of every batch of d, as the timesteps
// (values of an arange) they hold, and every target.
func windowsOf(t *testing.T, d keras.Dataset) (windows [][]float32, targets []float32) {
	t.Helper()
	for i := range d.Len() {
		b, err := d.Batch(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		x := b.X.(keras.Array)
		per := len(x.Data) / x.Shape[0]
		for k := range x.Shape[0] {
			windows = append(windows, x.Data[k*per:(k+1)*per])
		}
		if b.Y != nil {
			targets = append(targets, b.Y.(keras.Array).Data...)
		}
	}
	return windows, targets
}

// The windows are those of the examples in Keras's docstring of
// timeseries_dataset_from_array.
func TestTimeseriesDatasetFromArrayKerasExamples(t *testing.T) {
	// Example 1: indices 0..98, sequence_length=10, sampling_rate=2,
	// sequence_stride=3.
	d, err := utils.TimeseriesDatasetFromArray(arange(99), nil, utils.TimeseriesOptions{SequenceLength: 10, SamplingRate: 2, SequenceStride: 3})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := windowsOf(t, d)
	for i, want := range map[int]string{
		0: "[0 2 4 6 8 10 12 14 16 18]", 1: "[3 5 7 9 11 13 15 17 19 21]", 2: "[6 8 10 12 14 16 18 20 22 24]", len(w) - 1: "[78 80 82 84 86 88 90 92 94 96]",
	} {
		if got := fmt.Sprint(w[i]); got != want {
			t.Errorf("example 1: sequence %d is %v, Keras's docstring says %v", i, got, want)
		}
	}
	if len(w) != 27 || d.Len() != 1 {
		t.Errorf("example 1: %d windows in %d batches, want 27 in 1 (batch size 128)", len(w), d.Len())
	}

	// Example 2: the past 10 steps predict the next.
	data := arange(50)
	input := data.Rows(0, 40)
	tg := data.Rows(10, 50)
	d, err = utils.TimeseriesDatasetFromArray(input, &tg, utils.TimeseriesOptions{SequenceLength: 10, BatchSize: 8})
	if err != nil {
		t.Fatal(err)
	}
	w, targets := windowsOf(t, d)
	if fmt.Sprint(w[0]) != fmt.Sprint(data.Data[:10]) || targets[0] != 10 {
		t.Errorf("example 2: first window %v with target %v, want steps 0-9 and 10", w[0], targets[0])
	}
	for k := range w {
		if w[k][9]+1 != targets[k] {
			t.Errorf("example 2: window %d ends at %v but its target is %v", k, w[k][9], targets[k])
		}
	}
	if len(w) != 31 || d.Len() != 4 {
		t.Errorf("example 2: %d windows in %d batches, want 31 in 4", len(w), d.Len())
	}

	// Example 3: windows of 20 that do not overlap.
	d, err = utils.TimeseriesDatasetFromArray(arange(100), nil, utils.TimeseriesOptions{SequenceLength: 20, SequenceStride: 20})
	if err != nil {
		t.Fatal(err)
	}
	if w, _ = windowsOf(t, d); len(w) != 5 || w[1][0] != 20 || w[1][19] != 39 {
		t.Errorf("example 3: %d windows, the second %v; want 5, the second steps 20-39", len(w), w[1])
	}

	// StartIndex and EndIndex bound the timesteps; features stay per step;
	// shuffling permutes the windows reproducibly.
	feats := keras.Array{Shape: []int{30, 2}, Data: make([]float32, 60)}
	for i := range feats.Data {
		feats.Data[i] = float32(i / 2)
	}
	d, err = utils.TimeseriesDatasetFromArray(feats, nil, utils.TimeseriesOptions{SequenceLength: 3, StartIndex: 5, EndIndex: 12})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := d.Batch(context.Background(), 0)
	x := b.X.(keras.Array)
	if fmt.Sprint(x.Shape) != "[5 3 2]" || x.Data[0] != 5 || x.Data[len(x.Data)-1] != 11 {
		t.Errorf("steps [5, 12) in windows of 3 of 2 features: shape %v, first %v, last %v; want [5 3 2], 5, 11", x.Shape, x.Data[0], x.Data[len(x.Data)-1])
	}
	shuffled := func(seed int64) string {
		d, err := utils.TimeseriesDatasetFromArray(arange(40), nil, utils.TimeseriesOptions{SequenceLength: 4, Shuffle: true, Seed: seed, BatchSize: 5})
		if err != nil {
			t.Fatal(err)
		}
		w, _ := windowsOf(t, d)
		return fmt.Sprint(w)
	}
	if first, again := shuffled(1), shuffled(1); first != again || first == shuffled(2) {
		t.Error("Shuffle does not follow the seed")
	}
	// Keras's order: np.random.RandomState(7).shuffle(np.arange(10))
	// gives [8 5 0 2 1 9 7 3 6 4] (NumPy 2.4.6): the windows' starts.
	d, err = utils.TimeseriesDatasetFromArray(arange(10), nil, utils.TimeseriesOptions{SequenceLength: 1, Shuffle: true, Seed: 7, BatchSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = d.Batch(context.Background(), 0)
	if got := fmt.Sprint(b.X.(keras.Array).Data); got != "[8 5 0 2 1 9 7 3 6 4]" {
		t.Errorf("seed 7 ordered the windows %s, Keras (NumPy) orders them [8 5 0 2 1 9 7 3 6 4]", got)
	}

	for _, c := range []struct {
		opts utils.TimeseriesOptions
		want []string
	}{
		{utils.TimeseriesOptions{}, []string{"SequenceLength is 0"}},
		{utils.TimeseriesOptions{SequenceLength: 3, StartIndex: 10, EndIndex: 5}, []string{"EndIndex 5 must be higher than StartIndex 10"}},
		{utils.TimeseriesOptions{SequenceLength: 3, EndIndex: 99}, []string{"EndIndex is 99", "lower than the length of the data, 99"}},
		{utils.TimeseriesOptions{SequenceLength: 60, SamplingRate: 2}, []string{"no window of 60 timesteps 2 apart"}},
	} {
		_, err := utils.TimeseriesDatasetFromArray(arange(99), nil, c.opts)
		testcheck.WantErr(t, err, c.want...)
	}
}

// A model trains on a TimeseriesDataset: the next value of a sine wave
// from the 8 before it.
func TestFitOnTimeseriesDataset(t *testing.T) {
	wave := keras.Array{Shape: []int{200}, Data: make([]float32, 200)}
	for i := range wave.Data {
		wave.Data[i] = float32(i%20) / 20
	}
	input, next := wave.Rows(0, 192), wave.Rows(8, 200)
	next.Shape = []int{192, 1} // one target value per window, as the Dense(1) outputs
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		d, err := utils.TimeseriesDatasetFromArray(input, &next, utils.TimeseriesOptions{SequenceLength: 8, BatchSize: 32, Shuffle: true, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{8}}, &layers.Dense{Units: 16, Activation: "relu"}, &layers.Dense{Units: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("mse"), Backend: be.Name(), Seed: 1}); err != nil {
			t.Fatal(err)
		}
		h, err := m.Fit(context.Background(), keras.Batches{Dataset: d, Workers: 2}, nil, keras.FitOptions{Epochs: 20, Seed: 2, Verbose: keras.Silent})
		if err != nil {
			t.Fatal(err)
		}
		if l := h.Logs["loss"]; l[19] > l[0]/2 {
			t.Errorf("loss %v after 20 epochs, %v after the first", l[19], l[0])
		}
	})
}
