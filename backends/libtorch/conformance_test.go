//go:build libtorch

package libtorch_test

import (
	"testing"

	_ "github.com/kerasgo/kerasgo/backends/libtorch"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
)

func TestConformance(t *testing.T) { backendtest.Run(t, "libtorch") }
