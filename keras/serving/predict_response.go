package serving

import (
	"math"
	"strconv"

	"github.com/kerasgo/kerasgo/keras"
)

// appendPredictResponse writes the answer to a :predict request as
// TensorFlow Serving does: {"predictions": [...]} for the row format (one
// entry per sample; an object keyed by output name for a model with
// several outputs), {"outputs": ...} for the columnar format (the batch;
// an object keyed by output name for several outputs). Non-finite values
// are written NaN, Infinity and -Infinity, as TensorFlow Serving writes
// them (Python's json reads them).
func appendPredictResponse(b []byte, outs []keras.Array, specs []tensorSpec, columnar bool) []byte {
	if columnar {
		b = append(b, `{"outputs":`...)
		b = appendOutputs(b, outs, specs, func(b []byte, o keras.Array) []byte { return appendNested(b, o.Data, o.Shape) })
		return append(b, '}')
	}
	b = append(b, `{"predictions":[`...)
	rows := outs[0].Shape[0]
	for r := range rows {
		if r > 0 {
			b = append(b, ',')
		}
		b = appendOutputs(b, outs, specs, func(b []byte, o keras.Array) []byte { return appendRow(b, o, r) })
	}
	return append(b, "]}"...)
}

// appendOutputs writes one output's value, or for several outputs an
// object of their values keyed by output name.
func appendOutputs(b []byte, outs []keras.Array, specs []tensorSpec, value func(b []byte, o keras.Array) []byte) []byte {
	if len(outs) == 1 {
		return value(b, outs[0])
	}
	b = append(b, '{')
	for i, o := range outs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, specs[i].name)
		b = append(b, ':')
		b = value(b, o)
	}
	return append(b, '}')
}

// appendRow writes sample r of a.
func appendRow(b []byte, a keras.Array, r int) []byte {
	n := 1
	for _, d := range a.Shape[1:] {
		n *= d
	}
	return appendNested(b, a.Data[r*n:(r+1)*n], a.Shape[1:])
}

// appendNested writes data as nested lists of the given shape.
func appendNested(b []byte, data []float32, shape []int) []byte {
	if len(shape) == 0 {
		return appendFloat(b, data[0])
	}
	b = append(b, '[')
	if len(shape) == 1 {
		for i, v := range data[:shape[0]] {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendFloat(b, v)
		}
		return append(b, ']')
	}
	step := len(data) / max(shape[0], 1)
	for i := range shape[0] {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendNested(b, data[i*step:(i+1)*step], shape[1:])
	}
	return append(b, ']')
}

// appendFloat writes a float32 in the fewest digits that read back as it.
func appendFloat(b []byte, v float32) []byte {
	switch f := float64(v); {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	default:
		return strconv.AppendFloat(b, f, 'g', -1, 32)
	}
}

// appendClassifyResponse writes a :classify answer as TensorFlow Serving
// does: {"result": [[[<label>, <score>], ...], ...]}, one list of (label,
// score) pairs per example, in class order. A Keras model has no class
// labels, so each label is "", as TensorFlow Serving writes for a model
// without them: the class is the pair's position.
func appendClassifyResponse(b []byte, out keras.Array) []byte {
	b = append(b, `{"result":[`...)
	rows, classes := out.Shape[0], out.Shape[1]
	for r := range rows {
		if r > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for c := range classes {
			if c > 0 {
				b = append(b, ',')
			}
			b = append(b, `["",`...)
			b = appendFloat(b, out.Data[r*classes+c])
			b = append(b, ']')
		}
		b = append(b, ']')
	}
	return append(b, "]}"...)
}

// appendRegressResponse writes a :regress answer as TensorFlow Serving
// does: {"result": [<value>, ...]}, one value per example.
func appendRegressResponse(b []byte, out keras.Array) []byte {
	b = append(b, `{"result":[`...)
	for r, v := range out.Data[:out.Shape[0]] {
		if r > 0 {
			b = append(b, ',')
		}
		b = appendFloat(b, v)
	}
	return append(b, "]}"...)
}
