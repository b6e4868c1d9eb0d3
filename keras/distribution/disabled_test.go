//go:build !libtorch || !cgo

package distribution_test

import (
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/distribution"
	_ "github.com/kerasgo/kerasgo/keras/distribution/c10d"
)

// TestWithoutLibtorchSaysHowToGetIt: a build without libtorch cannot
// train distributed, and says what to install and how to build.
func TestWithoutLibtorchSaysHowToGetIt(t *testing.T) {
	_, err := distribution.NewDataParallel(distribution.Config{Rank: 0, WorldSize: 2})
	if err == nil || !strings.Contains(err.Error(), "apt-get install libtorch-dev libgloo-dev") || !strings.Contains(err.Error(), "docs/distributed.md") {
		t.Fatalf("NewDataParallel without libtorch: %v", err)
	}
}
