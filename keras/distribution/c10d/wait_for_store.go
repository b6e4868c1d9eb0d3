//go:build libtorch && cgo

package c10d

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"
	"time"
)

// storeRetry is how long waitForStore waits between two refused
// connections.
const storeRetry = 100 * time.Millisecond

// waitForStore returns once something accepts a TCP connection at
// host:port, the job's store (rank 0's, or the launcher's), or fails when
// timeout has passed. A store that is not there yet is the usual case at
// start-up (ranks start in any order), so refused connections are
// retried. libtorch's client does the same, but libtorch 2.x's gives up
// only after about twice the timeout (a 6 s timeout took 13 s in PyTorch
// 2.9.1's own TCPStore): this keeps kerasgo's promise that joining fails
// within the timeout. The probe connection is closed without a word; the
// store drops it, as it drops any client that leaves.
func waitForStore(host string, port int, timeout time.Duration) error {
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	deadline := time.Now().Add(timeout)
	var last error
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return storeAbsent(addr, timeout, last)
		}
		conn, err := net.DialTimeout("tcp", addr, left)
		if err == nil {
			conn.Close() // only the probe: libtorch connects again
			return nil
		}
		last = err
		time.Sleep(min(storeRetry, max(time.Until(deadline), 0)))
	}
}

// storeAbsent says why nothing at addr accepted a connection, from the
// last attempt's error: a machine that refuses (it is there, but nothing
// listens on the port) is told apart from one that never answers.
func storeAbsent(addr string, timeout time.Duration, last error) error {
	if errors.Is(last, syscall.ECONNREFUSED) {
		return fmt.Errorf("c10d: the machine at %s answered, but nothing listened on the port within %v: rank 0 (or the launcher, which hosts the job's store) was not started, or uses another MASTER_PORT: %w", addr, timeout, last)
	}
	return fmt.Errorf("c10d: no machine answered at %s within %v: MASTER_ADDR is wrong or unreachable from this machine, or something drops the packets: %w", addr, timeout, last)
}
