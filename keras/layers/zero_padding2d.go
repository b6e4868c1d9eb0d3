package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// ZeroPadding2D adds rows and columns of zeros around images (batch,
// height, width, channels), like keras.layers.ZeroPadding2D.
type ZeroPadding2D struct {
	// Padding is ((top, bottom), (left, right)). The zero value is
	// Keras's default, one row and column on every side; see Symmetric.
	Padding [2][2]int
	Base
}

// NewZeroPadding2D returns a ZeroPadding2D adding rows rows above and below and
// cols columns left and right (Keras's padding=(rows, cols)).
func NewZeroPadding2D(rows, cols int) *ZeroPadding2D {
	return &ZeroPadding2D{Padding: [2][2]int{{rows, rows}, {cols, cols}}}
}

// ClassName returns "ZeroPadding2D".
func (*ZeroPadding2D) ClassName() string { return "ZeroPadding2D" }

func (l *ZeroPadding2D) padding() [2][2]int {
	if l.Padding == ([2][2]int{}) {
		return [2][2]int{{1, 1}, {1, 1}}
	}
	return l.Padding
}

// Build checks for images and non-negative padding.
func (l *ZeroPadding2D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	p := l.padding()
	for _, v := range []int{p[0][0], p[0][1], p[1][0], p[1][1]} {
		if v < 0 {
			return nil, fmt.Errorf("padding must not be negative, got %v", p)
		}
	}
	return backend.Shape{in[0], in[1] + p[0][0] + p[0][1], in[2] + p[1][0] + p[1][1], in[3]}, nil
}

// Call joins blocks of zeros to the input along the height and width.
func (l *ZeroPadding2D) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	p := l.padding()
	for axis, pad := range [2][2]int{p[0], p[1]} {
		x = padAxis(b, x, axis+1, pad[0], pad[1])
	}
	return x
}

// padAxis adds before and after zeros along axis by joining blocks of
// zeros (the op set has no pad; Concat's gradient slices them off).
func padAxis(b backend.Builder, x backend.Value, axis, before, after int) backend.Value {
	return ops.PadAxis(b, x, axis, before, after)
}

// GetConfig returns Keras's config.
func (l *ZeroPadding2D) GetConfig() (serialization.Config, error) {
	p := l.padding()
	return serialization.Config{"padding": []any{[]any{p[0][0], p[0][1]}, []any{p[1][0], p[1][1]}}, "data_format": "channels_last"}, nil
}

// readPadding2D reads Keras's int, (rows, cols) or ((top, bottom),
// (left, right)).
func readPadding2D(r *serialization.Reader, key string, def [2][2]int) [2][2]int {
	var out [2][2]int
	copy(out[:], readPaddings(r, key, def[:]))
	return out
}

// readPaddings reads Keras's per-axis (before, after) amounts for
// len(def) axes: an int for every side, one int per axis, or one pair per
// axis.
func readPaddings(r *serialization.Reader, key string, def [][2]int) [][2]int {
	v, ok := r.Value(key)
	if !ok || v == nil {
		return def
	}
	out := make([][2]int, len(def))
	if _, isNum := v.(float64); isNum {
		n := r.Int(key, 0)
		for i := range out {
			out[i] = [2]int{n, n}
		}
		return out
	}
	list, _ := v.([]any)
	if len(list) != len(def) {
		r.Fail(key, "want an integer, %d integers or %d pairs, got %v", len(def), len(def), v)
		return def
	}
	for i, e := range list {
		switch x := e.(type) {
		case float64:
			out[i] = [2]int{int(x), int(x)}
		case []any:
			if len(x) != 2 {
				r.Fail(key, "want pairs of integers, got %v", v)
				return def
			}
			for j, y := range x {
				f, isNum := y.(float64)
				if !isNum {
					r.Fail(key, "want integers, got %v", v)
					return def
				}
				out[i][j] = int(f)
			}
		default:
			r.Fail(key, "want an integer, %d integers or %d pairs, got %v", len(def), len(def), v)
			return def
		}
	}
	return out
}

// paddingsConfig is Keras's form of per-axis (before, after) amounts.
func paddingsConfig(p [][2]int) []any {
	out := make([]any, len(p))
	for i, e := range p {
		out[i] = []any{e[0], e[1]}
	}
	return out
}

func init() {
	mustRegister("ZeroPadding2D", func(r *serialization.Reader) (Layer, error) {
		r.Expect("data_format", "channels_last", "kerasgo's layers take channels_last images")
		return &ZeroPadding2D{Padding: readPadding2D(r, "padding", [2][2]int{{1, 1}, {1, 1}})}, nil
	})
}
