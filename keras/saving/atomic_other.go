//go:build !unix

package saving

import "os"

const renameOpenFiles = false

func lockTemp(*os.File) error { return nil }

// abandoned cannot tell a live save's temporary file from a dead one
// without flock: keep them all.
func abandoned(string) bool { return false }
