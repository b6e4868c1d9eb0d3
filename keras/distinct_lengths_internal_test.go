package keras

import (
	"context"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// A model over token sequences of any length, trained on 100 distinct
// lengths, keeps at most maxCompiledSteps compiled steps: the least
// recently used are freed, the Go heap stops growing, and a length that
// comes back after its step was freed trains again. The log states the
// compile-and-step time per length and the heap (go test -v).
func TestDistinctLengthsKeepBoundedSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("trains 100 lengths")
	}
	in := layers.IntInput(-1)
	x := layers.Apply(&layers.Embedding{InputDim: 20, OutputDim: 8, MaskZero: true}, in)
	x = layers.Apply(&layers.MultiHeadAttention{NumHeads: 2, KeyDim: 4}, x, x)
	out := layers.Apply(&layers.Dense{Units: 3, Activation: "softmax"}, x)
	m, err := NewModel(in, out)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(CompileOptions{Optimizer: &optimizers.Adam{}, Loss: Loss("sparse_categorical_crossentropy"), Metrics: Metrics("accuracy")}); err != nil {
		t.Fatal(err)
	}
	const lengths = 100
	batch := func(steps int) (Array, Array) {
		ids := make([]int32, 4*steps)
		y := make([]float32, 4*steps)
		for i := range ids {
			ids[i] = int32(1 + i%19)
			y[i] = float32(i % 3)
		}
		return Must(NewIntArray(ids, 4, steps)), Must(NewArray(y, 4, steps))
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	var heapAt []uint64
	start := time.Now()
	for steps := 1; steps <= lengths; steps++ {
		bx, by := batch(steps)
		if _, err := m.TrainOnBatch(context.Background(), bx, by, OnBatchOptions{}); err != nil {
			t.Fatalf("%d steps: %v", steps, err)
		}
		if steps%25 == 0 {
			heapAt = append(heapAt, heap())
		}
	}
	elapsed := time.Since(start)
	exes := &m.compiled.bind.exes
	kept, evicted := len(exes.keys()), exes.evicted
	if kept > maxCompiledSteps {
		t.Errorf("%d compiled steps kept, the bound is %d", kept, maxCompiledSteps)
	}
	if evicted != lengths-maxCompiledSteps {
		t.Errorf("%d steps freed, want %d", evicted, lengths-maxCompiledSteps)
	}
	// The same lengths again, from the longest: the first 36 were freed
	// and are compiled again, the rest are reused; the heap does not
	// grow by another 100 steps' worth.
	for steps := lengths; steps >= 1; steps-- {
		bx, by := batch(steps)
		if _, err := m.TrainOnBatch(context.Background(), bx, by, OnBatchOptions{}); err != nil {
			t.Fatalf("%d steps again: %v", steps, err)
		}
	}
	again := heap()
	t.Logf("%d distinct lengths (1..%d steps, batch 4, Embedding+MultiHeadAttention+Dense on %s): %.1f ms per length (compile and one step); %d steps kept, %d freed; Go heap after 25/50/75/100 lengths: %v MB, after the 100 lengths again: %.1f MB; the process's peak resident memory %s",
		lengths, lengths, m.compiled.be.Name(), float64(elapsed.Milliseconds())/lengths, kept, evicted, megabytes(heapAt), float64(again>>10)/1024, procStatus("VmHWM"))
	if first := heapAt[len(heapAt)-1]; again > first+first/4 {
		t.Errorf("the Go heap grew from %d to %d bytes over lengths whose steps were freed", first, again)
	}
	if n := len(exes.keys()); n > maxCompiledSteps {
		t.Errorf("%d compiled steps kept, the bound is %d", n, maxCompiledSteps)
	}
}

// procStatus is a field of /proc/self/status ("VmHWM": the peak resident
// memory), or "unknown" off Linux.
func procStatus(field string) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func megabytes(bs []uint64) []float64 {
	out := make([]float64, len(bs))
	for i, b := range bs {
		out[i] = float64(b>>10) / 1024
	}
	return out
}
