package layers

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// factorRange is Keras's _set_factor for the random image layers: a
// number f gives the range [max(-|f|, lowest), |f|]; a pair (Range, when
// it is not zero) gives itself, sorted. Both must lie within [lowest,
// highest].
func factorRange(f float64, pair [2]float64, lowest, highest float64) ([2]float64, error) {
	bad := func() ([2]float64, error) {
		return [2]float64{}, fmt.Errorf("factor must be a number or a pair of numbers in [%g, %g], got %v", lowest, highest, describeFactor(f, pair))
	}
	if pair != ([2]float64{}) {
		if pair[0] > highest || pair[1] < lowest || math.IsNaN(pair[0]) || math.IsNaN(pair[1]) {
			return bad()
		}
		return [2]float64{min(pair[0], pair[1]), max(pair[0], pair[1])}, nil
	}
	if f < lowest || f > highest || math.IsNaN(f) {
		return bad()
	}
	f = math.Abs(f)
	return [2]float64{max(-f, lowest), f}, nil
}

func describeFactor(f float64, pair [2]float64) string {
	if pair != ([2]float64{}) {
		return fmt.Sprint(pair)
	}
	return fmt.Sprint(f)
}

// readFactor reads a Keras factor setting (key "factor",
// "height_factor", ...): a number, or a pair. given is false when it is
// absent or null.
func readFactor(r *serialization.Reader, key string) (f float64, pair [2]float64, given bool) {
	v, ok := r.Value(key)
	if !ok {
		return 0, pair, false
	}
	if n, isNum := v.(float64); isNum {
		return n, pair, true
	}
	values, shape := r.Numbers(key)
	if len(shape) != 1 || len(values) != 2 {
		r.Fail(key, "want a number or a pair of numbers, got %v", v)
		return 0, pair, true
	}
	return 0, [2]float64{values[0], values[1]}, true
}

// readFactorOr is readFactor with def, Keras's default, for an absent
// key.
func readFactorOr(r *serialization.Reader, key string, def float64) (float64, [2]float64) {
	f, pair, given := readFactor(r, key)
	if !given {
		f = def
	}
	return f, pair
}

// factorConfig is a factor as Keras keeps it in a config: the number, or
// the pair when one is set.
func factorConfig(f float64, pair [2]float64) any {
	if pair != ([2]float64{}) {
		return pair[:]
	}
	return f
}

// readValueRange reads Keras's "value_range" pair (def when absent).
func readValueRange(r *serialization.Reader, def [2]float64) [2]float64 {
	values, shape := r.Numbers("value_range")
	if values == nil {
		return def
	}
	if len(shape) != 1 || len(values) != 2 {
		r.Fail("value_range", "want a pair of numbers, got %v", values)
		return def
	}
	return [2]float64{values[0], values[1]}
}

// TrainsByDefault reports whether l's call defaults to training=True in
// Keras, as the random image layers' do: a .keras file then records
// training=True on its calls, which only means "in the model's mode".
func TrainsByDefault(l Layer) bool {
	_, ok := l.(interface{ trainsByDefault() })
	return ok
}

// IsTrainingDefault reports whether training is the default of l's
// training call argument in Keras: True for the random image layers,
// False for SpectralNormalization. Keras 3.15 records that default on
// each call in a .keras file, and its fit and predict override it with
// the model's mode, so a recorded default fixes nothing.
func IsTrainingDefault(l Layer, training bool) bool {
	if training {
		return TrainsByDefault(l)
	}
	_, ok := l.(interface{ infersByDefault() })
	return ok
}

// perImage draws one uniform value in [lo, hi) per image of x (batch,
// height, width, channels), shaped (batch, 1, 1, 1) to broadcast.
func perImage(b backend.Builder, x backend.Value, lo, hi float64) backend.Value {
	u := b.RandomUniform(backend.Shape{x.Shape()[0], 1, 1, 1})
	return b.Add(b.Mul(u, b.Scalar(hi-lo)), b.Scalar(lo))
}

// clip limits x to [lo, hi].
func clip(b backend.Builder, x backend.Value, lo, hi float64) backend.Value {
	return b.Minimum(b.Maximum(x, b.Scalar(lo)), b.Scalar(hi))
}
