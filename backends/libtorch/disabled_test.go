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
	if err == nil {
		t.Fatal("opening libtorch without the tag succeeded")
	}
	for _, want := range []string{"make libtorch", "go get -tool github.com/kerasgo/kerasgo/cmd/kerasgo", "go tool kerasgo libtorch", "-flags", "go.mod", "a few minutes", "apt-get install libtorch-dev"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}
