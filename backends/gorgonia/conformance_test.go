package gorgonia_test

import (
	"testing"

	_ "github.com/kerasgo/kerasgo/backends/gorgonia"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
)

func TestConformance(t *testing.T) { backendtest.Run(t, "gorgonia") }
