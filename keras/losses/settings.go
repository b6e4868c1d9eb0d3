package losses

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
)

// The checks the losses with settings share, so that each refuses a bad
// setting with the same kind of error: the loss, the setting, its value
// and what it may be.

// sumOver is the ops axis option for a loss's Axis: nil sums every axis.
func sumOver(axis []int) ops.AxisOption {
	if axis == nil {
		return nil
	}
	return ops.Axis(axis...)
}

// checkLossAxes refuses an axis outside the output's rank, or one given
// twice, naming the loss.
func checkLossAxes(loss string, axis []int, ps backend.Shape) error {
	if _, err := backend.NormalizeAxes(len(ps), axis); err != nil {
		return fmt.Errorf("losses.%s: axis %v does not fit the model's output %v: %v", loss, axis, ps, err)
	}
	return nil
}

// settingOutOfRange is the error for a setting outside its range.
func settingOutOfRange(loss, setting string, value float64, allowed string) error {
	return fmt.Errorf("losses.%s: %s=%v is out of range: it must be %s", loss, setting, value, allowed)
}
