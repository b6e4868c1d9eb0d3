//go:build libtorch && cgo

package c10d

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A rank whose store is not there fails within its timeout, naming the
// address (libtorch 2.x's own client took about twice the timeout); one
// whose store listens goes on at once, and one whose store comes up late,
// within the timeout, waits for it.
func TestWaitForStore(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := waitForStore("127.0.0.1", port, 5*time.Second); err != nil {
		t.Fatalf("store listening: %v", err)
	}
	l.Close()

	const timeout = 700 * time.Millisecond
	start := time.Now()
	err = waitForStore("127.0.0.1", port, timeout)
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "the machine at "+net.JoinHostPort("127.0.0.1", strconv.Itoa(port))+" answered, but nothing listened on the port") {
		t.Fatalf("no store: got %v, want an error naming the address and saying that nothing listens there", err)
	}
	if took < timeout || took > timeout+2*time.Second {
		t.Errorf("no store: failed after %v, want about the timeout %v", took, timeout)
	}

	late := make(chan net.Listener)
	go func() {
		time.Sleep(300 * time.Millisecond)
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			t.Error(err)
		}
		late <- l
	}()
	err = waitForStore("127.0.0.1", port, 10*time.Second)
	if l := <-late; l != nil {
		l.Close()
	}
	if err != nil {
		t.Errorf("store up after 300 ms: %v", err)
	}
}
