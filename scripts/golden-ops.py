"""Keras's own values for keras/ops: keras/ops/testdata/golden.json.

Each case calls one keras.ops function (the case's name up to its first
"/") on fixed inputs, with Keras 3 on JAX in float64, and stores the
inputs, the outputs and, for differentiable cases, the gradient of
sum(output * w) with respect to each float input (w[i] = cos(1.3·i) over
each output's flat index, summed over outputs), computed by JAX. The Go
test (keras/ops/golden_test.go) builds the same case with kerasgo's ops
on every engine and compares; it also checks its own gradients against
finite differences.

With --check it writes nothing and fails when the stored file is not what
this Keras computes (the Go test runs it so, when build/keras-env exists).
Run:
  build/keras-env/bin/python scripts/golden-ops.py [--check]
"""
import json
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "jax")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ["JAX_ENABLE_X64"] = "1"

import jax  # noqa: E402

# JAX compiles each primitive for each shape: keep the compiled programs
# (build/ is not committed) so that the Go test's --check runs in 20 s,
# not 75, after the first time.
jax.config.update("jax_compilation_cache_dir", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "jax-cache"))
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import ops  # noqa: E402

keras.config.set_floatx("float64")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "keras/ops/testdata/golden.json")
# How far a stored Keras value may be from what Keras computes now before
# --check calls the file stale. Some values come out at float32 precision
# (Keras computes them so even under float64), and their last bits depend
# on the CPU XLA compiles for: on an AMD EPYC, arcsinh, arcsin, arccos,
# arccosh, layer_normalization, rms_normalization and
# dot_product_attention differed from the file by up to 2e-7 (relative,
# 2026-11-28), where 1e-9 had held on the machine that wrote it. So, as
# scripts/golden-keras.py does, 1e-6: a few float32 ulps, the Go tests'
# own float64 tolerance against these values; a stale file differs by far
# more.
CHECK_TOLERANCE = 1e-6

_seed = [0]


def _rng():
    _seed[0] += 1
    return np.random.default_rng(_seed[0])


def X(*shape, lo=-1.0, hi=1.0):
    """Uniform floats; kept away from 0 so that kinks (abs, relu) are not hit."""
    a = _rng().uniform(lo, hi, size=shape)
    if lo < 0 < hi:
        a = np.where(np.abs(a) < 0.05, a + np.sign(a + 1e-9) * 0.1, a)
    return np.asarray(a, dtype="float64")


def P(*shape):
    return X(*shape, lo=0.5, hi=2.0)


def U(*shape):
    return X(*shape, lo=-0.8, hi=0.8)


class Int:
    def __init__(self, a):
        self.a = np.asarray(a, dtype="int32")


def I(*shape, n):
    return Int(_rng().integers(0, n, size=shape))


def V(values, shape=None):
    a = np.asarray(values, dtype="float64")
    return a.reshape(shape) if shape is not None else a


CASES = []


def C(name, fn, *inputs, grad=True):
    CASES.append((name, fn, inputs, grad))


def number(v):
    """A JSON number, or the strings "NaN", "Infinity", "-Infinity" (JSON has no such numbers)."""
    v = float(v)
    if np.isnan(v):
        return "NaN"
    if np.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return v


def listed(x, is_int=False):
    x = np.asarray(x)
    out = {"shape": list(x.shape), "data": [number(v) for v in x.astype("float64").ravel()]}
    if is_int:
        out["int"] = True
    return out


def weights(shape):
    n = int(np.prod(shape)) if shape else 1
    return np.cos(1.3 * np.arange(n)).reshape(shape)


def outputs_of(r):
    if isinstance(r, (tuple, list)):
        return [np.asarray(o) for o in r]
    return [np.asarray(r)]


def run(name, fn, inputs, grad):
    args = [i.a if isinstance(i, Int) else i for i in inputs]
    outs = [o.astype("float64") for o in outputs_of(fn(*args))]
    case = {
        "name": name,
        "inputs": [listed(i.a, True) if isinstance(i, Int) else listed(i) for i in inputs],
        "outputs": [listed(o) for o in outs],
    }
    floats = [k for k, i in enumerate(inputs) if not isinstance(i, Int)]
    if grad and floats:
        def loss(*fs):
            a = list(args)
            for k, f in zip(floats, fs):
                a[k] = f
            r = fn(*a)
            total = 0.0
            for o in (r if isinstance(r, (tuple, list)) else [r]):
                total = total + jax.numpy.sum(o * weights(np.shape(o)))
            return total
        gs = jax.grad(loss, argnums=tuple(range(len(floats))))(*[args[k] for k in floats])
        grads = [None] * len(inputs)
        for k, g in zip(floats, gs):
            grads[k] = listed(np.asarray(g))
        case["grads"] = grads
    return case


# ---- numpy: elementwise ----
for op in ["abs", "absolute", "fabs", "negative", "square", "exp", "exp2", "expm1", "sin", "cos", "tan",
           "arctan", "sinh", "cosh", "tanh", "arcsinh", "erf", "erfc", "deg2rad", "rad2deg", "sinc",
           "reciprocal_x", "cbrt", "conj", "conjugate", "real", "copy"]:
    if op == "reciprocal_x":
        continue
    C(op, getattr(ops, op), X(3, 4))
C("reciprocal", ops.reciprocal, P(3, 4))
C("sqrt", ops.sqrt, P(3, 4))
C("rsqrt", ops.rsqrt, P(3, 4))
C("log", ops.log, P(3, 4))
C("log2", ops.log2, P(3, 4))
C("log10", ops.log10, P(3, 4))
C("log1p", ops.log1p, X(3, 4))
C("arcsin", ops.arcsin, U(3, 4))
C("arccos", ops.arccos, U(3, 4))
C("arctanh", ops.arctanh, U(3, 4))
C("arccosh", ops.arccosh, X(3, 4, lo=1.2, hi=3))
C("erfinv", ops.erfinv, U(3, 4))
C("imag", ops.imag, X(3, 4), grad=False)
C("angle", ops.angle, X(3, 4), grad=False)
for op in ["sign", "floor", "ceil", "trunc", "signbit"]:
    C(op, getattr(ops, op), X(3, 4, lo=-3, hi=3), grad=False)
C("round", ops.round, V([0.5, 1.5, 2.5, -0.5, -1.5, 0.49, 1.2, -2.7]), grad=False)
C("round/decimals", lambda x: ops.round(x, 1), V([0.25, 1.36, -2.71, 3.14159]), grad=False)
SPECIAL = V([1.0, np.nan, np.inf, -np.inf, 0.0, -2.0])
for op in ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal"]:
    C(op, getattr(ops, op), SPECIAL, grad=False)
C("nan_to_num", lambda x: ops.nan_to_num(x, nan=0.0, posinf=9.0, neginf=-9.0), SPECIAL, grad=False)
C("clip", lambda x: ops.clip(x, -0.5, 0.5), X(3, 4))

# ---- numpy: binary ----
for op in ["add", "subtract", "multiply", "maximum", "minimum", "logaddexp", "logaddexp2", "hypot", "arctan2"]:
    C(op, getattr(ops, op), X(3, 4), X(4))
C("divide", ops.divide, X(3, 4), P(3, 1))
C("true_divide", ops.true_divide, X(3, 4), P(4))
C("divide_no_nan", ops.divide_no_nan, X(2, 3), V([[1.5, 0.5, -2.0]]))
# at y = 0 the quotient is 0 whatever x and y do nearby: JAX's gradient
# there is an artifact (x/y² of the unused branch), so no gradient check
C("divide_no_nan/zero", ops.divide_no_nan, X(2, 3), V([[1.5, 0.0, -2.0]]), grad=False)
C("floor_divide", ops.floor_divide, X(3, 4, lo=-5, hi=5), P(4), grad=False)
C("mod", ops.mod, X(3, 4, lo=-5, hi=5), V([1.5, 2.0, 0.7, 3.0]))
C("fmod", ops.fmod, X(3, 4, lo=-5, hi=5), V([1.5, 2.0, 0.7, 3.0]))
C("power", ops.power, P(3, 4), X(4))
C("power/negative_base", ops.power, V([-2.0, -1.5, -3.0, 0.0, 0.0, 2.0]), V([2.0, 3.0, 0.5, 0.0, 2.0, -1.0]), grad=False)
C("arctan2/axes", ops.arctan2, V([1.0, -1.0, 0.0, 0.0, 1.0, -1.0]), V([0.0, 0.0, 1.0, -1.0, -1.0, -1.0]), grad=False)
C("fmax", ops.fmax, V([1.0, np.nan, 3.0, np.nan]), V([2.0, 1.0, np.nan, np.nan]), grad=False)
C("fmin", ops.fmin, V([1.0, np.nan, 3.0, np.nan]), V([2.0, 1.0, np.nan, np.nan]), grad=False)
C("ldexp", lambda x, y: ops.ldexp(x, y), X(3, 4), Int([[1, -2, 0, 3]]), grad=True)
C("heaviside", ops.heaviside, V([-1.5, 0.0, 2.0, 0.0]), V([0.5, 0.5, 0.5, 0.25]), grad=False)

# ---- comparisons and logic ----
A = V([1.0, 2.0, 3.0, 4.0, np.nan, 0.0])
B = V([1.0, 3.0, 2.0, 4.0, 1.0, 0.0])
for op in ["equal", "not_equal", "greater", "greater_equal", "less", "less_equal",
           "logical_and", "logical_or", "logical_xor"]:
    C(op, getattr(ops, op), A, B, grad=False)
C("equal/broadcast", ops.equal, V([[1.0], [2.0]]), V([1.0, 2.0, 3.0]), grad=False)
C("logical_not", ops.logical_not, B, grad=False)
C("where", lambda c, x, y: ops.where(c > 0, x, y), X(3, 4), X(3, 4), X(4))
C("select", lambda x: ops.select([x < -0.3, x > 0.3], [x * 2, x * 3], -x), X(3, 4))
C("isclose", lambda x, y: ops.isclose(x, y), V([1.0, 1.0, np.inf, np.nan, 1.0]), V([1.0 + 1e-9, 1.1, np.inf, np.nan, np.nan]), grad=False)
C("isclose/equal_nan", lambda x, y: ops.isclose(x, y, equal_nan=True), V([1.0, np.nan]), V([1.0, np.nan]), grad=False)
C("allclose", lambda x, y: ops.allclose(x, y), V([1.0, 2.0]), V([1.0, 2.0 + 1e-9]), grad=False)

# ---- reductions ----
R = X(2, 3, 4)
for op in ["sum", "mean", "max", "min", "amax", "amin", "prod", "var", "std"]:
    C(op, getattr(ops, op), X(2, 3, 4))
    C(op + "/axis1", lambda x, f=getattr(ops, op): f(x, axis=1), X(2, 3, 4))
    C(op + "/axes_keepdims", lambda x, f=getattr(ops, op): f(x, axis=(0, 2), keepdims=True), X(2, 3, 4))
C("sum/negative_axis", lambda x: ops.sum(x, axis=-1), X(2, 5))
C("max/odd", lambda x: ops.max(x, axis=0), X(7, 3))
C("any", lambda x: ops.any(x, axis=1), V([[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]), grad=False)
C("all", lambda x: ops.all(x, axis=1), V([[1.0, 2.0, 1.0], [1.0, 0.0, 3.0]]), grad=False)
C("count_nonzero", lambda x: ops.count_nonzero(x, axis=0), V([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]]), grad=False)
C("ptp", lambda x: ops.ptp(x, axis=1), X(3, 4))
C("average", lambda x, w: ops.average(x, axis=1, weights=w), X(3, 4), P(4))
C("logsumexp", lambda x: ops.logsumexp(x, axis=-1), X(3, 4, lo=-50, hi=50))
C("logsumexp/all", ops.logsumexp, X(3, 4))
C("argmax", lambda x: ops.argmax(x, axis=1), X(3, 4), grad=False)
C("argmax/flat", ops.argmax, X(3, 4), grad=False)
C("argmin", lambda x: ops.argmin(x, axis=0), X(3, 4), grad=False)
C("argmin/keepdims", lambda x: ops.argmin(x, axis=-1, keepdims=True), X(3, 4), grad=False)
C("trace", ops.trace, X(3, 4))
C("norm", ops.norm, X(3, 4))
C("norm/vector_l1", lambda x: ops.norm(x, ord=1, axis=-1), X(3, 4))
C("norm/vector_inf", lambda x: ops.norm(x, ord=np.inf, axis=0), X(3, 4))
C("norm/vector_p3", lambda x: ops.norm(x, ord=3, axis=-1, keepdims=True), X(3, 4))
C("norm/matrix_1", lambda x: ops.norm(x, ord=1), X(3, 4))
C("norm/matrix_inf", lambda x: ops.norm(x, ord=np.inf, axis=(0, 1)), X(3, 4))
C("norm/fro", lambda x: ops.norm(x, ord="fro", axis=(1, 2)), X(2, 3, 4))
C("median", lambda x: ops.median(x, axis=1), X(3, 4))
C("median/flat", ops.median, X(3, 5))
C("quantile", lambda x: ops.quantile(x, 0.3, axis=0), X(5, 3))
C("percentile", lambda x: ops.percentile(x, 75.0, axis=-1, keepdims=True), X(3, 5))

# ---- shapes ----
C("reshape", lambda x: ops.reshape(x, (4, -1)), X(2, 3, 4))
C("ravel", ops.ravel, X(2, 3))
C("transpose", ops.transpose, X(2, 3, 4))
C("transpose/axes", lambda x: ops.transpose(x, (1, 0, 2)), X(2, 3, 4))
C("swapaxes", lambda x: ops.swapaxes(x, 0, 2), X(2, 3, 4))
C("moveaxis", lambda x: ops.moveaxis(x, 0, -1), X(2, 3, 4))
C("expand_dims", lambda x: ops.expand_dims(x, 1), X(2, 3))
C("expand_dims/last", lambda x: ops.expand_dims(x, -1), X(2, 3))
C("squeeze", ops.squeeze, X(1, 3, 1))
C("squeeze/axis", lambda x: ops.squeeze(x, axis=0), X(1, 3, 1))
C("broadcast_to", lambda x: ops.broadcast_to(x, (2, 3, 4)), X(3, 1))
C("concatenate", lambda x, y: ops.concatenate([x, y], axis=1), X(2, 3), X(2, 2))
C("append", lambda x, y: ops.append(x, y, axis=0), X(2, 3), X(1, 3))
C("stack", lambda x, y: ops.stack([x, y], axis=1), X(2, 3), X(2, 3))
C("hstack", lambda x, y: ops.hstack([x, y]), X(2, 3), X(2, 1))
C("vstack", lambda x, y: ops.vstack([x, y]), X(3), X(3))
C("dstack", lambda x, y: ops.dstack([x, y]), X(2, 3), X(2, 3))
C("unstack", lambda x: ops.unstack(x, axis=1), X(2, 3))
C("split", lambda x: ops.split(x, 2, axis=1), X(2, 4))
C("split/indices", lambda x: ops.split(x, [1, 3], axis=0), X(5, 2))
C("array_split", lambda x: ops.array_split(x, 3, axis=0), X(5, 2))
C("hsplit", lambda x: ops.hsplit(x, 2), X(2, 4))
C("vsplit", lambda x: ops.vsplit(x, 2), X(4, 2))
C("dsplit", lambda x: ops.dsplit(x, 2), X(1, 2, 4))
C("tile", lambda x: ops.tile(x, (2, 3)), X(2, 2))
C("tile/more_reps", lambda x: ops.tile(x, (2, 1, 2)), X(3))
C("repeat", lambda x: ops.repeat(x, 2, axis=1), X(2, 3))
C("repeat/flat", lambda x: ops.repeat(x, 3), X(2, 2))
C("flip", lambda x: ops.flip(x, axis=1), X(2, 3))
C("flip/all", ops.flip, X(2, 3))
C("fliplr", ops.fliplr, X(2, 3))
C("flipud", ops.flipud, X(2, 3))
C("roll", lambda x: ops.roll(x, 2, axis=1), X(2, 5))
C("roll/flat", lambda x: ops.roll(x, -1), X(2, 3))
C("rot90", lambda x: ops.rot90(x), X(2, 3))
C("rot90/k3", lambda x: ops.rot90(x, k=3, axes=(1, 2)), X(2, 3, 4))
C("pad", lambda x: ops.pad(x, ((1, 0), (2, 1))), X(2, 3))
C("pad/value", lambda x: ops.pad(x, ((0, 1), (1, 1)), constant_values=1.5), X(2, 3))
C("pad/reflect", lambda x: ops.pad(x, ((1, 2), (0, 0)), mode="reflect"), X(4, 2))
C("pad/symmetric", lambda x: ops.pad(x, ((2, 1),), mode="symmetric"), X(4))
C("diagonal", lambda x: ops.diagonal(x, offset=1), X(3, 4))
C("diagonal/axes", lambda x: ops.diagonal(x, offset=-1, axis1=1, axis2=2), X(2, 3, 3))
C("diag", ops.diag, X(3))
C("diag/k", lambda x: ops.diag(x, k=-1), X(3))
C("diag/of_matrix", lambda x: ops.diag(x, k=1), X(3, 3))
C("diagflat", ops.diagflat, X(2, 2))
C("tril", ops.tril, X(3, 4))
C("tril/k", lambda x: ops.tril(x, k=-1), X(2, 3, 3))
C("triu", lambda x: ops.triu(x, k=1), X(3, 4))
C("slice", lambda x: ops.slice(x, (1, 0), (2, 2)), X(3, 4))
C("slice_update", lambda x, u: ops.slice_update(x, (1, 1), u), X(3, 4), X(2, 2))
C("take", lambda x, i: ops.take(x, i, axis=0), X(4, 3), Int([[0, 3], [2, 2]]))
C("take/axis1", lambda x, i: ops.take(x, i, axis=1), X(2, 4), Int([3, 0, 1]))
C("take/flat", lambda x, i: ops.take(x, i), X(2, 3), Int([5, 0, 2]))
C("take/negative", lambda x, i: ops.take(x, i, axis=0), X(4, 2), Int([-1, 0]))
C("take_along_axis", lambda x, i: ops.take_along_axis(x, i, axis=1), X(2, 4), Int([[3, 0, 0], [1, 2, 3]]))
C("take_along_axis/axis0", lambda x, i: ops.take_along_axis(x, i, axis=0), X(3, 2), Int([[2, 0]]))
C("scatter", lambda v: ops.scatter(np.array([[0, 1], [2, 0], [0, 1]], dtype="int32"), v, (3, 2)), X(3))
C("scatter_update", lambda x, u: ops.scatter_update(x, np.array([[0, 1], [2, 0]], dtype="int32"), u), X(3, 2), X(2))

# ---- scans and sorting ----
C("cumsum", lambda x: ops.cumsum(x, axis=1), X(2, 5))
C("cumsum/flat", ops.cumsum, X(2, 3))
C("cumprod", lambda x: ops.cumprod(x, axis=0), X(5, 2))
C("diff", lambda x: ops.diff(x), X(2, 5))
C("diff/n2_axis0", lambda x: ops.diff(x, n=2, axis=0), X(4, 3))
C("sort", lambda x: ops.sort(x, axis=-1), X(3, 5))
C("sort/axis0", lambda x: ops.sort(x, axis=0), X(4, 2))
C("sort/ties", lambda x: ops.sort(x), V([3.0, 1.0, 2.0, 1.0, 3.0]), grad=False)
C("argsort", lambda x: ops.argsort(x, axis=-1), X(3, 5), grad=False)
C("argsort/ties", ops.argsort, V([3.0, 1.0, 2.0, 1.0, 3.0]), grad=False)
C("top_k", lambda x: ops.top_k(x, 3), X(2, 5))
C("in_top_k", lambda t, p: ops.in_top_k(t, p, 2), Int([0, 3, 1]), X(3, 4), grad=False)
C("digitize", lambda x: ops.digitize(x, np.array([-0.5, 0.0, 0.5])), X(3, 4), grad=False)
C("searchsorted", lambda s, v: ops.searchsorted(s, v), V([-1.0, 0.0, 0.5, 2.0]), V([0.0, 0.3, -3.0, 5.0]), grad=False)
C("searchsorted/right", lambda s, v: ops.searchsorted(s, v, side="right"), V([-1.0, 0.0, 0.5, 2.0]), V([0.0, 0.3, -3.0, 5.0]), grad=False)
C("trapezoid", lambda y: ops.trapezoid(y, dx=0.5), X(3, 4))
C("trapezoid/x", lambda y, x: ops.trapezoid(y, x=x, axis=0), X(4, 2), V([0.0, 0.5, 1.5, 2.0]))

# ---- products ----
C("matmul", ops.matmul, X(3, 4), X(4, 2))
C("matmul/batch_broadcast", ops.matmul, X(2, 1, 3, 4), X(3, 4, 2))
C("matmul/vector_left", ops.matmul, X(4), X(2, 4, 3))
C("matmul/vector_right", ops.matmul, X(2, 3, 4), X(4))
C("matmul/vectors", ops.matmul, X(4), X(4))
C("dot", ops.dot, X(3, 4), X(4, 2))
C("dot/nd", ops.dot, X(2, 3, 4), X(2, 4, 5))
C("dot/scalar", ops.dot, X(3, 2), V(1.5))
C("tensordot", lambda x, y: ops.tensordot(x, y, axes=([1, 2], [0, 1])), X(2, 3, 4), X(3, 4, 2))
C("tensordot/n", lambda x, y: ops.tensordot(x, y, axes=1), X(2, 3), X(3, 4))
C("outer", ops.outer, X(3), X(2, 2))
C("inner", ops.inner, X(2, 3), X(4, 3))
C("vdot", ops.vdot, X(2, 3), X(3, 2))
C("kron", ops.kron, X(2, 3), X(2, 2))
C("cross", ops.cross, X(2, 3), X(3))
C("einsum", lambda x, y: ops.einsum("ij,jk->ik", x, y), X(2, 3), X(3, 4))
C("einsum/attention", lambda q, k: ops.einsum("bqhd,bkhd->bhqk", q, k), X(2, 3, 2, 4), X(2, 5, 2, 4))
C("einsum/implicit", lambda x, y: ops.einsum("ij,jk", x, y), X(2, 3), X(3, 4))
C("einsum/sum", lambda x: ops.einsum("ijk->j", x), X(2, 3, 4))

# ---- creation ----
C("zeros", lambda: ops.zeros((2, 3)))
C("ones", lambda: ops.ones((2,)))
C("full", lambda: ops.full((2, 2), 3.5))
C("zeros_like", ops.zeros_like, X(2, 3), grad=False)
C("ones_like", ops.ones_like, X(2, 3), grad=False)
C("full_like", lambda x: ops.full_like(x, -2.0), X(2, 3), grad=False)
C("eye", lambda: ops.eye(3, 4, k=1))
C("identity", lambda: ops.identity(3))
C("tri", lambda: ops.tri(3, 4, k=0))
C("arange", lambda: ops.arange(1.0, 4.0, 0.5))
C("linspace", lambda: ops.linspace(0.0, 1.0, 5))
C("linspace/no_endpoint", lambda: ops.linspace(-1.0, 1.0, 4, endpoint=False))
C("logspace", lambda: ops.logspace(0.0, 2.0, 3))
C("geomspace", lambda: ops.geomspace(1.0, 1000.0, 4))
C("bartlett", lambda: ops.bartlett(5))
C("blackman", lambda: ops.blackman(5))
C("hamming", lambda: ops.hamming(5))
C("hanning", lambda: ops.hanning(6))
C("kaiser", lambda: ops.kaiser(5, 2.5))
C("vander", lambda x: ops.vander(x, 3), X(4))
C("meshgrid", lambda x, y: ops.meshgrid(x, y), X(3), X(2))
C("meshgrid/ij", lambda x, y: ops.meshgrid(x, y, indexing="ij"), X(3), X(2))

# ---- nn ----
for op in ["relu", "relu6", "sigmoid", "softplus", "softsign", "silu", "swish", "log_sigmoid",
           "hard_sigmoid", "hard_silu", "hard_swish", "selu", "sparse_plus", "sparse_sigmoid",
           "hard_tanh", "tanh_shrink"]:
    C(op, getattr(ops, op), X(3, 4, lo=-3, hi=3))
C("leaky_relu", lambda x: ops.leaky_relu(x, negative_slope=0.1), X(3, 4))
C("elu", lambda x: ops.elu(x, alpha=1.5), X(3, 4, lo=-3, hi=3))
C("celu", lambda x: ops.celu(x, alpha=0.7), X(3, 4, lo=-3, hi=3))
C("gelu", ops.gelu, X(3, 4, lo=-3, hi=3))
C("gelu/exact", lambda x: ops.gelu(x, approximate=False), X(3, 4, lo=-3, hi=3))
C("squareplus", lambda x: ops.squareplus(x, b=2.0), X(3, 4))
C("soft_shrink", lambda x: ops.soft_shrink(x, threshold=0.3), X(3, 4))
C("hard_shrink", lambda x: ops.hard_shrink(x, threshold=0.3), X(3, 4))
C("threshold", lambda x: ops.threshold(x, 0.2, -1.0), X(3, 4))
C("glu", lambda x: ops.glu(x, axis=-1), X(3, 4))
C("softmax", lambda x: ops.softmax(x, axis=-1), X(3, 4))
C("softmax/axis0", lambda x: ops.softmax(x, axis=0), X(3, 4))
C("softmax/axes", lambda x: ops.softmax(x, axis=(1, 2)), X(2, 3, 4))
C("log_softmax", lambda x: ops.log_softmax(x, axis=-1), X(3, 4))
C("log_softmax/axis1", lambda x: ops.log_softmax(x, axis=1), X(2, 3, 4))


def sparsemax(x, axis=-1):
    """Sparsemax as Martins and Astudillo define it, which Keras 3.15.1
    gets wrong when more than one value is in the support (it sums the
    cumulative sums: keras-team/keras#23425, fixed by #23469 after
    3.15.1); this is the fixed code, in Keras's ops."""
    z = -ops.sort(-x, axis=axis)
    cum = ops.cumsum(z, axis=axis)
    shape = [1] * len(x.shape)
    shape[axis] = -1
    r = ops.reshape(ops.arange(1, x.shape[axis] + 1, dtype=x.dtype), shape)
    support = ops.cast(z - (cum - 1) / r > 0, x.dtype)
    k = ops.sum(support, axis=axis, keepdims=True)
    tau = (ops.sum(z * support, axis=axis, keepdims=True) - 1) / k
    return ops.maximum(x - tau, 0.0)


C("sparsemax", lambda x: sparsemax(x, axis=-1), X(3, 5, lo=-2, hi=2))
C("normalize", lambda x: ops.normalize(x, axis=-1), X(3, 4))
C("normalize/l1", lambda x: ops.normalize(x, axis=0, order=1), X(3, 4))
C("one_hot", lambda x: ops.one_hot(x, 4), Int([[0, 3], [1, 2]]), grad=False)
C("multi_hot", lambda x: ops.multi_hot(x, 5), Int([[0, 3], [1, 1]]), grad=False)
C("moments", lambda x: ops.moments(x, axes=[0, 1]), X(2, 3, 4))
C("moments/keepdims", lambda x: ops.moments(x, axes=[-1], keepdims=True), X(2, 3))
C("batch_normalization", lambda x, m, v, o, s: ops.batch_normalization(x, m, v, axis=-1, offset=o, scale=s, epsilon=1e-3),
  X(2, 3, 4), X(4), P(4), X(4), P(4))
C("batch_normalization/axis1", lambda x, m, v: ops.batch_normalization(x, m, v, axis=1), X(2, 3, 4), X(3), P(3))
C("layer_normalization", lambda x, g, b: ops.layer_normalization(x, g, b, epsilon=1e-3), X(2, 3, 4), P(4), X(4))
C("rms_normalization", lambda x, s: ops.rms_normalization(x, s, epsilon=1e-6), X(2, 3, 4), P(4))
C("binary_crossentropy", ops.binary_crossentropy, X(3, 4, lo=0, hi=1), X(3, 4, lo=0.05, hi=0.95))
C("binary_crossentropy/logits", lambda t, o: ops.binary_crossentropy(t, o, from_logits=True), X(3, 4, lo=0, hi=1), X(3, 4, lo=-3, hi=3))
C("categorical_crossentropy", ops.categorical_crossentropy, V([[0.0, 1.0, 0.0], [0.2, 0.3, 0.5]]), P(2, 3))
C("categorical_crossentropy/logits", lambda t, o: ops.categorical_crossentropy(t, o, from_logits=True), V([[0.0, 1.0, 0.0], [0.2, 0.3, 0.5]]), X(2, 3))
C("sparse_categorical_crossentropy", lambda t, o: ops.sparse_categorical_crossentropy(t, o, from_logits=True), Int([2, 0]), X(2, 3))
C("sparse_categorical_crossentropy/probs", ops.sparse_categorical_crossentropy, Int([1, 2]), P(2, 3))
C("psnr", lambda x, y: ops.psnr(x, y, 1.0), X(3, 4, lo=0, hi=1), X(3, 4, lo=0, hi=1))

# ---- core ----
C("stop_gradient", lambda x: ops.stop_gradient(x) * x, X(3, 4))
C("cast", lambda x: ops.cast(x, "float64"), Int([[1, 2], [3, 4]]), grad=False)
C("convert_to_tensor", lambda: ops.convert_to_tensor([[1.0, 2.0], [3.0, 4.0]]))
C("saturate_cast", lambda x: ops.saturate_cast(x * 3, "float64"), X(3, 4))
C("saturate_cast/int", lambda x: ops.saturate_cast(x, "float64"), Int([[1, -2], [2147483647, -2147483648]]), grad=False)


def _upstream(args, upstream):
    """The upstream gradient, given as Keras's custom_gradient docs do for every backend."""
    return args[0] if upstream is None else upstream


@ops.custom_gradient
def _log1pexp(x):
    e = ops.exp(x)

    def grad(*args, upstream=None):
        return ops.multiply(_upstream(args, upstream), 1.0 - 1.0 / ops.add(1, e))

    return ops.log(1 + e), grad


@ops.custom_gradient
def _clipped_square(x):
    def grad(*args, upstream=None):
        return ops.clip(_upstream(args, upstream), -0.5, 0.5) * 3.0

    return ops.square(x), grad


@ops.custom_gradient
def _scaled_product(x, y):
    def grad(*args, upstream=None):
        up = _upstream(args, upstream)
        return up * y * 2.0, up * x

    return x * y, grad


# the custom result inside other ops, so the gradient flows into and out of it
C("custom_gradient", lambda x: ops.tanh(_log1pexp(x * 2)), X(3, 4, lo=-3, hi=3))
C("custom_gradient/clipped", lambda x: _clipped_square(ops.sin(x)) + x, X(3, 4, lo=-2, hi=2))
C("custom_gradient/two_inputs", lambda x, y: ops.sum(_scaled_product(x, y), axis=0), X(3, 4), X(3, 4))


# ---- nan-skipping reductions ----
NANS = V([[1.0, np.nan, 3.0, -2.0], [np.nan, np.nan, np.nan, np.nan], [0.5, 2.0, np.nan, -1.0]])
for op in ["nansum", "nanmean", "nanmax", "nanmin", "nanprod", "nanvar", "nanstd"]:
    C(op, lambda x, f=getattr(ops, op): f(x, axis=1), NANS, grad=False)
    C(op + "/all", lambda x, f=getattr(ops, op): f(x), NANS[[0, 2]], grad=False)
C("nansum/grad", lambda x: ops.nansum(x, axis=0), X(3, 4))
C("nanmean/keepdims", lambda x: ops.nanmean(x, axis=-1, keepdims=True), X(3, 4))
C("nanargmax", lambda x: ops.nanargmax(x, axis=1), NANS[[0, 2]], grad=False)
C("nanargmin", lambda x: ops.nanargmin(x, axis=1), NANS[[0, 2]], grad=False)
C("nancumsum", lambda x: ops.nancumsum(x, axis=1), NANS, grad=False)
C("nancumprod", lambda x: ops.nancumprod(x, axis=1), NANS, grad=False)
C("nanmedian", lambda x: ops.nanmedian(x, axis=1), NANS, grad=False)
C("nanquantile", lambda x: ops.nanquantile(x, 0.3, axis=1), NANS, grad=False)
C("nanpercentile", lambda x: ops.nanpercentile(x, 80.0, axis=1), NANS, grad=False)
C("nanquantile/grad", lambda x: ops.nanquantile(x, 0.3, axis=0), X(5, 3))

# ---- math ----
C("segment_sum", lambda d, i: ops.segment_sum(d, i, num_segments=4), X(5, 3), Int([0, 2, 0, 3, 2]))
C("segment_max", lambda d, i: ops.segment_max(d, i, num_segments=3), X(5, 2), Int([0, 2, 0, 1, 2]))
# an empty segment is -Inf; JAX's gradient is NaN there, so no gradient check
C("segment_max/empty", lambda d, i: ops.segment_max(d, i, num_segments=3), X(5, 2), Int([0, 2, 0, 2, 2]), grad=False)
C("segment_min", lambda d, i: ops.segment_min(d, i, num_segments=3), X(5), Int([1, 1, 0, 2, 0]))
C("segment_prod", lambda d, i: ops.segment_prod(d, i, num_segments=3), X(5, 2), Int([0, 2, 0, 1, 2]), grad=False)  # JAX has no gradient for it
C("isin", ops.isin, V([[1.0, 2.0, 3.0], [4.0, 5.0, 1.0]]), V([1.0, 5.0, 9.0]), grad=False)
C("correlate", lambda x, y: ops.correlate(x, y), X(6), X(3))
C("correlate/same", lambda x, y: ops.correlate(x, y, mode="same"), X(6), X(3))
C("correlate/full", lambda x, y: ops.correlate(x, y, mode="full"), X(5), X(3))
C("cdist", ops.cdist, X(3, 4), X(2, 4))
C("cdist/batch", ops.cdist, X(2, 3, 4), X(2, 2, 4))
C("corrcoef", ops.corrcoef, X(3, 5))
C("histogram", lambda x: ops.histogram(x, bins=4, range=(-1.0, 1.0)), V([-1.0, -0.5, 0.0, 0.2, 0.99, 1.0, 0.5]), grad=False)
C("bincount", lambda x: ops.bincount(x, minlength=5), Int([0, 1, 1, 3, 1, 4]), grad=False)
C("bincount/weights", lambda x, w: ops.bincount(x, weights=w, minlength=4), Int([0, 1, 1, 3]), X(4))
C("i0", ops.i0, X(3, 4, lo=-3, hi=3))
C("unravel_index", lambda i: ops.unravel_index(i, (3, 4)), Int([0, 5, 11, 7]), grad=False)

# ---- more shapes ----
C("get_item", lambda x: x[1], X(3, 4))
C("get_item/negative", lambda x: x[-1], X(3, 2))
C("depth_to_space", lambda x: ops.depth_to_space(x, 2), X(1, 2, 2, 8))
C("space_to_depth", lambda x: ops.space_to_depth(x, 2), X(1, 4, 4, 2))
C("extract_sequences", lambda x: ops.extract_sequences(x, 3, 2), X(2, 8))
C("array", lambda: ops.array([[1.0, 2.0], [3.0, 4.0]]))
C("empty", lambda: ops.empty((2, 3)))
C("empty_like", ops.empty_like, X(2, 3), grad=False)
C("shape", lambda x: np.array(ops.shape(x), dtype="float64"), X(2, 3, 4), grad=False)
C("ndim", lambda x: np.array(ops.ndim(x), dtype="float64"), X(2, 3, 4), grad=False)
C("size", lambda x: np.array(ops.size(x), dtype="float64"), X(2, 3, 4), grad=False)

# ---- control flow ----
C("cond", lambda p, x: ops.cond(p[0] > 0, lambda: x * 2, lambda: x - 1), V([1.0]), X(3))
C("cond/false", lambda p, x: ops.cond(p[0] > 0, lambda: x * 2, lambda: x - 1), V([-1.0]), X(3))
C("switch", lambda x: ops.switch(1, [lambda y: y + 1, lambda y: y * 3, lambda y: -y], x), X(3))
C("fori_loop", lambda x: ops.fori_loop(0, 4, lambda i, v: v * 0.5 + i, x), X(3))
C("while_loop", lambda x: ops.while_loop(lambda v: ops.sum(v) < 10.0, lambda v: (v * 2.0,), (x,), maximum_iterations=6), P(3), grad=False)  # JAX cannot differentiate a while loop
C("scan", lambda c, xs: ops.scan(lambda c, x: (c + x, c * x), c, xs), X(2), X(4, 2))
C("scan/reverse", lambda c, xs: ops.scan(lambda c, x: (c * 0.5 + x, c), c, xs, reverse=True), X(2), X(3, 2))
C("map", lambda xs: ops.map(lambda x: ops.sum(x * x), xs), X(4, 3))
C("vectorized_map", lambda xs: ops.vectorized_map(lambda x: x * 2.0 + 1.0, xs), X(3, 2))
C("associative_scan", lambda x: ops.associative_scan(lambda a, b: a + b, x, axis=1), X(2, 5))
C("associative_scan/reverse", lambda x: ops.associative_scan(lambda a, b: a * b, x, reverse=True), X(5))

# ---- convolutions and pooling ----
C("conv", lambda x, k: ops.conv(x, k), X(2, 5, 5, 3), X(3, 3, 3, 4))
C("conv/same_strides", lambda x, k: ops.conv(x, k, strides=2, padding="same"), X(1, 5, 6, 2), X(3, 2, 2, 3))
C("conv/dilated", lambda x, k: ops.conv(x, k, dilation_rate=2), X(1, 6, 6, 2), X(2, 2, 2, 2))
C("conv/1d", lambda x, k: ops.conv(x, k, padding="same"), X(2, 7, 3), X(3, 3, 2))
C("conv/groups", lambda x, k: ops.conv(x, k), X(1, 4, 4, 4), X(2, 2, 2, 6))
C("depthwise_conv", lambda x, k: ops.depthwise_conv(x, k), X(1, 5, 5, 2), X(3, 3, 2, 2))
C("depthwise_conv/same", lambda x, k: ops.depthwise_conv(x, k, strides=2, padding="same"), X(1, 5, 4, 3), X(2, 2, 3, 1))
C("separable_conv", lambda x, d, p: ops.separable_conv(x, d, p), X(1, 4, 4, 2), X(2, 2, 2, 2), X(1, 1, 4, 3))
# strides given: Keras 3.15.1 on JAX fails on strides=None (it converts the pool size twice)
C("max_pool", lambda x: ops.max_pool(x, (2, 2), strides=(2, 2)), X(2, 4, 4, 3))
C("max_pool/same", lambda x: ops.max_pool(x, (3, 3), strides=(2, 2), padding="same"), X(1, 5, 5, 2))
C("max_pool/1d", lambda x: ops.max_pool(x, (2,), strides=(2,)), X(2, 6, 3))
C("average_pool", lambda x: ops.average_pool(x, (2, 2), strides=(2, 2)), X(2, 4, 4, 3))
C("average_pool/same", lambda x: ops.average_pool(x, (3, 3), strides=(2, 2), padding="same"), X(1, 5, 5, 2))
C("average_pool/1d", lambda x: ops.average_pool(x, (3,), strides=(1,), padding="same"), X(2, 5, 2))

C("dot_product_attention", ops.dot_product_attention, X(2, 3, 2, 4), X(2, 5, 2, 4), X(2, 5, 2, 4))
C("dot_product_attention/causal", lambda q, k, v: ops.dot_product_attention(q, k, v, is_causal=True), X(1, 4, 2, 3), X(1, 4, 2, 3), X(1, 4, 2, 3))
C("dot_product_attention/mask_bias_scale", lambda q, k, v, bias: ops.dot_product_attention(
    q, k, v, bias=bias, mask=np.array([[True, False, True, True]])[None, None], scale=0.3), X(2, 2, 1, 3), X(2, 4, 1, 3), X(2, 4, 1, 3), X(1, 1, 2, 4))
C("dot_product_attention/grouped", ops.dot_product_attention, X(1, 3, 4, 2), X(1, 3, 2, 2), X(1, 3, 2, 2))


# ---- image ----
IMG = lambda *s: X(*s, lo=0.05, hi=0.95)
C("image.resize", lambda x: ops.image.resize(x, (5, 3)), X(2, 4, 6, 2))
C("image.resize/nearest", lambda x: ops.image.resize(x, (6, 4), interpolation="nearest"), X(1, 3, 2, 1))
C("image.resize/bicubic_antialias", lambda x: ops.image.resize(x, (3, 2), interpolation="bicubic", antialias=True), X(1, 6, 5, 1))
C("image.resize/one_image", lambda x: ops.image.resize(x, (2, 2)), X(4, 4, 3))
C("image.extract_patches", lambda x: ops.image.extract_patches(x, (2, 2)), X(2, 4, 6, 3))
C("image.extract_patches/strides_same", lambda x: ops.image.extract_patches(x, (3, 2), strides=(2, 1), padding="same"), X(1, 5, 4, 2))
C("image.crop_images", lambda x: ops.image.crop_images(x, top_cropping=1, left_cropping=2, target_height=2, target_width=3), X(2, 4, 6, 1))
C("image.pad_images", lambda x: ops.image.pad_images(x, top_padding=1, left_padding=2, target_height=5, target_width=6), X(2, 3, 3, 2))
C("image.rgb_to_grayscale", ops.image.rgb_to_grayscale, IMG(2, 3, 3, 3))
C("image.rgb_to_hsv", ops.image.rgb_to_hsv, IMG(2, 3, 4, 3))
C("image.hsv_to_rgb", ops.image.hsv_to_rgb, IMG(2, 3, 4, 3))
# data_format given: Keras 3.15.1 on JAX leaves data_format=None as it is
# and then treats channels_last images as channels_first (it blurs across
# width and channels)
C("image.gaussian_blur", lambda x: ops.image.gaussian_blur(x, data_format="channels_last"), X(2, 5, 4, 2))
C("image.gaussian_blur/sized", lambda x: ops.image.gaussian_blur(x, kernel_size=(5, 3), sigma=(1.5, 0.7), data_format="channels_last"), X(1, 6, 6, 1))
C("image.sobel_edges", ops.image.sobel_edges, X(2, 4, 5, 2))


# ---- linalg ----
def spd(n, batch=()):
    a = X(*batch, n, n)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def lower(n):
    return np.tril(X(n, n)) + 2 * np.eye(n)


C("cholesky", ops.cholesky, spd(3))
C("cholesky/upper_batch", lambda x: ops.cholesky(x, upper=True), spd(3, (2,)))
C("cholesky_inverse", ops.cholesky_inverse, lower(3))
C("det", ops.det, X(3, 3))
C("det/batch", ops.det, X(2, 4, 4))
C("inv", ops.inv, X(3, 3) + 2 * np.eye(3))
C("lu_factor", ops.lu_factor, X(4, 4), grad=False)
C("slogdet", ops.slogdet, X(3, 3))
C("logdet", ops.logdet, spd(3))
C("solve", ops.solve, X(3, 3) + 2 * np.eye(3), X(3, 2))
C("solve/vector", ops.solve, X(3, 3) + 2 * np.eye(3), X(3))
C("solve/batch", ops.solve, X(2, 3, 3) + 2 * np.eye(3), X(2, 3, 2))
C("solve_triangular", lambda a, b: ops.solve_triangular(a, b, lower=True), lower(3), X(3, 2))
C("solve_triangular/upper", lambda a, b: ops.solve_triangular(a, b), np.swapaxes(lower(3), 0, 1), X(3))


# ---- Fourier transforms ----
C("fft", lambda r, i: ops.fft((r, i)), X(2, 5), X(2, 5))
C("fft2", lambda r, i: ops.fft2((r, i)), X(2, 3, 4), X(2, 3, 4))
C("ifft2", lambda r, i: ops.ifft2((r, i)), X(3, 4), X(3, 4))
C("rfft", lambda x: ops.rfft(x), X(2, 6))
C("rfft/length", lambda x: ops.rfft(x, fft_length=8), X(5))
C("irfft", lambda r, i: ops.irfft((r, i)), X(2, 4), X(2, 4))
C("irfft/odd_length", lambda r, i: ops.irfft((r, i), fft_length=7), X(4), X(4))

# ---- added later: at the end, so that the cases above keep their inputs ----
C("conv_transpose", lambda x, k: ops.conv_transpose(x, k, strides=2), X(2, 3, 3, 2), X(3, 3, 4, 2))
C("conv_transpose/same", lambda x, k: ops.conv_transpose(x, k, strides=2, padding="same"), X(1, 3, 4, 2), X(3, 3, 3, 2))
C("conv_transpose/output_padding", lambda x, k: ops.conv_transpose(x, k, strides=(2, 3), output_padding=1), X(1, 3, 2, 2), X(3, 2, 2, 2))
C("conv_transpose/same_output_padding", lambda x, k: ops.conv_transpose(x, k, strides=2, padding="same", output_padding=(1, 0)), X(1, 3, 3, 1), X(2, 3, 2, 1))
C("conv_transpose/dilated", lambda x, k: ops.conv_transpose(x, k, dilation_rate=2), X(1, 3, 3, 2), X(2, 2, 3, 2))
C("conv_transpose/1d", lambda x, k: ops.conv_transpose(x, k, strides=2, padding="same"), X(2, 4, 3), X(3, 2, 3))
C("ctc_loss", lambda t, o, tl, ol: ops.ctc_loss(t, o, tl, ol), Int([[1, 2, 2], [3, 1, 0]]), X(2, 6, 4), Int([3, 2]), Int([6, 4]))
C("ctc_loss/mask_last", lambda t, o, tl, ol: ops.ctc_loss(t, o, tl, ol, mask_index=3), Int([[0, 1, 1, 2], [2, 2, 0, 0]]), X(2, 7, 4), Int([4, 2]), Int([7, 5]))
def _steps(*rows):
    """Per-step scores whose best class follows rows (one list of classes per sequence) over 4 classes."""
    a = np.full((len(rows), len(rows[0]), 4), -0.5)
    for i, row in enumerate(rows):
        for t, k in enumerate(row):
            a[i, t, k] = 0.3 + 0.1 * t
    return a + 0.01 * np.arange(a.size).reshape(a.shape) / a.size


C("ctc_decode", lambda x, n: ops.ctc_decode(x, n), V(_steps([1, 1, 0, 1, 2, 2, 0], [3, 0, 0, 3, 3, 1, 2])), Int([7, 5]), grad=False)
C("ctc_decode/no_merge_mask_last", lambda x, n: ops.ctc_decode(x, n, merge_repeated=False, mask_index=3), V(_steps([1, 1, 3, 1, 2, 2, 0], [3, 0, 0, 3, 3, 1, 2])), Int([6, 7]), grad=False)
C("ctc_decode/random", lambda x, n: ops.ctc_decode(x, n), X(2, 6, 4), Int([6, 4]), grad=False)
C("qr", lambda x: ops.linalg.qr(x), X(3, 3))
C("qr/tall", lambda x: ops.linalg.qr(x), X(4, 3))
C("qr/batched", lambda x: ops.linalg.qr(x), X(2, 3, 2))
C("qr/complete", lambda x: ops.linalg.qr(x, mode="complete"), X(4, 2), grad=False)  # JAX differentiates only the reduced factors of a tall matrix
C("qr/wide", lambda x: ops.linalg.qr(x), X(2, 4), grad=False)  # JAX's QR derivative needs m >= n
def _signed(w_v):
    """Eigen or singular vectors up to sign (each backend's LAPACK picks its own): each column's first entry made positive."""
    w, v = w_v
    return w, v * ops.sign(v[..., :1, :])


C("eigh", lambda x: _signed(ops.linalg.eigh(x)), X(3, 3))
C("eigh/batched", lambda x: _signed(ops.linalg.eigh(x)), X(2, 3, 3))
def _svd_signed(usv):
    """Singular vectors up to their pairs' common sign: each column of u's first entry made positive, vh's row with it."""
    u, s, vh = usv
    sg = ops.sign(u[..., :1, :])
    return u * sg, s, vh * ops.swapaxes(sg, -1, -2)


C("svd/values", lambda x: ops.linalg.svd(x, compute_uv=False), X(3, 3))
C("svd/values_wide", lambda x: ops.linalg.svd(x, compute_uv=False), X(2, 4))
C("svd/reduced", lambda x: _svd_signed(ops.linalg.svd(x, full_matrices=False)), X(4, 3))
C("svd/reduced_wide", lambda x: _svd_signed(ops.linalg.svd(x, full_matrices=False)), X(2, 3))
C("svd/reduced_batched", lambda x: _svd_signed(ops.linalg.svd(x, full_matrices=False)), X(2, 3, 2))
C("svd", lambda x: _svd_signed(ops.linalg.svd(x)), X(3, 3), grad=False)  # JAX differentiates u and vh only with full_matrices=False
C("qr/triangular", lambda x: ops.linalg.qr(x), V([[2.0, 1.0, -1.0], [0.0, -3.0, 0.5], [0.0, 0.0, 4.0]]), grad=False)  # LAPACK leaves zero columns unreflected: a jump JAX's derivative ignores
C("pinv", lambda x: ops.linalg.pinv(x), X(3, 3))
C("pinv/tall", lambda x: ops.linalg.pinv(x), X(4, 2))
C("pinv/rank_deficient", lambda x: ops.linalg.pinv(x), V([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.5, 1.0]]), grad=False)  # rank 2: the dropped value's gradient is not defined
C("matrix_rank", lambda x: ops.linalg.matrix_rank(x), X(3, 3), grad=False)
C("matrix_rank/deficient", lambda x: ops.linalg.matrix_rank(x), V([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.5, 1.0]]), grad=False)
C("lstsq", lambda a, b: ops.linalg.lstsq(a, b), X(4, 2), X(4))
C("lstsq/matrix", lambda a, b: ops.linalg.lstsq(a, b), X(3, 3), X(3, 2))
# The transforms' projective terms c0, c1 are left 0 (appended as zeros):
# Keras 3.15.1's JAX backend adds them times the channel index instead of
# dividing by c0·x + c1·y + 1 (its documented meaning, and TensorFlow's).
def _affine(**kw):
    return lambda x, t: ops.image.affine_transform(x, ops.pad(t, [[0, 0]] * (t.ndim - 1) + [[0, 2]]), **kw)


_T2 = V([[0.93, -0.21, 0.71, 0.17, 1.13, -0.37], [1.23, 0.11, -1.31, -0.13, 0.83, 0.91]])
_T2R = V([[1.31, 0.42, -2.23, -0.29, 1.41, 1.73], [0.61, -0.53, 3.11, 0.19, -1.21, 4.33]])
C("image.affine_transform", _affine(), X(2, 5, 4, 2), _T2)
C("image.affine_transform/nearest_wrap", _affine(interpolation="nearest", fill_mode="wrap"), X(2, 5, 4, 2), _T2)
C("image.affine_transform/reflect", _affine(fill_mode="reflect"), X(2, 5, 4, 1), _T2R)
C("image.affine_transform/mirror", _affine(fill_mode="mirror"), X(2, 5, 4, 1), _T2R)
C("image.affine_transform/nearest_fill_one_image", _affine(fill_mode="nearest", fill_value=0.5), X(4, 3, 2), V([1.13, 0.31, -0.61, -0.19, 0.93, 0.47]))
C("image.affine_transform/constant_value", _affine(fill_value=-0.75), X(1, 4, 4, 1), V([[0.71, -0.29, 1.63, 0.37, 0.83, -1.13]]))
C("stft", lambda x: ops.stft(x, 8, 4, 8), X(2, 16))
C("stft/hamming_not_centred", lambda x: ops.stft(x, 6, 3, 8, window="hamming", center=False), X(2, 17))
C("stft/no_window", lambda x: ops.stft(x, 4, 2, 4, window=None), X(10))
C("istft", lambda r, i: ops.istft((r, i), 8, 4, 8), X(2, 5, 5), X(2, 5, 5))
C("istft/length_not_centred", lambda r, i: ops.istft((r, i), 6, 3, 8, length=11, window="hamming", center=False), X(4, 5), X(4, 5))
C("istft/no_window", lambda r, i: ops.istft((r, i), 4, 2, 4, window=None), X(6, 3), X(6, 3))
C("adaptive_average_pool", lambda x: ops.adaptive_average_pool(x, (3, 2)), X(2, 7, 5, 2))
C("adaptive_average_pool/1d", lambda x: ops.adaptive_average_pool(x, 4), X(2, 10, 3))
C("adaptive_max_pool", lambda x: ops.adaptive_max_pool(x, 3), X(1, 8, 7, 2))
C("adaptive_max_pool/1d_grow", lambda x: ops.adaptive_max_pool(x, 5), X(2, 3, 2))
C("argpartition", lambda x: ops.argpartition(x, 2), X(3, 6), grad=False)
C("argpartition/axis0_ties", lambda x: ops.argpartition(x, 1, axis=0), V([[3.0, 1.0], [1.0, 2.0], [3.0, 1.0], [0.5, 1.0]]), grad=False)
C("argpartition/last", lambda x: ops.argpartition(x, -1), X(2, 5), grad=False)
def _coords(*shape, lo=-1.3, hi=5.3):
    return X(*shape, lo=lo, hi=hi)


C("image.map_coordinates", lambda x, c: ops.image.map_coordinates(x, c, 1), X(4, 5), _coords(2, 3, 3))
C("image.map_coordinates/nearest_wrap", lambda x, c: ops.image.map_coordinates(x, c, 0, fill_mode="wrap"), X(4, 5), _coords(2, 6))
C("image.map_coordinates/3d_reflect", lambda x, c: ops.image.map_coordinates(x, c, 1, fill_mode="reflect"), X(3, 4, 2), _coords(3, 5, lo=-1.2, hi=4.2))
C("image.map_coordinates/mirror_1d", lambda x, c: ops.image.map_coordinates(x, c, 1, fill_mode="mirror"), X(6), _coords(1, 7, lo=-3.3, hi=8.3))
C("image.map_coordinates/constant_value", lambda x, c: ops.image.map_coordinates(x, c, 1, fill_value=0.25), X(3, 3), _coords(2, 4, lo=-1.7, hi=3.7))
C("image.ssim", lambda a, c: ops.image.ssim(a, c), P(2, 12, 13, 2), P(2, 12, 13, 2), grad=False)  # the 11x11 window's gradient is checked on the small case, where finite differences stay quick
C("image.ssim/small_window_one_image", lambda a, c: ops.image.ssim(a, c, max_val=2.0, filter_size=3, filter_sigma=0.8, k1=0.02, k2=0.05), P(5, 4, 2), P(5, 4, 2))
C("ctc_loss/one_label", lambda t, o, tl, ol: ops.ctc_loss(t, o, tl, ol), Int([[2], [1]]), X(2, 3, 3), Int([1, 1]), Int([3, 2]))
# 3-D convolutions and pools: volumes (batch, depth, rows, cols, channels)
C("conv/3d", lambda x, k: ops.conv(x, k), X(2, 4, 5, 4, 2), X(2, 3, 2, 2, 3))
C("conv/3d_same_strides", lambda x, k: ops.conv(x, k, strides=(2, 1, 2), padding="same"), X(1, 5, 4, 5, 2), X(3, 2, 3, 2, 2))
C("conv/3d_dilated", lambda x, k: ops.conv(x, k, dilation_rate=(2, 1, 2)), X(1, 5, 4, 5, 2), X(2, 2, 2, 2, 3))
C("conv/3d_groups", lambda x, k: ops.conv(x, k), X(1, 3, 4, 4, 4), X(2, 2, 2, 2, 6))
C("depthwise_conv/3d", lambda x, k: ops.depthwise_conv(x, k, strides=2, padding="same"), X(1, 5, 4, 4, 2), X(2, 3, 2, 2, 2))
C("separable_conv/3d", lambda x, d, p: ops.separable_conv(x, d, p), X(1, 4, 4, 3, 2), X(2, 2, 2, 2, 1), X(1, 1, 1, 2, 3))
C("conv_transpose/3d", lambda x, k: ops.conv_transpose(x, k, strides=(2, 1, 2)), X(1, 3, 2, 3, 2), X(2, 3, 2, 3, 2))
# a kernel of 2 along an axis with output padding 0 aborts XLA 0.7 in the gradient: 3 there
C("conv_transpose/3d_same_output_padding", lambda x, k: ops.conv_transpose(x, k, strides=2, padding="same", output_padding=(1, 0, 1)), X(1, 2, 3, 2, 2), X(3, 3, 2, 2, 2))
C("max_pool/3d", lambda x: ops.max_pool(x, (2, 2, 2), strides=(2, 2, 2)), X(2, 4, 4, 5, 2))
C("max_pool/3d_same", lambda x: ops.max_pool(x, (3, 2, 3), strides=(2, 1, 2), padding="same"), X(1, 5, 4, 5, 2))
C("average_pool/3d", lambda x: ops.average_pool(x, (2, 3, 2), strides=(1, 2, 2)), X(2, 3, 5, 4, 2))
C("average_pool/3d_same", lambda x: ops.average_pool(x, (3, 3, 2), strides=(2, 2, 1), padding="same"), X(1, 5, 5, 3, 2))
C("adaptive_average_pool/3d", lambda x: ops.adaptive_average_pool(x, (2, 3, 2)), X(2, 5, 7, 4, 2))
C("adaptive_max_pool/3d", lambda x: ops.adaptive_max_pool(x, 3), X(1, 5, 4, 7, 2))
C("image.extract_patches_3d", lambda x: ops.image.extract_patches_3d(x, (2, 2, 3)), X(2, 4, 5, 6, 2))
C("image.extract_patches_3d/strides_same_one_volume", lambda x: ops.image.extract_patches_3d(x, 2, strides=(1, 2, 2), padding="same"), X(3, 5, 4, 2))
C("image.extract_patches_3d/dilated", lambda x: ops.image.extract_patches_3d(x, (2, 2, 2), strides=1, dilation_rate=(1, 2, 2)), X(1, 3, 5, 5, 1))

# Perspective transforms: the four corners moved (x, y), per image or for
# one image. (Keras solves the homography in float32: the float64 values
# carry its rounding.)
_START = V([[[0.0, 0.0], [2.0, 0.0], [0.0, 3.0], [2.0, 3.0]]] * 2)
_END = V([[[0.3, -0.2], [1.6, 0.4], [-0.1, 2.7], [2.2, 3.3]], [[0.5, 0.1], [2.4, -0.3], [0.2, 3.2], [1.7, 2.6]]])
C("image.perspective_transform", lambda x, s, e: ops.image.perspective_transform(x, s, e), X(2, 4, 3, 1), _START, _END)
C("image.perspective_transform/nearest_fill", lambda x, s, e: ops.image.perspective_transform(x, s, e, interpolation="nearest", fill_value=0.5),
  X(5, 4, 1), V([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0], [3.0, 4.0]]), V([[0.6, 0.2], [2.5, -0.4], [-0.3, 3.6], [3.4, 4.5]]), grad=False)
# elastic_transform draws its field: with alpha 0 it moves nothing, which
# pins its sampling on the grid (keras/ops/image_elastic_test.go checks
# the field itself).
C("image.elastic_transform/no_displacement", lambda x: ops.image.elastic_transform(x, alpha=0.0, sigma=0.5, seed=1), X(1, 4, 3, 2))
C("unfold", lambda x: ops.unfold(x, 2), X(2, 3, 4, 5))
C("unfold/stride_pad_dilation", lambda x: ops.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), X(1, 2, 5, 6))
C("fold", lambda x: ops.fold(x, (4, 5), 2), X(2, 12, 12))
C("fold/stride_pad_dilation", lambda x: ops.fold(x, (5, 6), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), X(1, 12, 12))
C("rearrange", lambda x: ops.rearrange(x, "b h w c -> b c h w"), X(2, 3, 4, 2))
C("rearrange/split_merge", lambda x: ops.rearrange(x, "b (h1 h) (w1 w) c -> (b h1 w1) h w c", h1=2, w1=2), X(2, 4, 6, 3))
C("rearrange/space_to_depth", lambda x: ops.rearrange(x, "b (h h1) (w w1) c -> b h w (c h1 w1)", h1=2, w1=2), X(1, 4, 4, 2))
# scale_and_translate: scale and translation are Python numbers (kerasgo
# takes them as Go numbers: the gradient is in the images only).
C("image.scale_and_translate", lambda x: ops.image.scale_and_translate(x, (5, 5), [2.0, 2.0], [-0.5, -0.5], (0, 1), "linear"), X(3, 3))
C("image.scale_and_translate/cubic_down_shifted", lambda x: ops.image.scale_and_translate(x, (2, 3, 4, 2), [0.6, 0.7], [0.4, -0.3], (1, 2), "bicubic"), X(2, 3, 6, 2))
C("image.scale_and_translate/lanczos3_no_antialias", lambda x: ops.image.scale_and_translate(x, (1, 3, 4, 2), [0.5, 1.3], [1.0, 0.2], (-3, -2), "lanczos3", antialias=False), X(1, 5, 3, 2))
C("vectorize", lambda x: ops.vectorize(lambda a: a * a + ops.sin(a))(x), X(2, 3))
C("vectorize/matvec_broadcast", lambda m, v: ops.vectorize(lambda a, b: ops.matmul(a, b), signature="(m,n),(n)->(m)")(m, v), X(2, 3, 4), X(4))
C("vectorize/two_outputs", lambda x: ops.vectorize(lambda a: (ops.sum(a), ops.max(a)), signature="(n)->(),()")(x), X(3, 4))
# jvp's outputs are gradients: their own gradient is not compared.
C("jvp", lambda x, v: ops.jvp(ops.sin, (x,), (v,)), X(2, 3), X(2, 3), grad=False)
C("jvp/two_primals", lambda x, y, u, v: ops.jvp(lambda a, b: ops.sum(ops.tanh(a) * b, axis=0), (x, y), (u, v)), X(3, 2), X(3, 2), X(3, 2), X(3, 2), grad=False)


def close(a, b):
    a = np.asarray([float(v) for v in a["data"]])
    b = np.asarray([float(v) for v in b["data"]])
    if a.shape != b.shape:
        return False
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    return bool(np.all(same | (np.abs(a - b) <= CHECK_TOLERANCE * np.maximum(1, np.abs(b)))))


def op_names():
    """keras.ops' public functions, and keras.ops.image's as "image.<name>":
    the denominator of kerasgo's coverage."""
    import inspect

    def functions(m):
        return {n for n in dir(m) if not n.startswith("_") and callable(getattr(m, n)) and not inspect.ismodule(getattr(m, n))}

    def entry(name, f):
        # the keras.io page of the module Keras defines it in (numpy, nn, ...)
        return {"name": name, "module": f.__module__.rsplit(".", 1)[-1]}

    top = functions(ops)
    image = functions(ops.image) - top
    return [entry(n, getattr(ops, n)) for n in sorted(top)] + [entry("image." + n, getattr(ops.image, n)) for n in sorted(image)]


def same_arrays(a, b):
    if a is None or b is None:
        return a is None and b is None
    if len(a) != len(b):
        return False
    return all((x is None and y is None) or (x is not None and y is not None and close(x, y)) for x, y in zip(a, b))


def main():
    cases = [run(*c) for c in CASES]
    if "--check" in sys.argv:
        with open(OUT) as f:
            stored = {c["name"]: c for c in json.load(f)["cases"]}
        stale = []
        for c in cases:
            s = stored.get(c["name"])
            if s is None or not same_arrays(s["outputs"], c["outputs"]) or not same_arrays(s.get("grads"), c.get("grads")):
                stale.append(c["name"])
        with open(OUT) as f:
            names = json.load(f).get("keras_ops")
        if names != op_names():
            print("keras/ops/testdata/golden.json lists other keras.ops names than this Keras has; rerun scripts/golden-ops.py")
            sys.exit(1)
        if stale or len(stored) != len(cases):
            print("keras/ops/testdata/golden.json is stale for: %s; rerun scripts/golden-ops.py" % (stale or "the case list"))
            sys.exit(1)
        print("ok: %d cases" % len(cases))
        return
    with open(OUT, "w") as f:
        json.dump({"keras_version": keras.__version__, "keras_ops": op_names(), "cases": cases}, f, separators=(",", ":"))
        f.write("\n")
    print("wrote %d cases to %s" % (len(cases), OUT))


if __name__ == "__main__":
    main()
