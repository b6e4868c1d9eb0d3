package sgemm

import "golang.org/x/sys/cpu"

// haveKernel: the kernel needs AVX2 (256-bit integer/float ops and
// broadcasts) and FMA3.
var haveKernel = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// kernel adds the product of an mr x k panel of A, element (r, p) at
// a + r·rs + p·cs (strides in floats), and a packed k x nr panel of B to the
// mr x nr tile of C at c (row stride ldc floats), or with overwrite
// stores the product there without reading C.
//
//go:noescape
func kernel(k int, a *float32, rs, cs int, b, c *float32, ldc int, overwrite bool)
