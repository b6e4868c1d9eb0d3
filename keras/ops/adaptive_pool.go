package ops

import "slices"

// AdaptiveAveragePool averages inputs (batch, spatial..., channels), with
// one to three spatial axes, down to outputSize along each spatial axis (one
// value for all, or one each), Keras's ops.adaptive_average_pool: output
// i of an axis of length n averages inputs floor(i·n/out) up to
// ceil((i+1)·n/out), as PyTorch's and Keras's adaptive pools do.
func AdaptiveAveragePool(b Builder, inputs Value, outputSize []int) Value {
	return adaptivePool(b, "AdaptiveAveragePool", inputs, outputSize, func(window Value, axis int) Value {
		return Mean(b, window, Axis(axis), KeepDims())
	})
}

// AdaptiveMaxPool is AdaptiveAveragePool with each window's maximum,
// Keras's ops.adaptive_max_pool.
func AdaptiveMaxPool(b Builder, inputs Value, outputSize []int) Value {
	return adaptivePool(b, "AdaptiveMaxPool", inputs, outputSize, func(window Value, axis int) Value {
		return Max(b, window, Axis(axis), KeepDims())
	})
}

// adaptivePool reduces each spatial axis in turn (the windows of an
// adaptive pool are products of one window per axis) with reduce.
func adaptivePool(b Builder, op string, inputs Value, outputSize []int, reduce func(window Value, axis int) Value) Value {
	if missing(b, op, []string{"inputs"}, inputs) {
		return b.Fail(nil, b.Err())
	}
	s := inputs.Shape()
	spatial := len(s) - 2
	if spatial < 1 || spatial > 3 {
		return failf(b, op, s, "inputs %v must be (batch, steps, channels), (batch, rows, cols, channels) or (batch, depth, rows, cols, channels)", s)
	}
	sizes := outputSize
	if len(sizes) == 1 && spatial > 1 {
		sizes = slices.Repeat(sizes, spatial)
	}
	if len(sizes) != spatial {
		return failf(b, op, s, "output_size %v: give one value, or one per spatial axis (%d)", outputSize, spatial)
	}
	x := inputs
	for a, out := range sizes {
		axis := 1 + a
		n := s[axis]
		if out <= 0 {
			return failf(b, op, s, "output_size %v must be positive", outputSize)
		}
		parts := make([]Value, out)
		for i := range parts {
			start := i * n / out
			end := ((i+1)*n + out - 1) / out
			parts[i] = reduce(sliceAxis(b, x, axis, start, end-start), axis)
		}
		if out == 1 {
			x = parts[0]
		} else {
			x = b.Concat(axis, parts...)
		}
	}
	return x
}
