//go:build libtorch && cgo

package c10d

import (
	"fmt"
	"net"
	"strconv"
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
			return fmt.Errorf("c10d: nothing accepted a connection at %s within %v, the job's store (rank 0, or the launcher) is not there: %w", addr, timeout, last)
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
