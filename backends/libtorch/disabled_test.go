//go:build !libtorch

package libtorch_test

import (
	"strings"
	"testing"

	_ "github.com/kerasgo/kerasgo/backends/libtorch"
	"github.com/kerasgo/kerasgo/keras/backend"
)

func TestWithoutTagSaysHowToEnable(t *testing.T) {
	_, err := backend.Open("libtorch:cuda")
	if err == nil || !strings.Contains(err.Error(), "make libtorch") || !strings.Contains(err.Error(), "-tags libtorch") {
		t.Errorf("error = %v", err)
	}
}
