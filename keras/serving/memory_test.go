package serving_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/kerasgo/kerasgo/internal/servemem"
	"github.com/kerasgo/kerasgo/keras/serving"
)

// Sixteen concurrent 15.7 MB requests on the demo MLP keep the server's
// resident memory growth under the in-flight bound (the default, 256
// MiB): before, memory was bounded by the number of requests, not their
// bytes (2.8 GB, about 175 MB a request, issue 39). All are answered.
func TestInFlightBoundKeepsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 250 MB of requests; skipped with -short")
	}
	if raceEnabled {
		t.Skip("the race detector multiplies memory: the bound is checked without -race")
	}
	if runtime.GOOS != "linux" {
		t.Skip("measures the peak resident memory in Linux's /proc")
	}
	res, err := servemem.Run(serving.Options{RequestTimeout: 5 * time.Minute, BodyTimeout: 5 * time.Minute}, 16, 4700)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res)
	for i, c := range res.Codes {
		if c != 200 {
			t.Fatalf("request %d got %d", i, c)
		}
	}
	// The bound counts the requests' bytes; resident memory also holds
	// what Go's collector has not yet returned (the heap may run ahead of
	// the live bytes until the next collection), which grows when other
	// test binaries load the machine: alone the growth is 220-235 MB,
	// under make test's parallel packages it reached 261 MB. Half the
	// bound again is allowed for that; the regression this guards
	// against was 2.8 GB.
	const bound = 256 << 20
	if res.Growth() >= bound+bound/2 {
		t.Fatalf("the server's memory grew by %.0f MB, more than its in-flight bound of %d MB and half that again for the collector's slack", float64(res.Growth())/(1<<20), bound>>20)
	}
}
