//go:build libtorch

package libtorch

import (
	"math"
	"sync"
	"testing"

	"github.com/sugarme/gotch/ts"
)

// The cache gives one Scalar per value (bit for bit: -0 is not +0), from
// any goroutine, and nil for a new value once it is full, so that ops
// fall back to a Scalar of their own.
func TestScalarCache(t *testing.T) {
	var c scalarCache
	var wg sync.WaitGroup
	got := make([]*ts.Scalar, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = c.get(0.9)
		}()
	}
	wg.Wait()
	for i, p := range got {
		if p == nil || p != got[0] {
			t.Fatalf("goroutine %d got Scalar %p, goroutine 0 %p: want one shared Scalar", i, p, got[0])
		}
	}
	if v, err := got[0].ToFloat(); err != nil || v != 0.9 {
		t.Errorf("cached Scalar holds %v, %v; want 0.9", v, err)
	}
	if c.get(0) == c.get(math.Copysign(0, -1)) {
		t.Error("+0 and -0 share a Scalar")
	}
	for i := len(c.m); i < maxCachedScalars; i++ {
		if c.get(float64(i)+0.5) == nil {
			t.Fatalf("cache refused value %d of %d", i, maxCachedScalars)
		}
	}
	if c.get(-12345) != nil {
		t.Error("a full cache made a new Scalar")
	}
	if c.get(0.9) == nil {
		t.Error("a full cache lost a cached Scalar")
	}
	// Ops use it: a Scalar operand comes from the cache.
	if sc := sharedScalars.get(0.25); sc == nil || sharedScalars.get(0.25) != sc {
		t.Error("sharedScalars does not keep 0.25")
	}
	if sc := sharedScalars.get(0.25); (&eagerOps{}).scalar(0.25) != sc {
		t.Error("eagerOps.scalar does not use sharedScalars")
	}
}
