// Package testcheck holds assertions that the tests of several packages
// share, so that each rule of a test has one home.
package testcheck

import (
	"strings"
	"testing"
)

// WantErr fails t unless err is an error whose message contains every
// one of parts (the value at fault, the fix it names).
func WantErr(t testing.TB, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one mentioning %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not mention %q", err, p)
		}
	}
}
