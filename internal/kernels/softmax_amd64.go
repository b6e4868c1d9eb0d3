package kernels

// maxAVX writes the lane-wise maximum of blocks blocks of 8 values.
//
//go:noescape
func maxAVX(x *float32, blocks int, lanes *[8]float32)

// expSumAVX writes exp32(x - shift) for blocks blocks of 8 values into y
// and adds the results, in float64, lane by lane into sums.
//
//go:noescape
func expSumAVX(x, y *float32, blocks int, shift float32, sums *[8]float64)

// scaleAVX multiplies blocks blocks of 8 values by s.
//
//go:noescape
func scaleAVX(y *float32, blocks int, s float32)

// dotLanesAVX adds y·grad (each product rounded to float32) for blocks
// blocks of 8 values, in float64, lane by lane into sums.
//
//go:noescape
func dotLanesAVX(y, grad *float32, blocks int, sums *[8]float64)

// softmaxGradAVX writes y·(grad - sum), computed in float64 and rounded to
// float32, for blocks blocks of 8 values.
//
//go:noescape
func softmaxGradAVX(y, grad, dx *float32, blocks int, sum float64)
