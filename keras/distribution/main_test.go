package distribution_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/kerasgo/kerasgo/internal/disttest"
)

// workers are the programs the test binary runs as one rank of a job
// (disttest.Run); the tests that start them are in the *_test.go files.
var workers = map[string]func() error{}

func TestMain(m *testing.M) {
	name := os.Getenv(disttest.WorkerVar)
	if name == "" {
		os.Exit(m.Run())
	}
	w, ok := workers[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown worker %q\n", name)
		os.Exit(2)
	}
	if err := w(); err != nil {
		fmt.Fprintf(os.Stderr, "rank %s: %v\n", os.Getenv("RANK"), err)
		os.Exit(1)
	}
	os.Exit(0)
}
