//go:build !openblas

package gorgonia

// BLAS names the BLAS this build computes with.
const BLAS = "gonum (pure Go)"
