package callbacks

import (
	"math"
	"strings"
	"testing"
)

// Settings a reliability review found accepted (issue 39): each is now an
// error naming the setting and its value.
func TestBadSettingsAreRefused(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		name string
		err  error
		says string
	}{
		{"ModelCheckpoint mode up", func() error {
			_, err := NewModelCheckpoint(ModelCheckpointOptions{Path: "m.keras", Mode: "up"})
			return err
		}(), `unknown Mode "up"`},
		{"ModelCheckpoint mode up, best only", func() error {
			_, err := NewModelCheckpoint(ModelCheckpointOptions{Path: "m.keras", Mode: "up", SaveBestOnly: true})
			return err
		}(), `"up"`},
		{"ModelCheckpoint threshold NaN", func() error {
			_, err := NewModelCheckpoint(ModelCheckpointOptions{Path: "m.keras", SaveBestOnly: true, InitialValueThreshold: &nan})
			return err
		}(), "InitialValueThreshold is NaN"},
		{"EarlyStopping MinDelta NaN", func() error {
			_, err := NewEarlyStopping(EarlyStoppingOptions{MinDelta: nan})
			return err
		}(), "MinDelta is NaN"},
		{"EarlyStopping Baseline Inf", func() error {
			_, err := NewEarlyStopping(EarlyStoppingOptions{Baseline: &inf})
			return err
		}(), "Baseline is +Inf"},
		{"ReduceLROnPlateau Factor NaN", func() error {
			_, err := NewReduceLROnPlateau(ReduceLROnPlateauOptions{Factor: nan})
			return err
		}(), "Factor is NaN"},
		{"ReduceLROnPlateau MinDelta NaN", func() error {
			_, err := NewReduceLROnPlateau(ReduceLROnPlateauOptions{MinDelta: &nan})
			return err
		}(), "MinDelta is NaN"},
		{"ReduceLROnPlateau MinLR Inf", func() error {
			_, err := NewReduceLROnPlateau(ReduceLROnPlateauOptions{MinLR: inf})
			return err
		}(), "MinLR is +Inf"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.says) {
			t.Errorf("%s: %v, want an error saying %q", c.name, c.err, c.says)
		}
	}
}
