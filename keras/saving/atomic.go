package saving

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteAtomic writes a file through write: into a temporary file in the
// same directory, synced to disk, then renamed over path (and the
// directory synced), so that path always holds a complete file.
func WriteAtomic(path string, write func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	if err = write(bw); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if d, derr := os.Open(dir); derr == nil { // make the rename itself durable
		d.Sync()
		d.Close()
	}
	return nil
}
