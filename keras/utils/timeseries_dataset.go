package utils

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/kerasgo/kerasgo/keras"

	"github.com/kerasgo/kerasgo/internal/nprandom"
)

// TimeseriesOptions are the arguments of TimeseriesDatasetFromArray, as
// Keras's keras.utils.timeseries_dataset_from_array names them; a zero
// field means Keras's default.
type TimeseriesOptions struct {
	// SequenceLength is the number of timesteps in each window; required.
	SequenceLength int
	// SequenceStride is the step between the starts of successive windows
	// (Keras's sequence_stride); 0 means 1.
	SequenceStride int
	// SamplingRate is the step between the timesteps of a window; 0
	// means 1.
	SamplingRate int
	// BatchSize is the number of windows per batch (the last batch may
	// have fewer); 0 means Keras's 128.
	BatchSize int
	// Shuffle shuffles the windows once, from Seed, as Keras shuffles the
	// start positions (Fit then also shuffles the batches' order).
	Shuffle bool
	// Seed makes the shuffle reproducible, NumPy's way: the start
	// positions take the order Keras's RandomState(seed).shuffle gives
	// them. 0 draws a seed; NumPy's seeds are below 2^32.
	Seed int64
	// StartIndex and EndIndex limit the timesteps windows may use to
	// [StartIndex, EndIndex); EndIndex 0 means the end of the data.
	StartIndex, EndIndex int
}

// TimeseriesDataset is a Dataset of sliding windows over a timeseries:
// TimeseriesDatasetFromArray makes it. It is safe for concurrent use.
type TimeseriesDataset struct {
	data, targets keras.Array
	hasTargets    bool
	starts        []int // window starts, relative to start
	start         int   // StartIndex
	length, rate  int
	batch         int
}

// TimeseriesDatasetFromArray returns the windows over data (axis 0 is
// time) as a Dataset for Fit, Evaluate and Predict, like Keras's
// keras.utils.timeseries_dataset_from_array: window k starts at timestep
// StartIndex + k*SequenceStride and takes SequenceLength timesteps
// SamplingRate apart, so a batch's X has the shape (windows,
// SequenceLength, data's other dimensions...). With targets (nil for
// none), window k's target is targets[StartIndex + k*SequenceStride]:
// targets[i] is the target of the window that starts at timestep i.
// Windows that would run past EndIndex are dropped, as are windows
// without a target.
func TimeseriesDatasetFromArray(data keras.Array, targets *keras.Array, opts TimeseriesOptions) (*TimeseriesDataset, error) {
	if err := data.Validate("data"); err != nil {
		return nil, err
	}
	n := data.Samples()
	stride, rate, batch := max(opts.SequenceStride, 1), max(opts.SamplingRate, 1), opts.BatchSize
	if batch == 0 {
		batch = 128
	}
	end := opts.EndIndex
	if end == 0 {
		end = n
	}
	switch {
	case opts.SequenceLength <= 0:
		return nil, fmt.Errorf("TimeseriesOptions.SequenceLength is %d: give the number of timesteps per window", opts.SequenceLength)
	case opts.SequenceStride < 0 || opts.SequenceStride >= n:
		return nil, fmt.Errorf("TimeseriesOptions.SequenceStride is %d: it must be positive (0 means 1) and lower than the length of the data, %d", opts.SequenceStride, n)
	case opts.SamplingRate < 0 || opts.SamplingRate >= n:
		return nil, fmt.Errorf("TimeseriesOptions.SamplingRate is %d: it must be positive (0 means 1) and lower than the length of the data, %d", opts.SamplingRate, n)
	case batch < 0:
		return nil, fmt.Errorf("TimeseriesOptions.BatchSize is %d: give a positive size, or 0 for Keras's 128", opts.BatchSize)
	case opts.StartIndex < 0 || opts.StartIndex >= n:
		return nil, fmt.Errorf("TimeseriesOptions.StartIndex is %d: it must be 0 or more and lower than the length of the data, %d", opts.StartIndex, n)
	case opts.EndIndex < 0 || opts.EndIndex >= n:
		return nil, fmt.Errorf("TimeseriesOptions.EndIndex is %d: it must be lower than the length of the data, %d, as in Keras (0 means the end)", opts.EndIndex, n)
	case opts.Seed < 0 || opts.Seed >= 1<<32:
		return nil, fmt.Errorf("TimeseriesOptions.Seed is %d: give a seed in [0, 2^32), as NumPy takes", opts.Seed)
	case end <= opts.StartIndex:
		return nil, fmt.Errorf("TimeseriesOptions.EndIndex %d must be higher than StartIndex %d", end, opts.StartIndex)
	}
	windows := end - opts.StartIndex - (opts.SequenceLength-1)*rate
	d := &TimeseriesDataset{data: data, start: opts.StartIndex, length: opts.SequenceLength, rate: rate, batch: batch}
	if targets != nil {
		if err := targets.Validate("targets"); err != nil {
			return nil, err
		}
		windows = min(windows, targets.Samples()-opts.StartIndex)
		d.targets, d.hasTargets = *targets, true
	}
	if windows <= 0 {
		return nil, fmt.Errorf("no window of %d timesteps %d apart fits in timesteps [%d, %d) of the data (and its targets): give a shorter SequenceLength or SamplingRate, or more data", opts.SequenceLength, rate, opts.StartIndex, end)
	}
	for s := 0; s < windows; s += stride {
		d.starts = append(d.starts, s)
	}
	if opts.Shuffle { // as Keras: NumPy's RandomState(seed).shuffle(start_positions)
		seed := opts.Seed
		for seed == 0 {
			seed = rand.Int64N(1_000_000) // Keras's np.random.randint(1e6)
		}
		nprandom.New(uint32(seed)).Shuffle(len(d.starts), func(i, j int) { d.starts[i], d.starts[j] = d.starts[j], d.starts[i] })
	}
	return d, nil
}

// Len returns the number of batches.
func (d *TimeseriesDataset) Len() int { return (len(d.starts) + d.batch - 1) / d.batch }

// Windows returns the number of windows (samples) in all.
func (d *TimeseriesDataset) Windows() int { return len(d.starts) }

// Batch returns batch i: X holds its windows, and Y their targets when
// the dataset has targets.
func (d *TimeseriesDataset) Batch(_ context.Context, i int) (keras.Batch, error) {
	if i < 0 || i >= d.Len() {
		return keras.Batch{}, fmt.Errorf("batch %d of a TimeseriesDataset of %d batches", i, d.Len())
	}
	starts := d.starts[i*d.batch : min((i+1)*d.batch, len(d.starts))]
	steps := make([]int, 0, len(starts)*d.length)
	for _, s := range starts {
		for k := range d.length {
			steps = append(steps, d.start+s+k*d.rate)
		}
	}
	x := takeRows(d.data, steps)
	x.Shape = append([]int{len(starts), d.length}, d.data.Shape[1:]...)
	b := keras.Batch{X: x}
	if d.hasTargets {
		at := make([]int, len(starts))
		for k, s := range starts {
			at[k] = d.start + s
		}
		b.Y = takeRows(d.targets, at)
	}
	return b, nil
}

// takeRows copies the rows (samples) rows of a into a new Array.
func takeRows(a keras.Array, rows []int) keras.Array {
	out := a.Take(rows)
	return out
}
