package keras

import (
	"math/rand/v2"
	"sync"
)

// seedSource, once SetRandomSeed is called, gives the seeds kerasgo
// would otherwise draw at random.
var seedSource struct {
	mu sync.Mutex
	r  *rand.Rand
}

// SetRandomSeed is Keras's keras.utils.set_random_seed: from this call
// on, every seed kerasgo would draw at random (a Compile with Seed 0,
// which seeds the weights' initial values and the step's random draws,
// and a Fit with Seed 0, which seeds the shuffling) is drawn from one
// generator seeded with seed, so a program that calls it first gives
// the same weights, batches and draws on every run. Like Keras's, it
// changes state for the whole process; the seeds given explicitly are
// not affected. Safe for concurrent use, though concurrent Compiles then
// take the seeds in the order they arrive.
func SetRandomSeed(seed int64) {
	seedSource.mu.Lock()
	seedSource.r = rand.New(rand.NewPCG(uint64(seed), 0x6b657261735f7365))
	seedSource.mu.Unlock()
}

// drawSeed returns a nonzero seed: from SetRandomSeed's generator when
// it was called, else at random.
func drawSeed() int64 {
	seedSource.mu.Lock()
	defer seedSource.mu.Unlock()
	for {
		var s int64
		if seedSource.r != nil {
			s = seedSource.r.Int64()
		} else {
			s = rand.Int64()
		}
		if s != 0 {
			return s
		}
	}
}
