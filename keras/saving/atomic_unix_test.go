//go:build unix

package saving

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// Temporary files left by killed saves are removed by the next save of
// the same file that succeeds; a save in progress keeps its own.
func TestWriteAtomicRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.keras")
	for _, n := range []string{".m.keras.tmp-111", ".m.keras.tmp-222"} {
		os.WriteFile(filepath.Join(dir, n), []byte("half a file"), 0o600)
	}
	live := filepath.Join(dir, ".m.keras.tmp-333")
	f, err := os.Create(live)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil { // a save in progress
		t.Fatal(err)
	}
	other := filepath.Join(dir, ".other.keras.tmp-444")
	os.WriteFile(other, nil, 0o600)
	if err := writeString(path, "model"); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{".m.keras.tmp-333", ".other.keras.tmp-444", "m.keras"}
	if len(names) != len(want) || names[0] != want[0] || names[1] != want[1] || names[2] != want[2] {
		t.Fatalf("after the save the directory holds %v, want %v", names, want)
	}
}
