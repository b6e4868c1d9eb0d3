//go:build unix

package saving

import (
	"os"

	"golang.org/x/sys/unix"
)

// renameOpenFiles: Unix renames an open file, so a save keeps its
// temporary file (and its lock) open until the rename is done.
const renameOpenFiles = true

// lockTemp marks a temporary file as a save in progress: an exclusive
// flock, held until the file is closed (or the process dies).
func lockTemp(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) }

// abandoned reports whether no process holds the temporary file at path.
func abandoned(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil
}
