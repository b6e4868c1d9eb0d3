package ops_test

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
)

// moreGoldenCases are the cases of the nan reductions, math, control
// flow and convolutions.
func moreGoldenCases() map[string]opFunc {
	c := map[string]opFunc{
		"nansum/grad":      u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Nansum(b, x, ops.Axis(0)) }),
		"nanmean/keepdims": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Nanmean(b, x, ops.Axis(-1), ops.KeepDims()) }),
		"nanargmax":        u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Nanargmax(b, x, ops.Axis(1)) }),
		"nanargmin":        u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Nanargmin(b, x, ops.Axis(1)) }),
		"nancumsum":        u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Nancumsum(b, x, ops.Axis(1)) }),
		"nancumprod":       u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Nancumprod(b, x, ops.Axis(1)) }),
		"nanmedian":        u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Nanmedian(b, x, ops.Axis(1)) }),
		"nanquantile":      u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Nanquantile(b, x, 0.3, ops.Axis(1)) }),
		"nanpercentile":    u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Nanpercentile(b, x, 80, ops.Axis(1)) }),
		"nanquantile/grad": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Nanquantile(b, x, 0.3, ops.Axis(0)) }),

		"segment_sum":       bin(func(b ops.Builder, d, i ops.Value) ops.Value { return ops.SegmentSum(b, d, i, 4) }),
		"segment_max":       bin(func(b ops.Builder, d, i ops.Value) ops.Value { return ops.SegmentMax(b, d, i, 3) }),
		"segment_max/empty": bin(func(b ops.Builder, d, i ops.Value) ops.Value { return ops.SegmentMax(b, d, i, 3) }),
		"segment_min":       bin(func(b ops.Builder, d, i ops.Value) ops.Value { return ops.SegmentMin(b, d, i, 3) }),
		"segment_prod":      bin(func(b ops.Builder, d, i ops.Value) ops.Value { return ops.SegmentProd(b, d, i, 3) }),
		"isin":              bin(ops.Isin),
		"correlate":         bin(func(b ops.Builder, x, y ops.Value) ops.Value { return ops.Correlate(b, x, y, ops.CorrelateValid) }),
		"correlate/same": bin(func(b ops.Builder, x, y ops.Value) ops.Value {
			return ops.Correlate(b, x, y, ops.CorrelateSame)
		}),
		"correlate/full": bin(func(b ops.Builder, x, y ops.Value) ops.Value {
			return ops.Correlate(b, x, y, ops.CorrelateFull)
		}),
		"cdist": bin(ops.Cdist), "cdist/batch": bin(ops.Cdist),
		"corrcoef": u(ops.Corrcoef),
		"histogram": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			counts, edges := ops.Histogram(b, v[0], 4, -1, 1)
			return []ops.Value{counts, edges}
		}),
		"bincount":         u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Bincount(b, x, nil, 5) }),
		"bincount/weights": bin(func(b ops.Builder, x, w ops.Value) ops.Value { return ops.Bincount(b, x, w, 4) }),
		"i0":               u(ops.I0),
		"unravel_index": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			return ops.UnravelIndex(b, v[0], 3, 4)
		}),

		"get_item":          u(func(b ops.Builder, x ops.Value) ops.Value { return ops.GetItem(b, x, 1) }),
		"get_item/negative": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.GetItem(b, x, -1) }),
		"depth_to_space":    u(func(b ops.Builder, x ops.Value) ops.Value { return ops.DepthToSpace(b, x, 2) }),
		"space_to_depth":    u(func(b ops.Builder, x ops.Value) ops.Value { return ops.SpaceToDepth(b, x, 2) }),
		"extract_sequences": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.ExtractSequences(b, x, 3, 2) }),
		"array": one(func(b ops.Builder, _ []ops.Value) ops.Value {
			return ops.Array(b, []float64{1, 2, 3, 4}, 2, 2)
		}),
		"empty":      one(func(b ops.Builder, _ []ops.Value) ops.Value { return ops.Empty(b, 2, 3) }),
		"empty_like": u(ops.EmptyLike),
		"shape": u(func(b ops.Builder, x ops.Value) ops.Value {
			s := ops.ShapeOf(x)
			f := make([]float64, len(s))
			for i, d := range s {
				f[i] = float64(d)
			}
			return b.Constant(f, backend.Shape{len(s)})
		}),
		"ndim": u(func(b ops.Builder, x ops.Value) ops.Value { return b.Scalar(float64(ops.Ndim(x))) }),
		"size": u(func(b ops.Builder, x ops.Value) ops.Value { return b.Scalar(float64(ops.Size(x))) }),

		"cond":       bin(cond),
		"cond/false": bin(cond),
		"switch": u(func(b ops.Builder, x ops.Value) ops.Value {
			branches := []func([]ops.Value) []ops.Value{
				func(v []ops.Value) []ops.Value { return []ops.Value{ops.Add(b, v[0], b.Scalar(1))} },
				func(v []ops.Value) []ops.Value { return []ops.Value{ops.Multiply(b, v[0], b.Scalar(3))} },
				func(v []ops.Value) []ops.Value { return []ops.Value{ops.Negative(b, v[0])} },
			}
			return ops.Switch(b, b.Scalar(1), branches, x)[0]
		}),
		"fori_loop": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.ForiLoop(b, 0, 4, func(i int, s []ops.Value) []ops.Value {
				return []ops.Value{ops.Add(b, ops.Multiply(b, s[0], b.Scalar(0.5)), b.Scalar(float64(i)))}
			}, []ops.Value{x})[0]
		}),
		"while_loop": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			return ops.WhileLoop(b,
				func(s []ops.Value) ops.Value { return ops.Less(b, ops.Sum(b, s[0]), b.Scalar(10)) },
				func(s []ops.Value) []ops.Value { return []ops.Value{ops.Multiply(b, s[0], b.Scalar(2))} },
				[]ops.Value{v[0]}, 6)
		}),
		"scan": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			c, ys := ops.Scan(b, func(c, x ops.Value) (ops.Value, ops.Value) {
				return ops.Add(b, c, x), ops.Multiply(b, c, x)
			}, v[0], v[1], false)
			return []ops.Value{c, ys}
		}),
		"scan/reverse": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			c, ys := ops.Scan(b, func(c, x ops.Value) (ops.Value, ops.Value) {
				return ops.Add(b, ops.Multiply(b, c, b.Scalar(0.5)), x), c
			}, v[0], v[1], true)
			return []ops.Value{c, ys}
		}),
		"map": u(func(b ops.Builder, xs ops.Value) ops.Value {
			return ops.Map(b, func(x ops.Value) ops.Value { return ops.Sum(b, ops.Multiply(b, x, x)) }, xs)
		}),
		"vectorized_map": u(func(b ops.Builder, xs ops.Value) ops.Value {
			return ops.VectorizedMap(b, func(x ops.Value) ops.Value {
				return ops.Add(b, ops.Multiply(b, x, b.Scalar(2)), b.Scalar(1))
			}, xs)
		}),
		"associative_scan": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.AssociativeScan(b, b.Add, x, false, 1)
		}),
		"associative_scan/reverse": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.AssociativeScan(b, b.Mul, x, true, 0)
		}),

		"dot_product_attention": one(func(b ops.Builder, v []ops.Value) ops.Value {
			return ops.DotProductAttention(b, v[0], v[1], v[2], ops.AttentionOptions{})
		}),
		"dot_product_attention/causal": one(func(b ops.Builder, v []ops.Value) ops.Value {
			return ops.DotProductAttention(b, v[0], v[1], v[2], ops.AttentionOptions{IsCausal: true})
		}),
		"dot_product_attention/mask_bias_scale": one(func(b ops.Builder, v []ops.Value) ops.Value {
			mask := b.Constant([]float64{1, 0, 1, 1}, backend.Shape{1, 1, 1, 4})
			return ops.DotProductAttention(b, v[0], v[1], v[2], ops.AttentionOptions{Bias: v[3], Mask: mask, Scale: 0.3})
		}),
		"dot_product_attention/grouped": one(func(b ops.Builder, v []ops.Value) ops.Value {
			return ops.DotProductAttention(b, v[0], v[1], v[2], ops.AttentionOptions{})
		}),
		"image.resize": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Resize(b, x, 5, 3, ops.ResizeOptions{}) }),
		"image.resize/nearest": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Resize(b, x, 6, 4, ops.ResizeOptions{Interpolation: "nearest"})
		}),
		"image.resize/bicubic_antialias": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Resize(b, x, 3, 2, ops.ResizeOptions{Interpolation: "bicubic", Antialias: true})
		}),
		"image.resize/one_image": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Resize(b, x, 2, 2, ops.ResizeOptions{}) }),
		"image.extract_patches": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.ExtractPatches(b, x, []int{2, 2}, ops.ConvOptions{})
		}),
		"image.extract_patches/strides_same": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.ExtractPatches(b, x, []int{3, 2}, ops.ConvOptions{Strides: []int{2, 1}, Padding: backend.Same})
		}),
		"image.crop_images":      u(func(b ops.Builder, x ops.Value) ops.Value { return ops.CropImages(b, x, 1, 2, 2, 3) }),
		"image.pad_images":       u(func(b ops.Builder, x ops.Value) ops.Value { return ops.PadImages(b, x, 1, 2, 5, 6) }),
		"image.rgb_to_grayscale": u(ops.RgbToGrayscale),
		"image.rgb_to_hsv":       u(ops.RgbToHsv),
		"image.hsv_to_rgb":       u(ops.HsvToRgb),
		"image.gaussian_blur": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.GaussianBlur(b, x, [2]int{3, 3}, [2]float64{1, 1})
		}),
		"image.gaussian_blur/sized": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.GaussianBlur(b, x, [2]int{5, 3}, [2]float64{1.5, 0.7})
		}),
		"image.sobel_edges":    u(ops.SobelEdges),
		"cholesky":             u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Cholesky(b, x, false) }),
		"cholesky/upper_batch": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Cholesky(b, x, true) }),
		"cholesky_inverse":     u(func(b ops.Builder, x ops.Value) ops.Value { return ops.CholeskyInverse(b, x, false) }),
		"det":                  u(ops.Det), "det/batch": u(ops.Det),
		"inv": u(ops.Inv),
		"lu_factor": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			lu, piv := ops.LuFactor(b, v[0])
			return []ops.Value{lu, piv}
		}),
		"slogdet": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			s, l := ops.Slogdet(b, v[0])
			return []ops.Value{s, l}
		}),
		"logdet": u(ops.Logdet),
		"solve":  bin(ops.Solve), "solve/vector": bin(ops.Solve), "solve/batch": bin(ops.Solve),
		"solve_triangular": bin(func(b ops.Builder, a, x ops.Value) ops.Value {
			return ops.SolveTriangular(b, a, x, true)
		}),
		"solve_triangular/upper": bin(func(b ops.Builder, a, x ops.Value) ops.Value {
			return ops.SolveTriangular(b, a, x, false)
		}),
		"fft": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			r, i := ops.Fft(b, v[0], v[1])
			return []ops.Value{r, i}
		}),
		"fft2": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			r, i := ops.Fft2(b, v[0], v[1])
			return []ops.Value{r, i}
		}),
		"ifft2": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			r, i := ops.Ifft2(b, v[0], v[1])
			return []ops.Value{r, i}
		}),
		"rfft": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			r, i := ops.Rfft(b, v[0], 0)
			return []ops.Value{r, i}
		}),
		"rfft/length": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			r, i := ops.Rfft(b, v[0], 8)
			return []ops.Value{r, i}
		}),
		"irfft":            bin(func(b ops.Builder, r, i ops.Value) ops.Value { return ops.Irfft(b, r, i, 0) }),
		"irfft/odd_length": bin(func(b ops.Builder, r, i ops.Value) ops.Value { return ops.Irfft(b, r, i, 7) }),
		"conv":             bin(func(b ops.Builder, x, k ops.Value) ops.Value { return ops.Conv(b, x, k, ops.ConvOptions{}) }),
		"conv/same_strides": bin(func(b ops.Builder, x, k ops.Value) ops.Value {
			return ops.Conv(b, x, k, ops.ConvOptions{Strides: []int{2}, Padding: backend.Same})
		}),
		"conv/dilated": bin(func(b ops.Builder, x, k ops.Value) ops.Value {
			return ops.Conv(b, x, k, ops.ConvOptions{DilationRate: []int{2}})
		}),
		"conv/1d": bin(func(b ops.Builder, x, k ops.Value) ops.Value {
			return ops.Conv(b, x, k, ops.ConvOptions{Padding: backend.Same})
		}),
		"conv/groups": bin(func(b ops.Builder, x, k ops.Value) ops.Value { return ops.Conv(b, x, k, ops.ConvOptions{}) }),
		"conv_transpose": bin(func(b ops.Builder, x, k ops.Value) ops.Value {
			return ops.ConvTranspose(b, x, k, ops.ConvTransposeOptions{Strides: []int{2}})
		}),
		"conv_transpose/same": bin(func(b ops.Builder, x, k ops.Value) ops.Value {
			return ops.ConvTranspose(b, x, k, ops.ConvTransposeOptions{Strides: []int{2}, Padding: backend.Same})
		}),
		"conv_transpose/output_padding": bin(func(b ops.Builder, x, k ops.Value) ops.Value {
			return ops.ConvTranspose(b, x, k, ops.ConvTransposeOptions{Strides: []int{2, 3}, OutputPadding: []int{1}})
		}),
		"conv_transpose/same_output_padding": bin(func(b ops.Builder, x, k ops.Value) ops.Value {
			return ops.ConvTranspose(b, x, k, ops.ConvTransposeOptions{Strides: []int{2}, Padding: backend.Same, OutputPadding: []int{1, 0}})
		}),
		"conv_transpose/dilated": bin(func(b ops.Builder, x, k ops.Value) ops.Value {
			return ops.ConvTranspose(b, x, k, ops.ConvTransposeOptions{DilationRate: []int{2}})
		}),
		"ctc_loss": one(func(b ops.Builder, v []ops.Value) ops.Value {
			return ops.CtcLoss(b, v[0], v[1], v[2], v[3], 0)
		}),
		"ctc_loss/mask_last": one(func(b ops.Builder, v []ops.Value) ops.Value {
			return ops.CtcLoss(b, v[0], v[1], v[2], v[3], 3)
		}),
		"ctc_decode": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			d, p := ops.CtcDecode(b, v[0], v[1], ops.CtcDecodeOptions{})
			return []ops.Value{d, p}
		}),
		"ctc_decode/no_merge_mask_last": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			d, p := ops.CtcDecode(b, v[0], v[1], ops.CtcDecodeOptions{NoMergeRepeated: true, MaskIndex: 3})
			return []ops.Value{d, p}
		}),
		"ctc_decode/random": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			d, p := ops.CtcDecode(b, v[0], v[1], ops.CtcDecodeOptions{})
			return []ops.Value{d, p}
		}),
		"qr": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			q, r := ops.Qr(b, v[0], ops.QrReduced)
			return []ops.Value{q, r}
		}),
		"qr/tall": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			q, r := ops.Qr(b, v[0], ops.QrReduced)
			return []ops.Value{q, r}
		}),
		"qr/batched": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			q, r := ops.Qr(b, v[0], "")
			return []ops.Value{q, r}
		}),
		"qr/complete": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			q, r := ops.Qr(b, v[0], ops.QrComplete)
			return []ops.Value{q, r}
		}),
		"qr/wide": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			q, r := ops.Qr(b, v[0], ops.QrReduced)
			return []ops.Value{q, r}
		}),
		"eigh":         many(func(b ops.Builder, v []ops.Value) []ops.Value { return signed(b)(ops.Eigh(b, v[0])) }),
		"eigh/batched": many(func(b ops.Builder, v []ops.Value) []ops.Value { return signed(b)(ops.Eigh(b, v[0])) }),
		"svd/values": u(func(b ops.Builder, x ops.Value) ops.Value {
			_, s, _ := ops.Svd(b, x, ops.SvdOptions{SingularValuesOnly: true})
			return s
		}),
		"svd/values_wide": u(func(b ops.Builder, x ops.Value) ops.Value {
			_, s, _ := ops.Svd(b, x, ops.SvdOptions{SingularValuesOnly: true})
			return s
		}),
		"svd/reduced": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			u, s, vh := ops.Svd(b, v[0], ops.SvdOptions{ReducedMatrices: true})
			return svdSigned(b, u, s, vh)
		}),
		"svd/reduced_wide": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			u, s, vh := ops.Svd(b, v[0], ops.SvdOptions{ReducedMatrices: true})
			return svdSigned(b, u, s, vh)
		}),
		"svd/reduced_batched": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			u, s, vh := ops.Svd(b, v[0], ops.SvdOptions{ReducedMatrices: true})
			return svdSigned(b, u, s, vh)
		}),
		"svd": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			u, s, vh := ops.Svd(b, v[0], ops.SvdOptions{})
			return svdSigned(b, u, s, vh)
		}),
		"qr/triangular": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			q, r := ops.Qr(b, v[0], ops.QrReduced)
			return []ops.Value{q, r}
		}),
		"pinv":                  u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Pinv(b, x, 0) }),
		"pinv/tall":             u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Pinv(b, x, 0) }),
		"pinv/rank_deficient":   u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Pinv(b, x, 0) }),
		"matrix_rank":           u(func(b ops.Builder, x ops.Value) ops.Value { return ops.MatrixRank(b, x, 0) }),
		"matrix_rank/deficient": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.MatrixRank(b, x, 0) }),
		"lstsq":                 bin(func(b ops.Builder, a, y ops.Value) ops.Value { return ops.Lstsq(b, a, y, 0) }),
		"lstsq/matrix":          bin(func(b ops.Builder, a, y ops.Value) ops.Value { return ops.Lstsq(b, a, y, 0) }),
		"image.affine_transform": bin(func(b ops.Builder, x, t ops.Value) ops.Value {
			return ops.AffineTransform(b, x, withoutProjection(b, t), ops.AffineTransformOptions{})
		}),
		"image.affine_transform/nearest_wrap": bin(func(b ops.Builder, x, t ops.Value) ops.Value {
			return ops.AffineTransform(b, x, withoutProjection(b, t), ops.AffineTransformOptions{Interpolation: "nearest", FillMode: "wrap"})
		}),
		"image.affine_transform/reflect": bin(func(b ops.Builder, x, t ops.Value) ops.Value {
			return ops.AffineTransform(b, x, withoutProjection(b, t), ops.AffineTransformOptions{FillMode: "reflect"})
		}),
		"image.affine_transform/mirror": bin(func(b ops.Builder, x, t ops.Value) ops.Value {
			return ops.AffineTransform(b, x, withoutProjection(b, t), ops.AffineTransformOptions{FillMode: "mirror"})
		}),
		"image.affine_transform/nearest_fill_one_image": bin(func(b ops.Builder, x, t ops.Value) ops.Value {
			return ops.AffineTransform(b, x, withoutProjection(b, t), ops.AffineTransformOptions{FillMode: "nearest", FillValue: 0.5})
		}),
		"image.affine_transform/constant_value": bin(func(b ops.Builder, x, t ops.Value) ops.Value {
			return ops.AffineTransform(b, x, withoutProjection(b, t), ops.AffineTransformOptions{FillValue: -0.75})
		}),
		"stft": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			r, i := ops.Stft(b, v[0], 8, 4, 8, ops.StftOptions{})
			return []ops.Value{r, i}
		}),
		"stft/hamming_not_centred": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			r, i := ops.Stft(b, v[0], 6, 3, 8, ops.StftOptions{Window: "hamming", NoCenter: true})
			return []ops.Value{r, i}
		}),
		"stft/no_window": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			r, i := ops.Stft(b, v[0], 4, 2, 4, ops.StftOptions{NoWindow: true})
			return []ops.Value{r, i}
		}),
		"istft": bin(func(b ops.Builder, r, i ops.Value) ops.Value {
			return ops.Istft(b, r, i, 8, 4, 8, 0, ops.StftOptions{})
		}),
		"istft/length_not_centred": bin(func(b ops.Builder, r, i ops.Value) ops.Value {
			return ops.Istft(b, r, i, 6, 3, 8, 11, ops.StftOptions{Window: "hamming", NoCenter: true})
		}),
		"istft/no_window": bin(func(b ops.Builder, r, i ops.Value) ops.Value {
			return ops.Istft(b, r, i, 4, 2, 4, 0, ops.StftOptions{NoWindow: true})
		}),
		"adaptive_average_pool":                u(func(b ops.Builder, x ops.Value) ops.Value { return ops.AdaptiveAveragePool(b, x, []int{3, 2}) }),
		"adaptive_average_pool/1d":             u(func(b ops.Builder, x ops.Value) ops.Value { return ops.AdaptiveAveragePool(b, x, []int{4}) }),
		"adaptive_max_pool":                    u(func(b ops.Builder, x ops.Value) ops.Value { return ops.AdaptiveMaxPool(b, x, []int{3}) }),
		"adaptive_max_pool/1d_grow":            u(func(b ops.Builder, x ops.Value) ops.Value { return ops.AdaptiveMaxPool(b, x, []int{5}) }),
		"argpartition":                         u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Argpartition(b, x, 2, -1) }),
		"argpartition/axis0_ties":              u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Argpartition(b, x, 1, 0) }),
		"argpartition/last":                    u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Argpartition(b, x, -1, -1) }),
		"image.map_coordinates":                bin(func(b ops.Builder, x, c ops.Value) ops.Value { return ops.MapCoordinates(b, x, c, 1, "", 0) }),
		"image.map_coordinates/nearest_wrap":   bin(func(b ops.Builder, x, c ops.Value) ops.Value { return ops.MapCoordinates(b, x, c, 0, "wrap", 0) }),
		"image.map_coordinates/3d_reflect":     bin(func(b ops.Builder, x, c ops.Value) ops.Value { return ops.MapCoordinates(b, x, c, 1, "reflect", 0) }),
		"image.map_coordinates/mirror_1d":      bin(func(b ops.Builder, x, c ops.Value) ops.Value { return ops.MapCoordinates(b, x, c, 1, "mirror", 0) }),
		"image.map_coordinates/constant_value": bin(func(b ops.Builder, x, c ops.Value) ops.Value { return ops.MapCoordinates(b, x, c, 1, "", 0.25) }),
		"image.ssim":                           bin(func(b ops.Builder, x, y ops.Value) ops.Value { return ops.Ssim(b, x, y, ops.SsimOptions{}) }),
		"image.ssim/small_window_one_image": bin(func(b ops.Builder, x, y ops.Value) ops.Value {
			return ops.Ssim(b, x, y, ops.SsimOptions{MaxVal: 2, FilterSize: 3, FilterSigma: 0.8, K1: 0.02, K2: 0.05})
		}),
		"ctc_loss/one_label": one(func(b ops.Builder, v []ops.Value) ops.Value {
			return ops.CtcLoss(b, v[0], v[1], v[2], v[3], 0)
		}),
		"conv_transpose/1d": bin(func(b ops.Builder, x, k ops.Value) ops.Value {
			return ops.ConvTranspose(b, x, k, ops.ConvTransposeOptions{Strides: []int{2}, Padding: backend.Same})
		}),
		"depthwise_conv": bin(func(b ops.Builder, x, k ops.Value) ops.Value {
			return ops.DepthwiseConv(b, x, k, ops.ConvOptions{})
		}),
		"depthwise_conv/same": bin(func(b ops.Builder, x, k ops.Value) ops.Value {
			return ops.DepthwiseConv(b, x, k, ops.ConvOptions{Strides: []int{2}, Padding: backend.Same})
		}),
		"separable_conv": one(func(b ops.Builder, v []ops.Value) ops.Value {
			return ops.SeparableConv(b, v[0], v[1], v[2], ops.ConvOptions{})
		}),
		"max_pool": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.MaxPool(b, x, []int{2, 2}, ops.PoolOptions{Strides: []int{2, 2}})
		}),
		"max_pool/same": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.MaxPool(b, x, []int{3, 3}, ops.PoolOptions{Strides: []int{2, 2}, Padding: backend.Same})
		}),
		"max_pool/1d": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.MaxPool(b, x, []int{2}, ops.PoolOptions{Strides: []int{2}})
		}),
		"average_pool": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.AveragePool(b, x, []int{2, 2}, ops.PoolOptions{Strides: []int{2, 2}})
		}),
		"average_pool/same": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.AveragePool(b, x, []int{3, 3}, ops.PoolOptions{Strides: []int{2, 2}, Padding: backend.Same})
		}),
		"average_pool/1d": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.AveragePool(b, x, []int{3}, ops.PoolOptions{Strides: []int{1}, Padding: backend.Same})
		}),
		"conv/3d": bin(func(b ops.Builder, x, k ops.Value) ops.Value { return ops.Conv(b, x, k, ops.ConvOptions{}) }),
		"conv/3d_same_strides": bin(func(b ops.Builder, x, k ops.Value) ops.Value {
			return ops.Conv(b, x, k, ops.ConvOptions{Strides: []int{2, 1, 2}, Padding: backend.Same})
		}),
		"conv/3d_dilated": bin(func(b ops.Builder, x, k ops.Value) ops.Value {
			return ops.Conv(b, x, k, ops.ConvOptions{DilationRate: []int{2, 1, 2}})
		}),
		"conv/3d_groups": bin(func(b ops.Builder, x, k ops.Value) ops.Value { return ops.Conv(b, x, k, ops.ConvOptions{}) }),
		"depthwise_conv/3d": bin(func(b ops.Builder, x, k ops.Value) ops.Value {
			return ops.DepthwiseConv(b, x, k, ops.ConvOptions{Strides: []int{2}, Padding: backend.Same})
		}),
		"separable_conv/3d": one(func(b ops.Builder, v []ops.Value) ops.Value {
			return ops.SeparableConv(b, v[0], v[1], v[2], ops.ConvOptions{})
		}),
		"conv_transpose/3d": bin(func(b ops.Builder, x, k ops.Value) ops.Value {
			return ops.ConvTranspose(b, x, k, ops.ConvTransposeOptions{Strides: []int{2, 1, 2}})
		}),
		"conv_transpose/3d_same_output_padding": bin(func(b ops.Builder, x, k ops.Value) ops.Value {
			return ops.ConvTranspose(b, x, k, ops.ConvTransposeOptions{Strides: []int{2}, Padding: backend.Same, OutputPadding: []int{1, 0, 1}})
		}),
		"max_pool/3d": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.MaxPool(b, x, []int{2, 2, 2}, ops.PoolOptions{Strides: []int{2, 2, 2}})
		}),
		"max_pool/3d_same": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.MaxPool(b, x, []int{3, 2, 3}, ops.PoolOptions{Strides: []int{2, 1, 2}, Padding: backend.Same})
		}),
		"average_pool/3d": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.AveragePool(b, x, []int{2, 3, 2}, ops.PoolOptions{Strides: []int{1, 2, 2}})
		}),
		"average_pool/3d_same": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.AveragePool(b, x, []int{3, 3, 2}, ops.PoolOptions{Strides: []int{2, 2, 1}, Padding: backend.Same})
		}),
		"adaptive_average_pool/3d": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.AdaptiveAveragePool(b, x, []int{2, 3, 2}) }),
		"adaptive_max_pool/3d":     u(func(b ops.Builder, x ops.Value) ops.Value { return ops.AdaptiveMaxPool(b, x, []int{3}) }),
		"image.extract_patches_3d": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.ExtractPatches3D(b, x, []int{2, 2, 3}, ops.ConvOptions{})
		}),
		"image.extract_patches_3d/strides_same_one_volume": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.ExtractPatches3D(b, x, []int{2}, ops.ConvOptions{Strides: []int{1, 2, 2}, Padding: backend.Same})
		}),
		"image.extract_patches_3d/dilated": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.ExtractPatches3D(b, x, []int{2, 2, 2}, ops.ConvOptions{Strides: []int{1}, DilationRate: []int{1, 2, 2}})
		}),
		"image.perspective_transform": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			return []ops.Value{ops.PerspectiveTransform(b, v[0], v[1], v[2], ops.PerspectiveTransformOptions{})}
		}),
		"image.perspective_transform/nearest_fill": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			return []ops.Value{ops.PerspectiveTransform(b, v[0], v[1], v[2], ops.PerspectiveTransformOptions{Interpolation: "nearest", FillValue: 0.5})}
		}),
		"image.elastic_transform/no_displacement": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.ElasticTransform(b, x, 0, 0.5, ops.ElasticTransformOptions{})
		}),
		"unfold": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Unfold(b, x, []int{2}, ops.UnfoldOptions{})
		}),
		"unfold/stride_pad_dilation": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Unfold(b, x, []int{2, 3}, unfoldOptions)
		}),
		"fold": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Fold(b, x, []int{4, 5}, []int{2}, ops.UnfoldOptions{})
		}),
		"fold/stride_pad_dilation": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Fold(b, x, []int{5, 6}, []int{2, 3}, unfoldOptions)
		}),
		"image.scale_and_translate": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.ScaleAndTranslate(b, x, []int{5, 5}, []float64{2, 2}, []float64{-0.5, -0.5}, []int{0, 1}, "linear", ops.ScaleAndTranslateOptions{})
		}),
		"image.scale_and_translate/cubic_down_shifted": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.ScaleAndTranslate(b, x, []int{2, 3, 4, 2}, []float64{0.6, 0.7}, []float64{0.4, -0.3}, []int{1, 2}, "bicubic", ops.ScaleAndTranslateOptions{})
		}),
		"image.scale_and_translate/lanczos3_no_antialias": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.ScaleAndTranslate(b, x, []int{1, 3, 4, 2}, []float64{0.5, 1.3}, []float64{1, 0.2}, []int{-3, -2}, "lanczos3", ops.ScaleAndTranslateOptions{NoAntialias: true})
		}),
		"vectorize": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Vectorize(b, func(a ...ops.Value) []ops.Value {
				return []ops.Value{ops.Add(b, ops.Multiply(b, a[0], a[0]), ops.Sin(b, a[0]))}
			}, "", x)[0]
		}),
		"vectorize/matvec_broadcast": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			return ops.Vectorize(b, func(a ...ops.Value) []ops.Value {
				return []ops.Value{ops.Matmul(b, a[0], a[1])}
			}, "(m,n),(n)->(m)", v[0], v[1])
		}),
		"vectorize/two_outputs": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			return ops.Vectorize(b, func(a ...ops.Value) []ops.Value {
				return []ops.Value{ops.Sum(b, a[0]), ops.Max(b, a[0])}
			}, "(n)->(),()", v[0])
		}),
		"jvp": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			out, tangent := ops.Jvp(b, func(p ...ops.Value) ops.Value { return ops.Sin(b, p[0]) }, v[:1], v[1:])
			return []ops.Value{out, tangent}
		}),
		"jvp/two_primals": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			out, tangent := ops.Jvp(b, func(p ...ops.Value) ops.Value {
				return ops.Sum(b, ops.Multiply(b, ops.Tanh(b, p[0]), p[1]), ops.Axis(0))
			}, v[:2], v[2:])
			return []ops.Value{out, tangent}
		}),
		"rearrange": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Rearrange(b, x, "b h w c -> b c h w", nil)
		}),
		"rearrange/split_merge": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Rearrange(b, x, "b (h1 h) (w1 w) c -> (b h1 w1) h w c", map[string]int{"h1": 2, "w1": 2})
		}),
		"rearrange/space_to_depth": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Rearrange(b, x, "b (h h1) (w w1) c -> b h w (c h1 w1)", map[string]int{"h1": 2, "w1": 2})
		}),
	}
	for name, f := range map[string]func(ops.Builder, ops.Value, ...ops.AxisOption) ops.Value{
		"nansum": ops.Nansum, "nanmean": ops.Nanmean, "nanmax": ops.Nanmax, "nanmin": ops.Nanmin,
		"nanprod": ops.Nanprod, "nanvar": ops.Nanvar, "nanstd": ops.Nanstd,
	} {
		c[name] = u(func(b ops.Builder, x ops.Value) ops.Value { return f(b, x, ops.Axis(1)) })
		c[name+"/all"] = u(func(b ops.Builder, x ops.Value) ops.Value { return f(b, x) })
	}
	return c
}

// cond is Keras's ops.cond(p[0] > 0, lambda: x * 2, lambda: x - 1).
func cond(b ops.Builder, p, x ops.Value) ops.Value {
	pred := ops.Greater(b, ops.GetItem(b, p, 0), b.Scalar(0))
	return ops.Cond(b, pred,
		func() []ops.Value { return []ops.Value{ops.Multiply(b, x, b.Scalar(2))} },
		func() []ops.Value { return []ops.Value{ops.Subtract(b, x, b.Scalar(1))} })[0]
}

// signed gives eigen or singular vectors up to sign, as the golden cases
// compare them (each backend's LAPACK picks its own signs): each column's
// first entry made positive.
func signed(b ops.Builder) func(w, v ops.Value) []ops.Value {
	return func(w, v ops.Value) []ops.Value {
		s := v.Shape()
		first := ops.Sign(b, b.Slice(v, make([]int, len(s)), append(s[:len(s)-2].Clone(), 1, s[len(s)-1])))
		return []ops.Value{w, b.Mul(v, first)}
	}
}

// svdSigned gives singular vectors up to their pairs' common sign, as the
// golden cases compare them: each column of u's first entry made
// positive, vh's row with it.
func svdSigned(b ops.Builder, u, s, vh ops.Value) []ops.Value {
	us := u.Shape()
	first := ops.Sign(b, b.Slice(u, make([]int, len(us)), append(us[:len(us)-2].Clone(), 1, us[len(us)-1])))
	return []ops.Value{b.Mul(u, first), s, b.Mul(vh, ops.Swapaxes(b, first, -1, -2))}
}

// withoutProjection appends zero projective terms to affine transforms
// (..., 6), as the golden cases give them (see scripts/golden-ops.py).
func withoutProjection(b ops.Builder, t ops.Value) ops.Value {
	widths := make([][2]int, len(t.Shape()))
	widths[len(widths)-1] = [2]int{0, 2}
	return ops.Pad(b, t, widths, ops.PadConstant, 0)
}

// unfoldOptions are the golden cases' non-default unfold and fold
// settings: dilation (1, 2), padding 1, stride (2, 1).
var unfoldOptions = ops.UnfoldOptions{Dilation: []int{1, 2}, Padding: []int{1}, Stride: []int{2, 1}}
