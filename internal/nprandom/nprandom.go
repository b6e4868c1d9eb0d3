// Package nprandom reproduces NumPy's legacy numpy.random.RandomState
// where Keras depends on it: the MT19937 generator seeded with an
// integer, and RandomState.shuffle. Keras's image and text loaders
// shuffle their file list with RandomState(seed).shuffle, so the same
// seed gives kerasgo the same order and the same validation split.
// NewPython and PythonShuffle are Python's own random module over the
// same generator, which keras.utils.split_dataset shuffles with.
package nprandom

// RandomState is NumPy's RandomState(seed) for an integer seed: an
// MT19937 generator. Not safe for concurrent use.
type RandomState struct {
	mt  [624]uint32
	idx int
}

// New returns RandomState(seed) (NumPy takes seeds in [0, 2^32)).
func New(seed uint32) *RandomState {
	r := &RandomState{idx: 624}
	r.mt[0] = seed
	for i := 1; i < 624; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	return r
}

// Uint32 is MT19937's next output (genrand_int32).
func (r *RandomState) Uint32() uint32 {
	if r.idx >= 624 {
		for i := range 624 {
			y := r.mt[i]&0x80000000 | r.mt[(i+1)%624]&0x7fffffff
			v := r.mt[(i+397)%624] ^ y>>1
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			r.mt[i] = v
		}
		r.idx = 0
	}
	y := r.mt[r.idx]
	r.idx++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// interval is NumPy's random_interval: a uniform integer in [0, max] by
// masking and rejection (max < 2^32 here).
func (r *RandomState) interval(max uint32) uint32 {
	if max == 0 {
		return 0
	}
	mask := max
	for s := uint(1); s < 32; s *= 2 {
		mask |= mask >> s
	}
	for {
		if v := r.Uint32() & mask; v <= max {
			return v
		}
	}
}

// Shuffle permutes n elements in place as RandomState.shuffle does
// (Fisher-Yates from the end), calling swap(i, j) for each exchange.
func (r *RandomState) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, int(r.interval(uint32(i))))
	}
}

// Permutation is 0..n-1 shuffled by r, as r.shuffle(np.arange(n)).
func (r *RandomState) Permutation(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	r.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	return idx
}
