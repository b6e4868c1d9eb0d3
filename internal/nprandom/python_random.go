package nprandom

// NewPython returns the generator of Python's random.seed(seed) for an
// integer seed: the same MT19937, seeded by init_by_array with the
// seed's absolute value in 32-bit words, least significant first (the
// module keras.utils.split_dataset shuffles with).
func NewPython(seed int64) *RandomState {
	a := uint64(seed)
	if seed < 0 {
		a = uint64(-seed)
	}
	key := []uint32{uint32(a)}
	if hi := uint32(a >> 32); hi != 0 {
		key = append(key, hi)
	}
	r := New(19650218)
	i, j := 1, 0
	for k := max(624, len(key)); k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ (r.mt[i-1]^r.mt[i-1]>>30)*1664525) + key[j] + uint32(j)
		i++
		j++
		if i >= 624 {
			r.mt[0], i = r.mt[623], 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := 623; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ (r.mt[i-1]^r.mt[i-1]>>30)*1566083941) - uint32(i)
		i++
		if i >= 624 {
			r.mt[0], i = r.mt[623], 1
		}
	}
	r.mt[0] = 0x80000000
	r.idx = 624
	return r
}

// below is Python's Random._randbelow for n < 2^32: getrandbits of n's
// bit length, rejected until it is under n.
func (r *RandomState) below(n uint32) uint32 {
	k := 0
	for v := n; v > 0; v >>= 1 {
		k++
	}
	for {
		if v := r.Uint32() >> (32 - k); v < n {
			return v
		}
	}
}

// PythonShuffle permutes n elements in place as Python's random.shuffle
// does (Fisher-Yates from the end, j = randbelow(i+1)), calling swap(i,
// j) for each exchange.
func (r *RandomState) PythonShuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, int(r.below(uint32(i+1))))
	}
}
