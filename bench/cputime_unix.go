//go:build unix

package bench

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user and system) this process has used,
// or -1 where it cannot be read.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
