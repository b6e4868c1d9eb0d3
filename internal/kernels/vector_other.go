//go:build !amd64

package kernels

// Off amd64 every kernel runs in Go.
const (
	haveAVX  = false
	haveAVX2 = false
)
