package example

import (
	"errors"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/datasets/mnist"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
)

// EachEngine runs test as a subtest on every engine the tests cover
// (backendtest.Engines). An engine this binary was built without, or a
// dataset that is not installed, skips the subtest with the reason and
// how to enable it; another error fails it.
func EachEngine(t *testing.T, test func(t *testing.T, engine string) error) {
	t.Helper()
	for _, spec := range backendtest.Engines() {
		t.Run(spec, func(t *testing.T) {
			err := test(t, spec)
			switch {
			case err == nil:
			case errors.Is(err, mnist.ErrNotFound):
				t.Skipf("SKIPPED: %v", err)
			case strings.Contains(err.Error(), "built without"):
				t.Skip(err)
			default:
				t.Fatal(err)
			}
		})
	}
}
