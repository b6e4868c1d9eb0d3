package kernels

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
)

// math/rand/v2's PCG is a 128-bit linear congruential generator (state =
// state·mul + inc mod 2¹²⁸) with a mixing output. Its state can be moved
// ahead by n draws in O(log n) steps (Brown, "Random number generation
// with arbitrary strides", 1994), so a long run of draws can be split
// among goroutines, each starting where the one generator would be, and
// give the same values as drawing them in order.

// The PCG's multiplier and increment, as in math/rand/v2 (pcg.go).
const (
	pcgMulHi = 2549297995355413924
	pcgMulLo = 4865540595714422341
	pcgIncHi = 6364136223846793005
	pcgIncLo = 1442695040888963407
)

// u128 is an unsigned 128-bit integer; arithmetic on it is mod 2¹²⁸.
type u128 struct{ hi, lo uint64 }

func (a u128) mul(b u128) u128 {
	hi, lo := bits.Mul64(a.lo, b.lo)
	hi += a.hi*b.lo + a.lo*b.hi
	return u128{hi, lo}
}

func (a u128) add(b u128) u128 {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi, _ := bits.Add64(a.hi, b.hi, c)
	return u128{hi, lo}
}

// pcgState reads p's state (its binary encoding is "pcg:", then hi and lo
// big-endian).
func pcgState(p *rand.PCG) u128 {
	b, err := p.MarshalBinary()
	if err != nil || len(b) != 20 {
		panic("kernels: math/rand/v2's PCG encoding changed")
	}
	return u128{binary.BigEndian.Uint64(b[4:]), binary.BigEndian.Uint64(b[12:])}
}

// setPCGState sets p's state.
func setPCGState(p *rand.PCG, s u128) { p.Seed(s.hi, s.lo) }

// pcgAdvance returns the state n draws after s.
func pcgAdvance(s u128, n uint64) u128 {
	accMul, accInc := u128{0, 1}, u128{}
	curMul, curInc := u128{pcgMulHi, pcgMulLo}, u128{pcgIncHi, pcgIncLo}
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			accMul = accMul.mul(curMul)
			accInc = accInc.mul(curMul).add(curInc)
		}
		curInc = curMul.add(u128{0, 1}).mul(curInc)
		curMul = curMul.mul(curMul)
	}
	return accMul.mul(s).add(accInc)
}
