//go:build libtorch

package libtorch_test

import (
	"testing"

	"github.com/kerasgo/kerasgo/backends/libtorch"
	"github.com/kerasgo/kerasgo/internal/libtorchbuild"
	"github.com/kerasgo/kerasgo/keras/backend"
)

// Where this machine has jemalloc, `kerasgo libtorch` links it in and it
// is the process's malloc (it keeps a training run's heap from growing
// without bound; see libtorchbuild.FindJemalloc).
func TestMallocIsJemallocWhereInstalled(t *testing.T) {
	if _, err := backend.Open("libtorch"); err != nil { // configures jemalloc
		t.Fatal(err)
	}
	got := libtorch.Malloc()
	if libtorchbuild.FindJemalloc() == "" {
		if got == "jemalloc" {
			t.Fatalf("Malloc() = jemalloc, but none is installed here or %s=off", libtorchbuild.JemallocOffVar)
		}
		t.Skip("no jemalloc here, so libtorch's tensors come from glibc's malloc: sudo apt-get install libjemalloc2, then make test again")
	}
	if got != "jemalloc" {
		t.Fatalf("Malloc() = %s: jemalloc is installed (%s) but this build did not link it; run kerasgo libtorch again", got, libtorchbuild.FindJemalloc())
	}
	// Purging freed pages would fault them in again at every step.
	if d := libtorch.JemallocDecay(); d != -1 {
		t.Errorf("jemalloc's opt.dirty_decay_ms = %d, want -1 (Open did not configure it)", d)
	}
}
