package kernels

import "golang.org/x/sys/cpu"

// The vector kernels (the *_amd64.s files) run where the CPU has them:
// Adam's need AVX (256-bit float ops), the softmax's AVX2 too (256-bit
// integer ops, for the exponent of 2^n). Each computes what its Go
// definition computes, to the bit, so a result does not depend on the
// CPU.
var (
	haveAVX  = cpu.X86.HasAVX
	haveAVX2 = cpu.X86.HasAVX && cpu.X86.HasAVX2
)
