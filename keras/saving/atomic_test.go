package saving

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

func writeString(path, s string) error {
	return WriteAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, s); return err })
}

// Saving to a symbolic link writes the link's target and keeps the link,
// as os.WriteFile does; a link to a file not there yet creates it.
func TestWriteAtomicThroughSymlinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "models", "v1.keras")
	os.MkdirAll(filepath.Dir(target), 0o755)
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "current.keras")
	if err := os.Symlink("models/v1.keras", link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := writeString(link, "new"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Fatalf("the target holds %q, want the new file", b)
	}
	dangling := filepath.Join(dir, "next.keras")
	os.Symlink("models/v2.keras", dangling)
	if err := writeString(dangling, "v2"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "models", "v2.keras")); string(b) != "v2" {
		t.Fatalf("a dangling link's target holds %q, want it created", b)
	}
	loop := filepath.Join(dir, "loop.keras")
	os.Symlink("loop.keras", loop)
	if err := writeString(loop, "x"); err == nil {
		t.Fatal("saving to a link to itself: no error")
	}
}
