package kernels

import (
	"github.com/kerasgo/kerasgo/internal/parallel"
	"github.com/kerasgo/kerasgo/keras/backend"
	"gonum.org/v1/gonum/blas"
)

// Geom is a channels_last convolution's geometry.
type Geom struct {
	n, h, w, c     int // input
	kh, kw, f      int // kernel (kh, kw, c, f)
	oh, ow         int // output rows and columns
	sh, sw, ph, pw int // strides and padding before
}

// NewConvGeom returns the geometry of a channels_last convolution of an
// input of shape xs by a kernel of shape ks (kh, kw, c, f) to out.
func NewConvGeom(xs, ks backend.Shape, o backend.ConvOptions, out backend.Shape) Geom {
	_, ph, _ := backend.ConvOutputSize(xs[1], ks[0], o.Strides[0], o.Padding)
	_, pw, _ := backend.ConvOutputSize(xs[2], ks[1], o.Strides[1], o.Padding)
	return Geom{n: xs[0], h: xs[1], w: xs[2], c: xs[3], kh: ks[0], kw: ks[1], f: ks[3],
		oh: out[1], ow: out[2], sh: o.Strides[0], sw: o.Strides[1], ph: ph, pw: pw}
}

// rows is the number of output positions per sample; cols the length of
// one im2col row (one receptive field).
func (g Geom) rows() int { return g.oh * g.ow }
func (g Geom) cols() int { return g.kh * g.kw * g.c }

// chunk is how many samples one im2col buffer holds: about 16 MB of
// float32, so the buffer stays small whatever the batch size.
func (g Geom) chunk() int {
	per := g.rows() * g.cols()
	return max(1, min(g.n, (4<<20)/max(per, 1)))
}

// ScratchLen is the length of the im2col buffer the convolution kernels
// take: the receptive fields of one chunk of samples.
func (g Geom) ScratchLen() int { return g.chunk() * g.rows() * g.cols() }

// im2col writes the receptive fields of samples [s0, s1) of x (NHWC) as
// rows of cols, zero where padding.
func im2col[T float32 | float64](g Geom, x, cols []T, s0, s1 int) {
	parallel.For(s1-s0, func(i int) {
		s := s0 + i
		dst := cols[i*g.rows()*g.cols():]
		for oy := 0; oy < g.oh; oy++ {
			for ox := 0; ox < g.ow; ox++ {
				row := dst[(oy*g.ow+ox)*g.cols():]
				for a := 0; a < g.kh; a++ {
					seg := row[a*g.kw*g.c : (a+1)*g.kw*g.c]
					y := oy*g.sh + a - g.ph
					if y < 0 || y >= g.h {
						clear(seg)
						continue
					}
					lo, hi, x0 := g.validColumns(ox)
					clear(seg[:lo*g.c])
					if hi > lo {
						copyShort(seg[lo*g.c:hi*g.c], x[((s*g.h+y)*g.w+x0)*g.c:])
					}
					clear(seg[hi*g.c:])
				}
			}
		}
	})
}

// validColumns returns the columns [lo, hi) of the kernel that fall inside
// the image for output column ox, and the image column of the first:
// along a kernel row they are one contiguous run of x (channels_last).
func (g Geom) validColumns(ox int) (lo, hi, x0 int) {
	first := ox*g.sw - g.pw
	lo, hi = max(0, -first), min(g.kw, g.w-first)
	if hi < lo {
		hi = lo
	}
	return lo, hi, first + lo
}

// copyShort is copy, by a loop for the few values of a narrow kernel row
// (a 3x3 kernel over one channel copies 3), where memmove's call costs
// more than the copy.
func copyShort[T float32 | float64](dst, src []T) {
	if len(dst) > 16 {
		copy(dst, src)
		return
	}
	src = src[:len(dst)]
	//lint:ignore S1001 a loop on purpose: copy calls memmove
	for i, v := range src {
		dst[i] = v
	}
}

// col2im writes the sums of rows of cols onto the samples [s0, s1) of dx
// (NHWC), the adjoint of im2col, a kernel row's valid run at a time. Each
// sample is cleared first, by the goroutine that sums into it.
func col2im[T float32 | float64](g Geom, cols, dx []T, s0, s1 int) {
	parallel.For(s1-s0, func(i int) {
		s := s0 + i
		clear(dx[s*g.h*g.w*g.c : (s+1)*g.h*g.w*g.c])
		src := cols[i*g.rows()*g.cols():]
		for oy := 0; oy < g.oh; oy++ {
			for ox := 0; ox < g.ow; ox++ {
				row := src[(oy*g.ow+ox)*g.cols():]
				lo, hi, x0 := g.validColumns(ox)
				for a := 0; a < g.kh; a++ {
					y := oy*g.sh + a - g.ph
					if y < 0 || y >= g.h || hi == lo {
						continue
					}
					seg := row[(a*g.kw+lo)*g.c : (a*g.kw+hi)*g.c]
					d := dx[((s*g.h+y)*g.w+x0)*g.c:]
					d = d[:len(seg)]
					for ch, v := range seg {
						d[ch] += v
					}
				}
			}
		}
	})
}

// ConvForward: out (N*OH*OW, F) = im2col(x) · kernel (KH*KW*C, F).
func ConvForward[T float32 | float64](g Geom, x, k, out, cols []T) {
	ch := g.chunk()
	for s0 := 0; s0 < g.n; s0 += ch {
		s1 := min(s0+ch, g.n)
		im2col(g, x, cols, s0, s1)
		m := (s1 - s0) * g.rows()
		Gemm(blas.NoTrans, blas.NoTrans, m, g.f, g.cols(), cols[:m*g.cols()], k, 0, out[s0*g.rows()*g.f:])
	}
}

// ConvGradKernel: dk (KH*KW*C, F) = sum over chunks of im2col(x)ᵀ · dy.
func ConvGradKernel[T float32 | float64](g Geom, x, dy, dk, cols []T) {
	ch := g.chunk()
	for s0 := 0; s0 < g.n; s0 += ch {
		s1 := min(s0+ch, g.n)
		im2col(g, x, cols, s0, s1)
		m := (s1 - s0) * g.rows()
		beta := T(1)
		if s0 == 0 {
			beta = 0
		}
		Gemm(blas.Trans, blas.NoTrans, g.cols(), g.f, m, cols[:m*g.cols()], dy[s0*g.rows()*g.f:(s0*g.rows()+m)*g.f], beta, dk)
	}
}

// SingleChunk reports whether ConvForward fits every sample's receptive
// fields in its buffer at once, so that the buffer still holds them all
// when the backward pass runs (see ConvGradKernelFromCols).
func (g Geom) SingleChunk() bool { return g.chunk() >= g.n }

// ConvGradKernelFromCols is ConvGradKernel from the receptive fields that
// ConvForward left in cols for the same x (the geometry must be
// SingleChunk): dk = colsᵀ · dy, without running im2col again.
func ConvGradKernelFromCols[T float32 | float64](g Geom, cols, dy, dk []T) {
	m := g.n * g.rows()
	Gemm(blas.Trans, blas.NoTrans, g.cols(), g.f, m, cols[:m*g.cols()], dy[:m*g.f], 0, dk)
}

// ConvGradInput: dx = col2im(dy · kernelᵀ).
func ConvGradInput[T float32 | float64](g Geom, dy, k, dx, cols []T) {
	ch := g.chunk()
	for s0 := 0; s0 < g.n; s0 += ch {
		s1 := min(s0+ch, g.n)
		m := (s1 - s0) * g.rows()
		Gemm(blas.NoTrans, blas.Trans, m, g.cols(), g.f, dy[s0*g.rows()*g.f:(s0*g.rows()+m)*g.f], k, 0, cols[:m*g.cols()])
		col2im(g, cols, dx, s0, s1)
	}
}

// Scratch is an op's reusable im2col buffer.
type Scratch struct {
	f32 []float32
	f64 []float64
}

// ScratchOf returns n elements of s's buffer of T, grown as needed.
func ScratchOf[T float32 | float64](s *Scratch, n int) []T {
	var zero T
	switch any(zero).(type) {
	case float32:
		if len(s.f32) < n {
			s.f32 = make([]float32, n)
		}
		return any(s.f32[:n]).([]T)
	default:
		if len(s.f64) < n {
			s.f64 = make([]float64, n)
		}
		return any(s.f64[:n]).([]T)
	}
}
