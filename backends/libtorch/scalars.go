//go:build libtorch

package libtorch

import (
	"math"
	"sync"

	"github.com/sugarme/gotch/ts"
)

// maxCachedScalars bounds the scalarCache: a model's constants
// (Adam's betas, a clip's bounds, 1 and 0.5) are a few dozen; values that
// change every step (a learning rate schedule's) stop being cached once
// it is full and are made and freed per Run as before.
const maxCachedScalars = 256

// scalarCache keeps the libtorch Scalars that ops take (x·c, c-x, a
// clip's bounds, ...) for the process's life: making one and freeing it
// are two cgo calls and gotch's bookkeeping, about half the cost of a
// small op with a constant operand (bench/opcost). Safe for concurrent
// use; a Scalar is an immutable host value, so ops of any engine, on any
// device and thread, may share one.
type scalarCache struct {
	mu sync.Mutex
	m  map[uint64]*ts.Scalar
}

// get returns the cached Scalar for c, making it if there is room, or
// nil when the cache is full and c is not in it.
func (s *scalarCache) get(c float64) *ts.Scalar {
	key := math.Float64bits(c)
	s.mu.Lock()
	defer s.mu.Unlock()
	if sc, ok := s.m[key]; ok {
		return sc
	}
	if len(s.m) >= maxCachedScalars {
		return nil
	}
	if s.m == nil {
		s.m = map[uint64]*ts.Scalar{}
	}
	sc := ts.FloatScalar(c)
	s.m[key] = sc
	return sc
}

// sharedScalars is the process's scalarCache, shared by every engine
// (Open makes a new engine per model).
var sharedScalars scalarCache
