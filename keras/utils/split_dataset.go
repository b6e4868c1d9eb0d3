package utils

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/internal/nprandom"
	"github.com/kerasgo/kerasgo/keras"
)

// SplitSize is the size of one side of SplitDataset: a fraction of the
// samples (Keras's float left_size) or a number of samples (its int).
// The zero SplitSize is Keras's None: the complement of the other side.
type SplitSize struct {
	fraction float64
	count    int
	kind     byte // 0 none, 'f' fraction, 'n' count
}

// Fraction is a split of f of the samples, 0 < f < 1 (Keras's float
// size), rounded to the nearest count as Python's round does (halves to
// even).
func Fraction(f float64) SplitSize { return SplitSize{fraction: f, kind: 'f'} }

// Samples is a split of n samples, 0 < n < the number of samples
// (Keras's int size).
func Samples(n int) SplitSize { return SplitSize{count: n, kind: 'n'} }

// String is the size as Keras's argument would read.
func (s SplitSize) String() string {
	switch s.kind {
	case 'f':
		return fmt.Sprint(s.fraction)
	case 'n':
		return fmt.Sprint(s.count)
	}
	return "None"
}

// SplitDatasetOptions are keras.utils.split_dataset's arguments beside
// the dataset.
type SplitDatasetOptions struct {
	// LeftSize and RightSize are the sizes of the two splits; at least
	// one is given, and the other defaults to the rest of the samples.
	LeftSize, RightSize SplitSize
	// Shuffle shuffles the samples before they are split, with Python's
	// random.seed(Seed) and random.shuffle, as Keras does: the same seed
	// gives the same splits as Keras's. Keras draws a seed when none is
	// given; kerasgo's default is the seed 0, so a run is reproducible.
	Shuffle bool
	Seed    int64
}

// SplitDataset splits arrays of the same number of samples into a left
// part and a right part (a training and a test set), like Keras's
// keras.utils.split_dataset on a list of arrays: the left part is the
// first samples, the right part the last ones (after the shuffle, with
// Shuffle), and sample i of every array goes to the same part. The
// parts are new arrays of numbers (strings are shared).
//
// Unlike Keras, a split that would leave a part empty (a fraction that
// rounds to every sample, say) is an error: Keras's right part is then
// the whole dataset, through Python's x[-0:].
func SplitDataset(arrays []keras.Array, o SplitDatasetOptions) (left, right []keras.Array, err error) {
	if len(arrays) == 0 {
		return nil, nil, fmt.Errorf("SplitDataset: no arrays: give the dataset's arrays (inputs, targets, ...), each with one sample per row")
	}
	total := -1
	for i, a := range arrays {
		if err := a.Validate(fmt.Sprintf("SplitDataset: array %d", i)); err != nil {
			return nil, nil, err
		}
		if len(a.Shape) == 0 {
			return nil, nil, fmt.Errorf("SplitDataset: array %d is a scalar: each array needs a first axis of samples", i)
		}
		if total >= 0 && a.Samples() != total {
			return nil, nil, fmt.Errorf("SplitDataset: array %d has %d samples and array 0 has %d: the arrays must have the same number of samples", i, a.Samples(), total)
		}
		total = a.Samples()
	}
	nLeft, nRight, err := splitSizes(o.LeftSize, o.RightSize, total)
	if err != nil {
		return nil, nil, err
	}
	order := make([]int, total)
	for i := range order {
		order[i] = i
	}
	if o.Shuffle {
		nprandom.NewPython(o.Seed).PythonShuffle(total, func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	for _, a := range arrays {
		left = append(left, a.Take(order[:nLeft]))
		right = append(right, a.Take(order[total-nRight:]))
	}
	return left, right, nil
}

// splitSizes is Keras's _rescale_dataset_split_sizes: the two sizes as
// counts of total samples, checked as Keras checks them.
func splitSizes(l, r SplitSize, total int) (int, int, error) {
	if l.kind == 0 && r.kind == 0 {
		return 0, 0, fmt.Errorf("SplitDataset: neither LeftSize nor RightSize is given: give at least one, as utils.Fraction(0.8) or utils.Samples(800)")
	}
	count := func(name string, s SplitSize) (int, error) {
		switch s.kind {
		case 'f':
			if !(s.fraction > 0 && s.fraction < 1) {
				return 0, fmt.Errorf("SplitDataset: %s is the fraction %v: want a fraction strictly between 0 and 1 (or utils.Samples for a number of samples)", name, s.fraction)
			}
			return int(math.RoundToEven(s.fraction * float64(total))), nil
		case 'n':
			if s.count <= 0 || s.count >= total {
				return 0, fmt.Errorf("SplitDataset: %s is %d samples: want a positive number smaller than the dataset's %d samples", name, s.count, total)
			}
			return s.count, nil
		}
		return -1, nil
	}
	if l.kind == 'f' && r.kind == 'f' && l.fraction+r.fraction > 1 {
		return 0, 0, fmt.Errorf("SplitDataset: LeftSize %v and RightSize %v add up to more than 1: their sum must be at most 1", l.fraction, r.fraction)
	}
	nl, err := count("LeftSize", l)
	if err != nil {
		return 0, 0, err
	}
	nr, err := count("RightSize", r)
	if err != nil {
		return 0, 0, err
	}
	if nl < 0 {
		nl = total - nr
	}
	if nr < 0 {
		nr = total - nl
	}
	if nl+nr > total {
		return 0, 0, fmt.Errorf("SplitDataset: LeftSize %s and RightSize %s make %d samples, more than the dataset's %d", l, r, nl+nr, total)
	}
	if nl == 0 || nr == 0 {
		return 0, 0, fmt.Errorf("SplitDataset: LeftSize %s and RightSize %s of %d samples leave the %s part empty: give sizes that keep a sample on each side", l, r, total, map[bool]string{true: "left", false: "right"}[nl == 0])
	}
	return nl, nr, nil
}
