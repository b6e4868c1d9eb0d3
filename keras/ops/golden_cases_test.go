package ops_test

import (
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
)

// opFunc builds one golden case from its inputs.
type opFunc func(b ops.Builder, in []ops.Value) []ops.Value

func u(f func(ops.Builder, ops.Value) ops.Value) opFunc {
	return func(b ops.Builder, in []ops.Value) []ops.Value { return []ops.Value{f(b, in[0])} }
}

func bin(f func(ops.Builder, ops.Value, ops.Value) ops.Value) opFunc {
	return func(b ops.Builder, in []ops.Value) []ops.Value { return []ops.Value{f(b, in[0], in[1])} }
}

func one(f func(b ops.Builder, in []ops.Value) ops.Value) opFunc {
	return func(b ops.Builder, in []ops.Value) []ops.Value { return []ops.Value{f(b, in[0:len(in):len(in)])} }
}

func many(f func(b ops.Builder, in []ops.Value) []ops.Value) opFunc { return f }

func reduce(f func(ops.Builder, ops.Value, ...ops.AxisOption) ops.Value) map[string]opFunc {
	return map[string]opFunc{
		"":               u(func(b ops.Builder, x ops.Value) ops.Value { return f(b, x) }),
		"/axis1":         u(func(b ops.Builder, x ops.Value) ops.Value { return f(b, x, ops.Axis(1)) }),
		"/axes_keepdims": u(func(b ops.Builder, x ops.Value) ops.Value { return f(b, x, ops.Axis(0, 2), ops.KeepDims()) }),
	}
}

// goldenCases maps each case of testdata/golden.json to the same call in
// Go.
func goldenCases() map[string]opFunc {
	c := map[string]opFunc{
		"abs": u(ops.Abs), "absolute": u(ops.Absolute), "fabs": u(ops.Fabs), "negative": u(ops.Negative),
		"square": u(ops.Square), "exp": u(ops.Exp), "exp2": u(ops.Exp2), "expm1": u(ops.Expm1),
		"sin": u(ops.Sin), "cos": u(ops.Cos), "tan": u(ops.Tan), "arctan": u(ops.Arctan), "sinh": u(ops.Sinh),
		"cosh": u(ops.Cosh), "tanh": u(ops.Tanh), "arcsinh": u(ops.Arcsinh), "erf": u(ops.Erf), "erfc": u(ops.Erfc),
		"deg2rad": u(ops.Deg2rad), "rad2deg": u(ops.Rad2deg), "sinc": u(ops.Sinc), "cbrt": u(ops.Cbrt),
		"conj": u(ops.Conj), "conjugate": u(ops.Conjugate), "real": u(ops.Real), "copy": u(ops.Copy),
		"reciprocal": u(ops.Reciprocal), "sqrt": u(ops.Sqrt), "rsqrt": u(ops.Rsqrt), "log": u(ops.Log),
		"log2": u(ops.Log2), "log10": u(ops.Log10), "log1p": u(ops.Log1p), "arcsin": u(ops.Arcsin),
		"arccos": u(ops.Arccos), "arctanh": u(ops.Arctanh), "arccosh": u(ops.Arccosh), "erfinv": u(ops.Erfinv),
		"imag": u(ops.Imag), "angle": u(ops.Angle), "sign": u(ops.Sign), "floor": u(ops.Floor), "ceil": u(ops.Ceil),
		"trunc": u(ops.Trunc), "signbit": u(ops.Signbit),
		"round":          u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Round(b, x, 0) }),
		"round/decimals": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Round(b, x, 1) }),
		"isnan":          u(ops.Isnan), "isinf": u(ops.Isinf), "isfinite": u(ops.Isfinite), "isposinf": u(ops.Isposinf),
		"isneginf": u(ops.Isneginf), "isreal": u(ops.Isreal),
		"nan_to_num": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.NanToNum(b, x, 0, 9, -9) }),
		"clip":       u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Clip(b, x, -0.5, 0.5) }),

		"add": bin(ops.Add), "subtract": bin(ops.Subtract), "multiply": bin(ops.Multiply), "maximum": bin(ops.Maximum),
		"minimum": bin(ops.Minimum), "logaddexp": bin(ops.Logaddexp), "logaddexp2": bin(ops.Logaddexp2),
		"hypot": bin(ops.Hypot), "arctan2": bin(ops.Arctan2), "arctan2/axes": bin(ops.Arctan2),
		"divide": bin(ops.Divide), "true_divide": bin(ops.TrueDivide), "divide_no_nan": bin(ops.DivideNoNan), "divide_no_nan/zero": bin(ops.DivideNoNan),
		"floor_divide": bin(ops.FloorDivide), "mod": bin(ops.Mod), "fmod": bin(ops.Fmod), "power": bin(ops.Power),
		"power/negative_base": bin(ops.Power), "fmax": bin(ops.Fmax), "fmin": bin(ops.Fmin),
		"ldexp": bin(func(b ops.Builder, x, y ops.Value) ops.Value {
			return ops.Ldexp(b, x, ops.Cast(b, y, b.DType()))
		}),
		"heaviside": bin(ops.Heaviside),

		"equal": bin(ops.Equal), "not_equal": bin(ops.NotEqual), "greater": bin(ops.Greater),
		"greater_equal": bin(ops.GreaterEqual), "less": bin(ops.Less), "less_equal": bin(ops.LessEqual),
		"logical_and": bin(ops.LogicalAnd), "logical_or": bin(ops.LogicalOr), "logical_xor": bin(ops.LogicalXor),
		"equal/broadcast": bin(ops.Equal), "logical_not": u(ops.LogicalNot),
		"where": one(func(b ops.Builder, v []ops.Value) ops.Value {
			return ops.Where(b, ops.Greater(b, v[0], b.Scalar(0)), v[1], v[2])
		}),
		"select": u(func(b ops.Builder, x ops.Value) ops.Value {
			conds := []ops.Value{ops.Less(b, x, b.Scalar(-0.3)), ops.Greater(b, x, b.Scalar(0.3))}
			choices := []ops.Value{ops.Multiply(b, x, b.Scalar(2)), ops.Multiply(b, x, b.Scalar(3))}
			return ops.Select(b, conds, choices, ops.Negative(b, x))
		}),
		"isclose": bin(func(b ops.Builder, x, y ops.Value) ops.Value { return ops.Isclose(b, x, y, 1e-5, 1e-8, false) }),
		"isclose/equal_nan": bin(func(b ops.Builder, x, y ops.Value) ops.Value {
			return ops.Isclose(b, x, y, 1e-5, 1e-8, true)
		}),
		"allclose": bin(func(b ops.Builder, x, y ops.Value) ops.Value { return ops.Allclose(b, x, y, 1e-5, 1e-8, false) }),

		"sum/negative_axis": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Sum(b, x, ops.Axis(-1)) }),
		"max/odd":           u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Max(b, x, ops.Axis(0)) }),
		"any":               u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Any(b, x, ops.Axis(1)) }),
		"all":               u(func(b ops.Builder, x ops.Value) ops.Value { return ops.All(b, x, ops.Axis(1)) }),
		"count_nonzero":     u(func(b ops.Builder, x ops.Value) ops.Value { return ops.CountNonzero(b, x, ops.Axis(0)) }),
		"ptp":               u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Ptp(b, x, ops.Axis(1)) }),
		"average":           bin(func(b ops.Builder, x, w ops.Value) ops.Value { return ops.Average(b, x, w, ops.Axis(1)) }),
		"logsumexp":         u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Logsumexp(b, x, ops.Axis(-1)) }),
		"logsumexp/all":     u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Logsumexp(b, x) }),
		"argmax":            u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Argmax(b, x, ops.Axis(1)) }),
		"argmax/flat":       u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Argmax(b, x) }),
		"argmin":            u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Argmin(b, x, ops.Axis(0)) }),
		"argmin/keepdims": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Argmin(b, x, ops.Axis(-1), ops.KeepDims())
		}),
		"trace":          u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Trace(b, x, 0, 0, 1) }),
		"norm":           u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Norm(b, x, ops.NormOrd{}) }),
		"norm/vector_l1": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Norm(b, x, ops.Ord(1), ops.Axis(-1)) }),
		"norm/vector_inf": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Norm(b, x, ops.Ord(math.Inf(1)), ops.Axis(0))
		}),
		"norm/vector_p3": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Norm(b, x, ops.Ord(3), ops.Axis(-1), ops.KeepDims())
		}),
		"norm/matrix_1": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Norm(b, x, ops.Ord(1)) }),
		"norm/matrix_inf": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Norm(b, x, ops.Ord(math.Inf(1)), ops.Axis(0, 1))
		}),
		"norm/fro":    u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Norm(b, x, ops.NormFro, ops.Axis(1, 2)) }),
		"median":      u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Median(b, x, ops.Axis(1)) }),
		"median/flat": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Median(b, x) }),
		"quantile":    u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Quantile(b, x, 0.3, ops.Axis(0)) }),
		"percentile": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Percentile(b, x, 75, ops.Axis(-1), ops.KeepDims())
		}),

		"reshape":          u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Reshape(b, x, 4, -1) }),
		"ravel":            u(ops.Ravel),
		"transpose":        u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Transpose(b, x) }),
		"transpose/axes":   u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Transpose(b, x, 1, 0, 2) }),
		"swapaxes":         u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Swapaxes(b, x, 0, 2) }),
		"moveaxis":         u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Moveaxis(b, x, 0, -1) }),
		"expand_dims":      u(func(b ops.Builder, x ops.Value) ops.Value { return ops.ExpandDims(b, x, 1) }),
		"expand_dims/last": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.ExpandDims(b, x, -1) }),
		"squeeze":          u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Squeeze(b, x) }),
		"squeeze/axis":     u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Squeeze(b, x, 0) }),
		"broadcast_to":     u(func(b ops.Builder, x ops.Value) ops.Value { return ops.BroadcastTo(b, x, 2, 3, 4) }),
		"concatenate": bin(func(b ops.Builder, x, y ops.Value) ops.Value {
			return ops.Concatenate(b, []ops.Value{x, y}, 1)
		}),
		"append":  bin(func(b ops.Builder, x, y ops.Value) ops.Value { return ops.Append(b, x, y, 0) }),
		"stack":   bin(func(b ops.Builder, x, y ops.Value) ops.Value { return ops.Stack(b, []ops.Value{x, y}, 1) }),
		"hstack":  bin(func(b ops.Builder, x, y ops.Value) ops.Value { return ops.Hstack(b, []ops.Value{x, y}) }),
		"vstack":  bin(func(b ops.Builder, x, y ops.Value) ops.Value { return ops.Vstack(b, []ops.Value{x, y}) }),
		"dstack":  bin(func(b ops.Builder, x, y ops.Value) ops.Value { return ops.Dstack(b, []ops.Value{x, y}) }),
		"unstack": many(func(b ops.Builder, v []ops.Value) []ops.Value { return ops.Unstack(b, v[0], 1) }),
		"split":   many(func(b ops.Builder, v []ops.Value) []ops.Value { return ops.Split(b, v[0], 2, 1) }),
		"split/indices": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			return ops.SplitAt(b, v[0], []int{1, 3}, 0)
		}),
		"array_split":    many(func(b ops.Builder, v []ops.Value) []ops.Value { return ops.ArraySplit(b, v[0], 3, 0) }),
		"hsplit":         many(func(b ops.Builder, v []ops.Value) []ops.Value { return ops.Hsplit(b, v[0], 2) }),
		"vsplit":         many(func(b ops.Builder, v []ops.Value) []ops.Value { return ops.Vsplit(b, v[0], 2) }),
		"dsplit":         many(func(b ops.Builder, v []ops.Value) []ops.Value { return ops.Dsplit(b, v[0], 2) }),
		"tile":           u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Tile(b, x, 2, 3) }),
		"tile/more_reps": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Tile(b, x, 2, 1, 2) }),
		"repeat":         u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Repeat(b, x, 2, ops.Axis(1)) }),
		"repeat/flat":    u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Repeat(b, x, 3) }),
		"flip":           u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Flip(b, x, 1) }),
		"flip/all":       u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Flip(b, x) }),
		"fliplr":         u(ops.Fliplr), "flipud": u(ops.Flipud),
		"roll":      u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Roll(b, x, 2, ops.Axis(1)) }),
		"roll/flat": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Roll(b, x, -1) }),
		"rot90":     u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Rot90(b, x, 1, 0, 1) }),
		"rot90/k3":  u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Rot90(b, x, 3, 1, 2) }),
		"pad": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Pad(b, x, [][2]int{{1, 0}, {2, 1}}, ops.PadConstant, 0)
		}),
		"pad/value": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Pad(b, x, [][2]int{{0, 1}, {1, 1}}, ops.PadConstant, 1.5)
		}),
		"pad/reflect": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Pad(b, x, [][2]int{{1, 2}, {0, 0}}, ops.PadReflect, 0)
		}),
		"pad/symmetric": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Pad(b, x, [][2]int{{2, 1}}, ops.PadSymmetric, 0)
		}),
		"diagonal":       u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Diagonal(b, x, 1, 0, 1) }),
		"diagonal/axes":  u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Diagonal(b, x, -1, 1, 2) }),
		"diag":           u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Diag(b, x, 0) }),
		"diag/k":         u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Diag(b, x, -1) }),
		"diag/of_matrix": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Diag(b, x, 1) }),
		"diagflat":       u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Diagflat(b, x, 0) }),
		"tril":           u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Tril(b, x, 0) }),
		"tril/k":         u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Tril(b, x, -1) }),
		"triu":           u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Triu(b, x, 1) }),
		"slice":          u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Slice(b, x, []int{1, 0}, []int{2, 2}) }),
		"slice_update": bin(func(b ops.Builder, x, y ops.Value) ops.Value {
			return ops.SliceUpdate(b, x, []int{1, 1}, y)
		}),
		"take":            bin(func(b ops.Builder, x, i ops.Value) ops.Value { return ops.Take(b, x, i, ops.Axis(0)) }),
		"take/axis1":      bin(func(b ops.Builder, x, i ops.Value) ops.Value { return ops.Take(b, x, i, ops.Axis(1)) }),
		"take/flat":       bin(func(b ops.Builder, x, i ops.Value) ops.Value { return ops.Take(b, x, i) }),
		"take/negative":   bin(func(b ops.Builder, x, i ops.Value) ops.Value { return ops.Take(b, x, i, ops.Axis(0)) }),
		"take_along_axis": bin(func(b ops.Builder, x, i ops.Value) ops.Value { return ops.TakeAlongAxis(b, x, i, 1) }),
		"take_along_axis/axis0": bin(func(b ops.Builder, x, i ops.Value) ops.Value {
			return ops.TakeAlongAxis(b, x, i, 0)
		}),
		"scatter": u(func(b ops.Builder, v ops.Value) ops.Value {
			idx := b.Constant([]float64{0, 1, 2, 0, 0, 1}, backend.Shape{3, 2})
			return ops.Scatter(b, idx, v, 3, 2)
		}),
		"scatter_update": bin(func(b ops.Builder, x, v ops.Value) ops.Value {
			idx := b.Constant([]float64{0, 1, 2, 0}, backend.Shape{2, 2})
			return ops.ScatterUpdate(b, x, idx, v)
		}),

		"cumsum":        u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Cumsum(b, x, ops.Axis(1)) }),
		"cumsum/flat":   u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Cumsum(b, x) }),
		"cumprod":       u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Cumprod(b, x, ops.Axis(0)) }),
		"diff":          u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Diff(b, x, 1, -1) }),
		"diff/n2_axis0": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Diff(b, x, 2, 0) }),
		"sort":          u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Sort(b, x, -1) }),
		"sort/axis0":    u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Sort(b, x, 0) }),
		"sort/ties":     u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Sort(b, x, -1) }),
		"argsort":       u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Argsort(b, x, -1) }),
		"argsort/ties":  u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Argsort(b, x, -1) }),
		"top_k": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			vals, idx := ops.TopK(b, v[0], 3)
			return []ops.Value{vals, idx}
		}),
		"in_top_k": bin(func(b ops.Builder, t, p ops.Value) ops.Value { return ops.InTopK(b, t, p, 2) }),
		"digitize": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Digitize(b, x, b.Constant([]float64{-0.5, 0, 0.5}, backend.Shape{3}))
		}),
		"searchsorted":       bin(func(b ops.Builder, s, v ops.Value) ops.Value { return ops.Searchsorted(b, s, v, false) }),
		"searchsorted/right": bin(func(b ops.Builder, s, v ops.Value) ops.Value { return ops.Searchsorted(b, s, v, true) }),
		"trapezoid":          u(func(b ops.Builder, y ops.Value) ops.Value { return ops.Trapezoid(b, y, nil, 0.5, -1) }),
		"trapezoid/x":        bin(func(b ops.Builder, y, x ops.Value) ops.Value { return ops.Trapezoid(b, y, x, 1, 0) }),

		"matmul": bin(ops.Matmul), "matmul/batch_broadcast": bin(ops.Matmul), "matmul/vector_left": bin(ops.Matmul),
		"matmul/vector_right": bin(ops.Matmul), "matmul/vectors": bin(ops.Matmul),
		"dot": bin(ops.Dot), "dot/nd": bin(ops.Dot), "dot/scalar": bin(ops.Dot),
		"tensordot": bin(func(b ops.Builder, x, y ops.Value) ops.Value {
			return ops.Tensordot(b, x, y, []int{1, 2}, []int{0, 1})
		}),
		"tensordot/n": bin(func(b ops.Builder, x, y ops.Value) ops.Value { return ops.TensordotN(b, x, y, 1) }),
		"outer":       bin(ops.Outer), "inner": bin(ops.Inner), "vdot": bin(ops.Vdot), "kron": bin(ops.Kron),
		"cross":  bin(ops.Cross),
		"einsum": bin(func(b ops.Builder, x, y ops.Value) ops.Value { return ops.Einsum(b, "ij,jk->ik", x, y) }),
		"einsum/attention": bin(func(b ops.Builder, q, k ops.Value) ops.Value {
			return ops.Einsum(b, "bqhd,bkhd->bhqk", q, k)
		}),
		"einsum/implicit": bin(func(b ops.Builder, x, y ops.Value) ops.Value { return ops.Einsum(b, "ij,jk", x, y) }),
		"einsum/sum":      u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Einsum(b, "ijk->j", x) }),

		"zeros":                one(func(b ops.Builder, _ []ops.Value) ops.Value { return ops.Zeros(b, 2, 3) }),
		"ones":                 one(func(b ops.Builder, _ []ops.Value) ops.Value { return ops.Ones(b, 2) }),
		"full":                 one(func(b ops.Builder, _ []ops.Value) ops.Value { return ops.Full(b, 3.5, 2, 2) }),
		"zeros_like":           u(ops.ZerosLike),
		"ones_like":            u(ops.OnesLike),
		"full_like":            u(func(b ops.Builder, x ops.Value) ops.Value { return ops.FullLike(b, x, -2) }),
		"eye":                  one(func(b ops.Builder, _ []ops.Value) ops.Value { return ops.Eye(b, 3, 4, 1) }),
		"identity":             one(func(b ops.Builder, _ []ops.Value) ops.Value { return ops.Identity(b, 3) }),
		"tri":                  one(func(b ops.Builder, _ []ops.Value) ops.Value { return ops.Tri(b, 3, 4, 0) }),
		"arange":               one(func(b ops.Builder, _ []ops.Value) ops.Value { return ops.Arange(b, 1, 4, 0.5) }),
		"linspace":             one(func(b ops.Builder, _ []ops.Value) ops.Value { return ops.Linspace(b, 0, 1, 5, true) }),
		"linspace/no_endpoint": one(func(b ops.Builder, _ []ops.Value) ops.Value { return ops.Linspace(b, -1, 1, 4, false) }),
		"logspace":             one(func(b ops.Builder, _ []ops.Value) ops.Value { return ops.Logspace(b, 0, 2, 3, true, 10) }),
		"geomspace":            one(func(b ops.Builder, _ []ops.Value) ops.Value { return ops.Geomspace(b, 1, 1000, 4, true) }),
		"bartlett":             one(func(b ops.Builder, _ []ops.Value) ops.Value { return ops.Bartlett(b, 5) }),
		"blackman":             one(func(b ops.Builder, _ []ops.Value) ops.Value { return ops.Blackman(b, 5) }),
		"hamming":              one(func(b ops.Builder, _ []ops.Value) ops.Value { return ops.Hamming(b, 5) }),
		"hanning":              one(func(b ops.Builder, _ []ops.Value) ops.Value { return ops.Hanning(b, 6) }),
		"kaiser":               one(func(b ops.Builder, _ []ops.Value) ops.Value { return ops.Kaiser(b, 5, 2.5) }),
		"vander":               u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Vander(b, x, 3, false) }),
		"meshgrid": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			return ops.Meshgrid(b, v, false)
		}),
		"meshgrid/ij": many(func(b ops.Builder, v []ops.Value) []ops.Value { return ops.Meshgrid(b, v, true) }),

		"relu": u(ops.Relu), "relu6": u(ops.Relu6), "sigmoid": u(ops.Sigmoid), "softplus": u(ops.Softplus),
		"softsign": u(ops.Softsign), "silu": u(ops.Silu), "swish": u(ops.Swish), "log_sigmoid": u(ops.LogSigmoid),
		"hard_sigmoid": u(ops.HardSigmoid), "hard_silu": u(ops.HardSilu), "hard_swish": u(ops.HardSwish),
		"selu": u(ops.Selu), "sparse_plus": u(ops.SparsePlus), "sparse_sigmoid": u(ops.SparseSigmoid),
		"hard_tanh": u(ops.HardTanh), "tanh_shrink": u(ops.TanhShrink),
		"leaky_relu":        u(func(b ops.Builder, x ops.Value) ops.Value { return ops.LeakyRelu(b, x, 0.1) }),
		"elu":               u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Elu(b, x, 1.5) }),
		"celu":              u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Celu(b, x, 0.7) }),
		"gelu":              u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Gelu(b, x, true) }),
		"gelu/exact":        u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Gelu(b, x, false) }),
		"squareplus":        u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Squareplus(b, x, 2) }),
		"soft_shrink":       u(func(b ops.Builder, x ops.Value) ops.Value { return ops.SoftShrink(b, x, 0.3) }),
		"hard_shrink":       u(func(b ops.Builder, x ops.Value) ops.Value { return ops.HardShrink(b, x, 0.3) }),
		"threshold":         u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Threshold(b, x, 0.2, -1) }),
		"glu":               u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Glu(b, x, -1) }),
		"softmax":           u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Softmax(b, x, -1) }),
		"softmax/axis0":     u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Softmax(b, x, 0) }),
		"softmax/axes":      u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Softmax(b, x, 1, 2) }),
		"log_softmax":       u(func(b ops.Builder, x ops.Value) ops.Value { return ops.LogSoftmax(b, x, -1) }),
		"log_softmax/axis1": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.LogSoftmax(b, x, 1) }),
		"sparsemax":         u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Sparsemax(b, x, -1) }),
		"normalize":         u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Normalize(b, x, -1, 2) }),
		"normalize/l1":      u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Normalize(b, x, 0, 1) }),
		"one_hot":           u(func(b ops.Builder, x ops.Value) ops.Value { return ops.OneHot(b, x, 4) }),
		"multi_hot":         u(func(b ops.Builder, x ops.Value) ops.Value { return ops.MultiHot(b, x, 5) }),
		"moments": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			m, s := ops.Moments(b, v[0], []int{0, 1}, false)
			return []ops.Value{m, s}
		}),
		"moments/keepdims": many(func(b ops.Builder, v []ops.Value) []ops.Value {
			m, s := ops.Moments(b, v[0], []int{-1}, true)
			return []ops.Value{m, s}
		}),
		"batch_normalization": one(func(b ops.Builder, v []ops.Value) ops.Value {
			return ops.BatchNormalization(b, v[0], v[1], v[2], -1, v[3], v[4], 1e-3)
		}),
		"batch_normalization/axis1": one(func(b ops.Builder, v []ops.Value) ops.Value {
			return ops.BatchNormalization(b, v[0], v[1], v[2], 1, nil, nil, 1e-3)
		}),
		"layer_normalization": one(func(b ops.Builder, v []ops.Value) ops.Value {
			return ops.LayerNormalization(b, v[0], v[1], v[2], 1e-3)
		}),
		"rms_normalization": bin(func(b ops.Builder, x, s ops.Value) ops.Value { return ops.RmsNormalization(b, x, s, 1e-6) }),
		"binary_crossentropy": bin(func(b ops.Builder, t, o ops.Value) ops.Value {
			return ops.BinaryCrossentropy(b, t, o, false)
		}),
		"binary_crossentropy/logits": bin(func(b ops.Builder, t, o ops.Value) ops.Value {
			return ops.BinaryCrossentropy(b, t, o, true)
		}),
		"categorical_crossentropy": bin(func(b ops.Builder, t, o ops.Value) ops.Value {
			return ops.CategoricalCrossentropy(b, t, o, false, -1)
		}),
		"categorical_crossentropy/logits": bin(func(b ops.Builder, t, o ops.Value) ops.Value {
			return ops.CategoricalCrossentropy(b, t, o, true, -1)
		}),
		"sparse_categorical_crossentropy": bin(func(b ops.Builder, t, o ops.Value) ops.Value {
			return ops.SparseCategoricalCrossentropy(b, t, o, true, -1)
		}),
		"sparse_categorical_crossentropy/probs": bin(func(b ops.Builder, t, o ops.Value) ops.Value {
			return ops.SparseCategoricalCrossentropy(b, t, o, false, -1)
		}),
		"psnr": bin(func(b ops.Builder, x, y ops.Value) ops.Value { return ops.Psnr(b, x, y, 1) }),

		"stop_gradient": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Multiply(b, ops.StopGradient(b, x), x)
		}),
		"cast": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.Cast(b, x, b.DType()) }),
		"saturate_cast": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.SaturateCast(b, ops.Multiply(b, x, b.Scalar(3)), b.DType())
		}),
		"saturate_cast/int": u(func(b ops.Builder, x ops.Value) ops.Value { return ops.SaturateCast(b, x, b.DType()) }),
		"custom_gradient": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Tanh(b, log1pexp(b, ops.Multiply(b, x, b.Scalar(2))))
		}),
		"custom_gradient/clipped": u(func(b ops.Builder, x ops.Value) ops.Value {
			return ops.Add(b, clippedSquare(b, ops.Sin(b, x)), x)
		}),
		"custom_gradient/two_inputs": bin(func(b ops.Builder, x, y ops.Value) ops.Value {
			return ops.Sum(b, scaledProduct(b, x, y), ops.Axis(0))
		}),
		"convert_to_tensor": one(func(b ops.Builder, _ []ops.Value) ops.Value {
			return ops.ConvertToTensor(b, []float64{1, 2, 3, 4}, 2, 2)
		}),
	}
	for name, f := range map[string]func(ops.Builder, ops.Value, ...ops.AxisOption) ops.Value{
		"sum": ops.Sum, "mean": ops.Mean, "max": ops.Max, "min": ops.Min, "amax": ops.Amax, "amin": ops.Amin,
		"prod": ops.Prod, "var": ops.Var, "std": ops.Std,
	} {
		for suffix, g := range reduce(f) {
			c[name+suffix] = g
		}
	}
	for name, f := range moreGoldenCases() {
		c[name] = f
	}
	return c
}

// log1pexp, clippedSquare and scaledProduct are the custom gradients of
// scripts/golden-ops.py: the first Keras's own example (its true
// derivative, computed more stably), the others gradients that are not
// the function's derivative (a clipped, scaled upstream; y's gradient
// doubled).
var (
	log1pexp = ops.CustomGradient(func(b ops.Builder, xs ...ops.Value) (ops.Value, ops.GradientFunc) {
		e := ops.Exp(b, xs[0])
		return ops.Log(b, ops.Add(b, e, b.Scalar(1))), func(up ops.Value) []ops.Value {
			return []ops.Value{ops.Multiply(b, up, ops.Subtract(b, b.Scalar(1), ops.Divide(b, b.Scalar(1), ops.Add(b, e, b.Scalar(1)))))}
		}
	})
	clippedSquare = ops.CustomGradient(func(b ops.Builder, xs ...ops.Value) (ops.Value, ops.GradientFunc) {
		return ops.Square(b, xs[0]), func(up ops.Value) []ops.Value {
			return []ops.Value{ops.Multiply(b, ops.Clip(b, up, -0.5, 0.5), b.Scalar(3))}
		}
	})
	scaledProduct = ops.CustomGradient(func(b ops.Builder, xs ...ops.Value) (ops.Value, ops.GradientFunc) {
		x, y := xs[0], xs[1]
		return ops.Multiply(b, x, y), func(up ops.Value) []ops.Value {
			return []ops.Value{ops.Multiply(b, ops.Multiply(b, up, y), b.Scalar(2)), ops.Multiply(b, up, x)}
		}
	})
)
