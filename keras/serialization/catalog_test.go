package serialization

import (
	"strings"
	"testing"
)

type shape interface{ sides() int }
type square struct{ n int }

func (s square) sides() int { return 4 }

// A Catalog knows each class by its name and its snake_case form, opens
// the three Keras forms of an object, and names what it has in errors.
func TestCatalog(t *testing.T) {
	c := NewCatalog("shape", map[string]func() shape{"BigSquare": func() shape { return square{n: 2} }})
	if got := strings.Join(c.Names(), " "); got != "BigSquare big_square" {
		t.Errorf("Names %q", got)
	}
	if s, err := c.Get("big_square"); err != nil || s.(square).n != 2 {
		t.Errorf("Get(big_square) = %v, %v", s, err)
	}
	if _, err := c.Get("circle"); err == nil || !strings.Contains(err.Error(), `unknown shape "circle": kerasgo has [BigSquare big_square]`) {
		t.Errorf("Get(circle): %v", err)
	}
	if s, _, r, err := c.Open(nil); s != nil || r != nil || err != nil {
		t.Errorf("Open(nil) = %v, %v, %v", s, r, err)
	}
	if s, _, r, err := c.Open("BigSquare"); s == nil || r != nil || err != nil {
		t.Errorf("Open of an identifier = %v, %v, %v", s, r, err)
	}
	s, class, r, err := c.Open(map[string]any{"class_name": "BigSquare", "config": map[string]any{"n": 3.0}})
	if s != nil || class != "BigSquare" || r == nil || err != nil || r.Int("n", 0) != 3 {
		t.Errorf("Open of an object = %v, %q, %v, %v", s, class, r, err)
	}
	if _, _, _, err := c.Open(42.0); err == nil || !strings.Contains(err.Error(), `cannot read shape 42: want a name such as "big_square"`) {
		t.Errorf("Open(42): %v", err)
	}
	if err := c.Unknown("Circle"); !strings.Contains(err.Error(), "kerasgo has no shape Circle (it has [BigSquare])") {
		t.Errorf("Unknown: %v", err)
	}
}
