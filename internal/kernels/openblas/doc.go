// Package openblas links OpenBLAS into the -tags openblas build and
// makes it gonum's BLAS (through gonum's netlib binding), for package
// kernels' GEMMs. It is a package of its own because it uses cgo, and a
// package using cgo may not hold Go assembly (kernels' vector kernels).
// Without the openblas tag it is empty.
package openblas
