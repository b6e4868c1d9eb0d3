package saving

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// WriteAtomic writes a file through write: into a temporary file in the
// same directory, synced to disk, then renamed over path (and the
// directory synced), so that path always holds a complete file.
//
// A path that is a symbolic link is written through: the link stays and
// its target gets the new file, as os.WriteFile would do. Temporary files
// that killed saves of the same file left behind are removed once this
// save has succeeded (on Unix, where a save in progress holds a lock on
// its temporary file, so that a concurrent save's file is never taken
// for a stale one).
func WriteAtomic(path string, write func(w io.Writer) error) (err error) {
	target, err := resolveLinks(path)
	if err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	dir, base := filepath.Dir(target), filepath.Base(target)
	tmp, err := os.CreateTemp(dir, tempPrefix(base)+"*")
	if err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	closed := false
	defer func() {
		if err != nil {
			if !closed {
				tmp.Close()
			}
			os.Remove(tmp.Name())
		}
	}()
	if err = lockTemp(tmp); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
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
	if err = tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if !renameOpenFiles { // Windows cannot rename an open file
		closed = true
		if err = tmp.Close(); err != nil {
			return fmt.Errorf("saving %s: %w", path, err)
		}
	}
	if err = os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if !closed {
		closed = true
		if err = tmp.Close(); err != nil { // releases the lock, after the rename
			return fmt.Errorf("saving %s: %w", path, err)
		}
	}
	if d, derr := os.Open(dir); derr == nil { // make the rename itself durable
		d.Sync()
		d.Close()
	}
	removeStaleTemps(dir, base)
	return nil
}

// tempPrefix is the name prefix of the temporary files of saves to base.
func tempPrefix(base string) string { return "." + base + ".tmp-" }

// resolveLinks follows symbolic links from path to the file they lead to
// (which need not exist yet).
func resolveLinks(path string) (string, error) {
	for range 40 { // as the kernel's limit on nested links
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return path, nil
		}
		to, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(path), to)
		}
		path = to
	}
	return "", fmt.Errorf("too many levels of symbolic links")
}

// removeStaleTemps removes the temporary files of earlier saves to base
// in dir that no save holds any more (a save killed before its rename).
func removeStaleTemps(dir, base string) {
	RemoveAbandonedTemps(dir, func(target string) bool { return target == base })
}

// RemoveAbandonedTemps removes the temporary files WriteAtomic left in dir
// for the files whose names match (a save killed before its rename), that
// no save in progress holds (on Unix, each holds a lock on its file; where
// that cannot be told, none is removed). A caller that writes a series of
// files (BackupAndRestore's backups) calls it once a later one succeeded.
func RemoveAbandonedTemps(dir string, match func(name string) bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, ".") {
			continue
		}
		i := strings.LastIndex(name, ".tmp-")
		if i < 0 || !match(name[1:i]) {
			continue
		}
		p := filepath.Join(dir, name)
		if abandoned(p) {
			os.Remove(p)
		}
	}
}
