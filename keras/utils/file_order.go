package utils

import (
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/kerasgo/kerasgo/keras"
)

// fileOrder is the batching of a folder's files that ImageDataset and
// TextDataset share: the files of each batch in this epoch's order, their
// labels in the label mode, and the reshuffle at each epoch's end. It is
// safe for concurrent batch calls.
type fileOrder struct {
	n         int   // files
	labels    []int // nil without labels
	classes   int
	labelMode string
	batchSize int
	seed      uint32
	shuffle   bool

	mu    sync.RWMutex
	order []int // the files of this epoch, in order
	epoch uint64
}

func newFileOrder(n int, labels []int, classes int, d directoryIndex, shuffle bool) *fileOrder {
	f := &fileOrder{n: n, labels: labels, classes: classes, labelMode: d.labelMode, batchSize: d.batchSize, seed: d.seed, shuffle: shuffle, order: make([]int, n)}
	for i := range f.order {
		f.order[i] = i
	}
	return f
}

// batches is the number of batches.
func (f *fileOrder) batches() int { return (f.n + f.batchSize - 1) / f.batchSize }

// batchFiles returns the files of batch i of a kind of dataset.
func (f *fileOrder) batchFiles(i int, kind string) ([]int, error) {
	if i < 0 || i >= f.batches() {
		return nil, fmt.Errorf("batch %d of a %s of %d batches", i, kind, f.batches())
	}
	f.mu.RLock()
	defer f.mu.RUnlock()
	from, to := i*f.batchSize, min((i+1)*f.batchSize, len(f.order))
	return append([]int(nil), f.order[from:to]...), nil
}

// labelArray is the labels of files in the label mode: class indices
// ("int"), one-hot vectors ("categorical") or (n, 1) floats ("binary").
func (f *fileOrder) labelArray(files []int) keras.Array {
	n := len(files)
	switch f.labelMode {
	case "categorical":
		k := f.classes
		y := keras.Array{Shape: []int{n, k}, Data: make([]float32, n*k)}
		for i, fi := range files {
			y.Data[i*k+f.labels[fi]] = 1
		}
		return y
	case "binary":
		y := keras.Array{Shape: []int{n, 1}, Data: make([]float32, n)}
		for i, fi := range files {
			y.Data[i] = float32(f.labels[fi])
		}
		return y
	}
	y := keras.Array{Shape: []int{n}, Data: make([]float32, n)}
	for i, fi := range files {
		y.Data[i] = float32(f.labels[fi])
	}
	return y
}

// reshuffle orders the files for the next epoch (when shuffling), as
// Keras's dataset reshuffles every epoch; the order follows from the seed
// and the epoch's number.
func (f *fileOrder) reshuffle() {
	if !f.shuffle {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.epoch++
	r := rand.New(rand.NewPCG(uint64(f.seed), f.epoch))
	r.Shuffle(len(f.order), func(i, j int) { f.order[i], f.order[j] = f.order[j], f.order[i] })
}
