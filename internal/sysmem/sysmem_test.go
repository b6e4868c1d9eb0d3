package sysmem

import (
	"runtime"
	"testing"
)

// On Linux the available memory is known, more than nothing and less
// than a petabyte.
func TestAvailable(t *testing.T) {
	got, ok := Available()
	if runtime.GOOS != "linux" {
		t.Skipf("Available reads Linux's /proc; on %s it reports ok=%v", runtime.GOOS, ok)
	}
	if !ok || got == 0 || got > 1<<50 {
		t.Fatalf("Available() = %d, %v", got, ok)
	}
}
