package nprandom

import (
	"fmt"
	"testing"
)

// MT19937's reference outputs (Matsumoto and Nishimura's mt19937ar.c
// seeded with init_genrand(5489), the generator's default), and the
// orders NumPy 2.4.6 printed for
// x = list(range(10)); np.random.RandomState(seed).shuffle(x).
func TestMatchesNumPy(t *testing.T) {
	r := New(5489)
	if got := []uint32{r.Uint32(), r.Uint32(), r.Uint32()}; fmt.Sprint(got) != "[3499211612 581869302 3890346734]" {
		t.Fatalf("MT19937(5489) starts %v, want [3499211612 581869302 3890346734]", got)
	}
	for seed, want := range map[uint32]string{
		7:    "[8 5 0 2 1 9 7 3 6 4]",
		1337: "[6 3 0 4 5 2 1 9 8 7]",
	} {
		x := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
		New(seed).Shuffle(len(x), func(i, j int) { x[i], x[j] = x[j], x[i] })
		if fmt.Sprint(x) != want {
			t.Errorf("RandomState(%d).shuffle(range(10)) = %v, NumPy gives %s", seed, x, want)
		}
	}
}
