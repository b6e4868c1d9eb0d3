package keras

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// countingDataset is a Dataset of n empty batches.
type countingDataset struct{ n int }

func (d countingDataset) Len() int { return d.n }
func (d countingDataset) Batch(context.Context, int) (Batch, error) {
	return Batch{}, nil
}

// loadedIndices drains a batchFeed's loader: the Dataset's indices it
// loads, in order.
func loadedIndices(t *testing.T, f feed) []int {
	t.Helper()
	bf := f.(*batchFeed)
	defer bf.close()
	var idx []int
	for {
		l, ok, err := bf.l.next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return idx
		}
		idx = append(idx, l.index)
	}
}

// In a data-parallel job each process loads only its share of a
// Dataset's batches: every WorldSize-th of the order all processes agree
// on (from the seed), padded from its start so that every process takes
// the same number of steps, as arrays are sharded; an endless Dataset's
// batches are dealt out in turn.
func TestDatasetShardsAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{8, 7} {
		var shards [][]int
		for rank := range 2 {
			s := &batchSource{b: Batches{Dataset: countingDataset{n}, Workers: 2, MaxQueueSize: 3}}
			e, err := newBatchEpochs(s, 0, true, rank, 2)
			if err != nil {
				t.Fatal(err)
			}
			e.start(42)
			if got, want := e.stepsPerEpoch(), (n+1)/2; got != want {
				t.Errorf("%d batches: %d steps per epoch on each of 2 processes, want %d", n, got, want)
			}
			f, err := e.epoch(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			shards = append(shards, loadedIndices(t, f))
		}
		all := slices.Sorted(slices.Values(append(append([]int(nil), shards[0]...), shards[1]...)))
		want := make([]int, 0, n)
		for i := range n {
			want = append(want, i)
		}
		if n%2 == 1 { // one batch repeated to even the shards out
			dups := 0
			for i := 1; i < len(all); i++ {
				if all[i] == all[i-1] {
					dups++
				}
			}
			if dups != 1 || len(all) != n+1 || len(shards[0]) != len(shards[1]) {
				t.Errorf("%d batches on 2 processes: shards %v and %v, want equal shards covering all with one repeat", n, shards[0], shards[1])
			}
			continue
		}
		if fmt.Sprint(all) != fmt.Sprint(want) {
			t.Errorf("%d batches on 2 processes: shards %v and %v do not cover each batch once", n, shards[0], shards[1])
		}
		if slices.IsSorted(shards[0]) && slices.IsSorted(shards[1]) && shards[0][0] == 0 && shards[0][1] == 2 && shards[0][2] == 4 {
			t.Errorf("the shards %v and %v are not shuffled", shards[0], shards[1])
		}
	}

	var got [][]int
	for rank := range 2 {
		s := &batchSource{b: Batches{Dataset: countingDataset{-1}, Workers: 1, MaxQueueSize: 1}}
		e, err := newBatchEpochs(s, 3, true, rank, 2)
		if err != nil {
			t.Fatal(err)
		}
		e.start(1)
		for range 2 {
			f, err := e.epoch(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, loadedIndices(t, f))
		}
	}
	if fmt.Sprint(got) != "[[0 2 4] [6 8 10] [1 3 5] [7 9 11]]" {
		t.Errorf("an endless Dataset's epochs of 3 steps on 2 processes loaded %v", got)
	}
}
