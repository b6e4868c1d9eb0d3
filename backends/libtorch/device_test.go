//go:build libtorch

package libtorch_test

import (
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Asking for a device that is not there is an error, never a silent CPU run.
func TestDevices(t *testing.T) {
	for _, spec := range []string{"libtorch", "libtorch:cpu"} {
		be, err := backend.Open(spec)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if be.Capabilities().Device != "cpu" {
			t.Errorf("%s runs on %s", spec, be.Capabilities().Device)
		}
	}
	if _, err := backend.Open("libtorch:tpu"); err == nil || !strings.Contains(err.Error(), "unknown libtorch device") {
		t.Errorf("libtorch:tpu: %v", err)
	}
	if _, err := backend.Open("libtorch:cuda:x"); err == nil {
		t.Error("libtorch:cuda:x: no error")
	}
	be, err := backend.Open("libtorch:cuda")
	if err == nil {
		if !strings.HasPrefix(be.Capabilities().Device, "cuda") {
			t.Errorf("libtorch:cuda runs on %s", be.Capabilities().Device)
		}
		if _, err := backend.Open("libtorch:cuda:999"); err == nil || !strings.Contains(err.Error(), "does not exist") {
			t.Errorf("libtorch:cuda:999: %v", err)
		}
		return
	}
	if !strings.Contains(err.Error(), "no CUDA device") {
		t.Errorf("libtorch:cuda without a GPU: %v", err)
	}
}
