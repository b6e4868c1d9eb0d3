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

// The orders CPython 3.11 printed for random.seed(seed); x =
// list(range(10)); random.shuffle(x), and the next getrandbits(32): one
// 32-bit seed word, two words (2^40+7) and a negative seed (its absolute
// value, as Python seeds).
func TestMatchesPythonRandom(t *testing.T) {
	for _, c := range []struct {
		seed int64
		want string
		next uint32
	}{
		{0, "[7 8 1 5 3 4 2 0 9 6]", 1537810351},
		{1, "[6 8 9 7 5 3 0 4 1 2]", 3387541014},
		{42, "[7 3 2 8 5 6 9 4 0 1]", 2536146025},
		{1<<40 + 7, "[0 5 2 3 6 1 8 4 7 9]", 1688693473},
		{-5, "[2 3 1 0 8 7 6 5 4 9]", 2787324501},
	} {
		x := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
		r := NewPython(c.seed)
		r.PythonShuffle(len(x), func(i, j int) { x[i], x[j] = x[j], x[i] })
		if fmt.Sprint(x) != c.want {
			t.Errorf("random.seed(%d); random.shuffle(range(10)) = %v, Python gives %s", c.seed, x, c.want)
		}
		if got := r.Uint32(); got != c.next {
			t.Errorf("seed %d: next getrandbits(32) = %d, Python gives %d", c.seed, got, c.next)
		}
	}
}
