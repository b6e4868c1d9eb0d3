// Package sysmem says how much memory this process can still take: what
// a layer checks its weights against when it is built, so that an
// impossible size is an error instead of a fatal out-of-memory later.
package sysmem

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// Available returns the bytes this process can still allocate: the least
// of Linux's MemAvailable, the room left under the cgroup's memory.max
// and the Go runtime's memory limit (debug.SetMemoryLimit, GOMEMLIMIT)
// less what the process uses. ok is false where none of them can be read
// (another OS): then nothing is known.
func Available() (bytesLeft uint64, ok bool) {
	best := uint64(math.MaxUint64)
	if v, found := memAvailable(); found {
		best, ok = min(best, v), true
	}
	if limit, found := readUint("/sys/fs/cgroup/memory.max"); found {
		used, _ := readUint("/sys/fs/cgroup/memory.current")
		best, ok = min(best, saturatingSub(limit, used)), true
	}
	if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 && limit > 0 {
		used, _ := rss()
		best, ok = min(best, saturatingSub(uint64(limit), used)), true
	}
	return best, ok
}

func saturatingSub(a, b uint64) uint64 {
	if b > a {
		return 0
	}
	return a - b
}

// memAvailable reads MemAvailable from /proc/meminfo.
func memAvailable() (uint64, bool) {
	return meminfoField("/proc/meminfo", "MemAvailable:")
}

// rss reads this process's resident set from /proc/self/status.
func rss() (uint64, bool) {
	return meminfoField("/proc/self/status", "VmRSS:")
}

// meminfoField reads a "Name:   123 kB" line of a /proc file, in bytes.
func meminfoField(path, name string) (uint64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name) {
			continue
		}
		f := strings.Fields(strings.TrimPrefix(line, name))
		if len(f) == 0 {
			return 0, false
		}
		v, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return 0, false
		}
		if len(f) > 1 && f[1] == "kB" {
			v *= 1024
		}
		return v, true
	}
	return 0, false
}

// readUint reads a file holding one number (a cgroup setting); "max" or
// an unreadable file is not found.
func readUint(path string) (uint64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
	return v, err == nil
}
