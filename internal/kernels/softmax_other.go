//go:build !amd64

package kernels

func maxAVX(x *float32, blocks int, lanes *[8]float32) { panic(noVectorKernels) }
func expSumAVX(x, y *float32, blocks int, shift float32, sums *[8]float64) {
	panic(noVectorKernels)
}
func scaleAVX(y *float32, blocks int, s float32) { panic(noVectorKernels) }
func dotLanesAVX(y, g *float32, blocks int, sums *[8]float64) {
	panic(noVectorKernels)
}
func softmaxGradAVX(y, g, dx *float32, blocks int, sum float64) {
	panic(noVectorKernels)
}

const noVectorKernels = "kernels: no vector kernels on this architecture"
