package ops

import "math"

// SsimOptions are image.ssim's options; the zero value is Keras's
// default: max_val 1, an 11×11 Gaussian window of σ 1.5, k1 0.01, k2
// 0.03.
type SsimOptions struct {
	MaxVal      float64 // 0: 1
	FilterSize  int     // 0: 11; odd
	FilterSigma float64 // 0: 1.5
	K1, K2      float64 // 0: 0.01 and 0.03
}

// Ssim is the structural similarity of image1 and image2 (batch, height,
// width, channels), or one image each (height, width, channels), Keras's
// ops.image.ssim: per channel, the mean over the valid windows of the
// Gaussian-weighted SSIM map, averaged over the channels; (batch,), or a
// scalar for one image. As Keras's own backend-agnostic code computes it.
func Ssim(b Builder, image1, image2 Value, o SsimOptions) Value {
	const op = "Ssim"
	if missing(b, op, []string{"image1", "image2"}, image1, image2) {
		return b.Fail(nil, b.Err())
	}
	s1, s2 := image1.Shape(), image2.Shape()
	if !s1.Equal(s2) {
		return failf(b, op, s1, "image1 %v and image2 %v must have one shape", s1, s2)
	}
	x1, _, ok := batchOf(b, op, image1)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	x2, _, _ := batchOf(b, op, image2)
	maxVal, size, sigma, k1, k2 := o.MaxVal, o.FilterSize, o.FilterSigma, o.K1, o.K2
	if maxVal == 0 {
		maxVal = 1
	}
	if size == 0 {
		size = 11
	}
	if sigma == 0 {
		sigma = 1.5
	}
	if k1 == 0 {
		k1 = 0.01
	}
	if k2 == 0 {
		k2 = 0.03
	}
	s := x1.Shape()
	if size < 1 || size%2 == 0 || size > s[1] || size > s[2] {
		return failf(b, op, s1, "filter_size %d must be odd, at least 1 and at most the images' %dx%d", size, s[1], s[2])
	}
	channels := s[3]
	gauss := make([]float64, size)
	total := 0.0
	for i := range gauss {
		d := float64(i) - float64(size-1)/2
		gauss[i] = math.Exp(-d * d / (2 * sigma * sigma))
		total += gauss[i]
	}
	kernel := make([]float64, 0, size*size*channels)
	for i := range size {
		for j := range size {
			for range channels {
				kernel = append(kernel, gauss[i]*gauss[j]/(total*total))
			}
		}
	}
	k := b.Constant(kernel, Shape{size, size, channels, 1})
	blur := func(x Value) Value { return DepthwiseConv(b, x, k, ConvOptions{}) }
	mu1, mu2 := blur(x1), blur(x2)
	mu1Sq, mu2Sq, mu12 := b.Mul(mu1, mu1), b.Mul(mu2, mu2), b.Mul(mu1, mu2)
	sigma1 := b.Sub(blur(b.Mul(x1, x1)), mu1Sq)
	sigma2 := b.Sub(blur(b.Mul(x2, x2)), mu2Sq)
	sigma12 := b.Sub(blur(b.Mul(x1, x2)), mu12)
	c1, c2 := scalar(b, (k1*maxVal)*(k1*maxVal)), scalar(b, (k2*maxVal)*(k2*maxVal))
	two := scalar(b, 2)
	numerator := b.Mul(b.Add(b.Mul(two, mu12), c1), b.Add(b.Mul(two, sigma12), c2))
	denominator := b.Mul(b.Add(b.Add(mu1Sq, mu2Sq), c1), b.Add(b.Add(sigma1, sigma2), c2))
	perImage := b.Mean(b.Div(numerator, denominator), 1, 2, 3) // (batch,)
	if len(s1) == 3 {
		return b.Reshape(perImage, Shape{})
	}
	return perImage
}
