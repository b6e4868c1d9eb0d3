// Package sgemm is a float32 matrix product in pure Go: packed panels and,
// on amd64 CPUs with AVX2 and FMA, a 6x16 register-blocked micro-kernel in
// Go assembly (the layout of BLIS's Haswell kernel). It builds with
// CGO_ENABLED=0. Where the kernel cannot run (other CPUs or architectures),
// [Available] reports false and [Gemm] calls gonum's Sgemm.
//
// The Gorgonia engine routes its float32 matrix products here: on the
// 2-core machine this project is measured on it is several times faster
// than gonum's pure-Go Sgemm (see docs/benchmarks.md).
package sgemm
