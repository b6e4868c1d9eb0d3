//go:build libtorch

package libtorch_test

import (
	"os"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/backends/libtorch"
	"github.com/kerasgo/kerasgo/keras/backend"
)

// With Debian's libtorch (OpenBLAS beside libgomp) and OMP_WAIT_POLICY
// unset, the first CPU engine runs OpenBLAS on the calling thread, so
// that libgomp's spinning threads do not starve OpenBLAS's (issue 39: a
// user measured 5.7x slower without OMP_WAIT_POLICY=PASSIVE set by
// hand); a policy or thread count the environment gives is left alone.
func TestOpenBLASBesideSpinningOpenMP(t *testing.T) {
	if _, err := backend.Open("libtorch:cpu"); err != nil {
		t.Fatal(err)
	}
	got := libtorch.Threading()
	switch {
	case libtorch.OpenBLASThreads() < 0:
		if !strings.Contains(got, "no OpenBLAS") {
			t.Fatalf("Threading() = %q without OpenBLAS", got)
		}
		t.Skip("this libtorch has no OpenBLAS (PyPI's): nothing to set")
	case os.Getenv("OMP_WAIT_POLICY") != "" || os.Getenv("OPENBLAS_NUM_THREADS") != "":
		if !strings.Contains(got, "as the environment sets them") {
			t.Fatalf("Threading() = %q with the environment's settings", got)
		}
		t.Skip("OMP_WAIT_POLICY or OPENBLAS_NUM_THREADS is set: the engine leaves them (run with both unset to test the default)")
	}
	if n := libtorch.OpenBLASThreads(); n != 1 || !strings.Contains(got, "set by kerasgo") {
		t.Fatalf("OpenBLAS has %d threads, Threading() = %q: want 1, set by kerasgo", n, got)
	}
}
