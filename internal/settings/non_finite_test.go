package settings

import (
	"math"
	"testing"
)

type inner struct {
	Epsilon float64
}

type outer struct {
	inner
	Rate  float64
	Scale float32
	Units int
	note  float64
}

func TestNonFinite(t *testing.T) {
	for _, c := range []struct {
		v     any
		field string
	}{
		{&outer{Rate: 0.5}, ""},
		{&outer{Rate: math.NaN()}, "Rate"},
		{outer{Scale: float32(math.Inf(1))}, "Scale"},
		{&outer{inner: inner{Epsilon: math.Inf(-1)}}, "Epsilon"},
		{&outer{note: math.NaN()}, ""}, // unexported: not a setting
		{(*outer)(nil), ""},
		{3.0, ""},
	} {
		field, _, found := NonFinite(c.v)
		if field != c.field || found != (c.field != "") {
			t.Errorf("NonFinite(%#v) = %q, %v; want %q", c.v, field, found, c.field)
		}
	}
}
