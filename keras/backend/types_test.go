package backend

import "testing"

// Every message that shows a shape goes through these two formatters, so
// their table is the check that no message prints a garbled shape.
func TestShapeFormatting(t *testing.T) {
	cases := []struct {
		shape          Shape
		str, withBatch string
	}{
		{Shape{}, "()", "(samples,)"},
		{Shape{20}, "(20,)", "(samples, 20)"},
		{Shape{-1}, "(None,)", "(samples, None)"},
		{Shape{-1, 20}, "(None, 20)", "(samples, None, 20)"},
		{Shape{28, 28, 1}, "(28, 28, 1)", "(samples, 28, 28, 1)"},
		{Shape{3, 4}, "(3, 4)", "(samples, 3, 4)"},
	}
	for _, c := range cases {
		if got := c.shape.String(); got != c.str {
			t.Errorf("Shape%v.String() = %q, want %q", []int(c.shape), got, c.str)
		}
		if got := c.shape.WithLeading("samples"); got != c.withBatch {
			t.Errorf("Shape%v.WithLeading(samples) = %q, want %q", []int(c.shape), got, c.withBatch)
		}
	}
}
