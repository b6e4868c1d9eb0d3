package utils_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/utils"
)

// splitSize reads a size of the Keras script: a value under 1 is a
// fraction (Keras's float), any other a count (its int).
func splitSize(v *float64) utils.SplitSize {
	switch {
	case v == nil:
		return utils.SplitSize{}
	case *v < 1:
		return utils.Fraction(*v)
	}
	return utils.Samples(int(*v))
}

// idsOf returns the sample ids a part holds: each row of x is (2i, 2i+1).
func idsOf(t *testing.T, x, ids keras.Array) []int {
	t.Helper()
	var out []int
	for i := range ids.Samples() {
		id := int(ids.Data[i])
		if x.Data[2*i] != float32(2*id) || x.Data[2*i+1] != float32(2*id+1) {
			t.Fatalf("row %d of x is %v, not sample %d's", i, x.Data[2*i:2*i+2], id)
		}
		out = append(out, id)
	}
	return out
}

// SplitDataset gives the parts Keras's split_dataset gives, for the same
// sizes and seeds (Python's random.shuffle), with x and y kept together.
func TestSplitDatasetMatchesKeras(t *testing.T) {
	var index loadersIndex
	loadersCorpus.Build(t, &index)
	if len(index.Splits) == 0 {
		t.Fatal("the Keras script wrote no split cases")
	}
	for _, ref := range index.Splits {
		o := ref.Options
		name := fmt.Sprintf("n%d_%s_%s_%v_%d", ref.N, splitSize(o.LeftSize), splitSize(o.RightSize), o.Shuffle, o.Seed)
		t.Run(name, func(t *testing.T) {
			x := keras.Array{Shape: []int{ref.N, 2}, Data: make([]float32, 2*ref.N)}
			ids := keras.Array{Shape: []int{ref.N}, Data: make([]float32, ref.N)}
			for i := range ref.N {
				x.Data[2*i], x.Data[2*i+1], ids.Data[i] = float32(2*i), float32(2*i+1), float32(i)
			}
			left, right, err := utils.SplitDataset([]keras.Array{x, ids}, utils.SplitDatasetOptions{
				LeftSize: splitSize(o.LeftSize), RightSize: splitSize(o.RightSize), Shuffle: o.Shuffle, Seed: o.Seed})
			if err != nil {
				t.Fatal(err)
			}
			if got := idsOf(t, left[0], left[1]); fmt.Sprint(got) != fmt.Sprint(ref.Left) {
				t.Errorf("left part %v, Keras %v", got, ref.Left)
			}
			if got := idsOf(t, right[0], right[1]); fmt.Sprint(got) != fmt.Sprint(ref.Right) {
				t.Errorf("right part %v, Keras %v", got, ref.Right)
			}
		})
	}
}

// Sizes Keras refuses are refused with the size and the allowed range,
// and so is a split that would leave a part empty (Keras then returns
// the whole dataset as its right part).
func TestSplitDatasetRefusesBadSizes(t *testing.T) {
	x := keras.Array{Shape: []int{10, 1}, Data: make([]float32, 10)}
	for _, c := range []struct {
		o    utils.SplitDatasetOptions
		want string
	}{
		{utils.SplitDatasetOptions{}, "neither LeftSize nor RightSize"},
		{utils.SplitDatasetOptions{LeftSize: utils.Fraction(1)}, "strictly between 0 and 1"},
		{utils.SplitDatasetOptions{RightSize: utils.Fraction(-0.1)}, "strictly between 0 and 1"},
		{utils.SplitDatasetOptions{LeftSize: utils.Samples(10)}, "smaller than the dataset's 10 samples"},
		{utils.SplitDatasetOptions{LeftSize: utils.Samples(0)}, "want a positive number"},
		{utils.SplitDatasetOptions{LeftSize: utils.Fraction(0.6), RightSize: utils.Fraction(0.5)}, "add up to more than 1"},
		{utils.SplitDatasetOptions{LeftSize: utils.Samples(6), RightSize: utils.Samples(5)}, "make 11 samples"},
		{utils.SplitDatasetOptions{LeftSize: utils.Fraction(0.99)}, "leave the right part empty"},
	} {
		if _, _, err := utils.SplitDataset([]keras.Array{x}, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.o, err, c.want)
		}
	}
	y := keras.Array{Shape: []int{9}, Data: make([]float32, 9)}
	if _, _, err := utils.SplitDataset([]keras.Array{x, y}, utils.SplitDatasetOptions{LeftSize: utils.Fraction(0.5)}); err == nil || !strings.Contains(err.Error(), "array 1 has 9 samples and array 0 has 10") {
		t.Errorf("arrays of 10 and 9 samples: error %v", err)
	}
}

// Split a dataset 80/20 into training and test sets, shuffled as Keras's
// split_dataset with the same seed would shuffle it.
func ExampleSplitDataset() {
	x := keras.Array{Shape: []int{10, 1}, Data: []float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}
	y := keras.Array{Shape: []int{10}, Data: []float32{0, 10, 20, 30, 40, 50, 60, 70, 80, 90}}
	train, test, err := utils.SplitDataset([]keras.Array{x, y}, utils.SplitDatasetOptions{
		LeftSize: utils.Fraction(0.8), Shuffle: true, Seed: 0})
	if err != nil {
		panic(err)
	}
	fmt.Println(train[0].Data, train[1].Data)
	fmt.Println(test[0].Data, test[1].Data)
	// Output:
	// [7 8 1 5 3 4 2 0] [70 80 10 50 30 40 20 0]
	// [9 6] [90 60]
}
