//go:build !amd64

package sgemm

const haveKernel = false

func kernel(k int, a *float32, rs, cs int, b, c *float32, ldc int, overwrite bool) {
	panic("sgemm: no kernel on this architecture")
}
