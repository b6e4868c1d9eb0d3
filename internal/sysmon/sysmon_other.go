//go:build !linux

package sysmon

import (
	"errors"
	"strconv"
)

// Thread returns errors.ErrUnsupported: only Linux is supported.
func Thread() (int, error) { return 0, errors.ErrUnsupported }

// Batch returns errors.ErrUnsupported: only Linux is supported.
func Batch() (int, error) { return 0, errors.ErrUnsupported }

// Restore returns errors.ErrUnsupported: only Linux is supported.
func Restore() (int, error) { return 0, errors.ErrUnsupported }

// Policy returns errors.ErrUnsupported: only Linux is supported.
func Policy(tid int) (policy int, resetOnFork bool, err error) {
	return 0, false, errors.ErrUnsupported
}

// Sleeps returns errors.ErrUnsupported: only Linux is supported.
func Sleeps(tid int) (int, error) { return 0, errors.ErrUnsupported }

// SleepsDuring returns errors.ErrUnsupported: only Linux is supported.
func SleepsDuring(tid int, f func()) (int, error) { return 0, errors.ErrUnsupported }

// PolicyName returns "policy N": only Linux is supported.
func PolicyName(policy int) string { return "policy " + strconv.Itoa(policy) }
