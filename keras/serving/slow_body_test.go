package serving_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/serving"
)

// Connections that send their body a byte at a time are cut at the body
// timeout: before, 300 such connections stayed open past 45 s, as only
// headers were timed (issue 39). Each gets 408 and its connection is
// closed; a normal request is still answered meanwhile.
func TestSlowBodiesAreCut(t *testing.T) {
	const timeout = 300 * time.Millisecond
	hs := newServer(t, serving.Options{BodyTimeout: timeout}, map[string]*keras.Model{"mlp": mlp(t, "", 1)})
	u, _ := url.Parse(hs.URL)
	const conns = 50
	var wg sync.WaitGroup
	results := make(chan error, conns)
	start := time.Now()
	for range conns {
		wg.Go(func() {
			c, err := net.Dial("tcp", u.Host)
			if err != nil {
				results <- err
				return
			}
			defer c.Close()
			fmt.Fprintf(c, "POST /v1/models/mlp:predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
			stop := make(chan struct{})
			go func() { // a byte every 50 ms, until the server answers
				tick := time.NewTicker(50 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						if _, err := c.Write([]byte(" ")); err != nil {
							return
						}
					}
				}
			}()
			defer close(stop)
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				results <- fmt.Errorf("no answer: %v", err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusRequestTimeout || !resp.Close {
				results <- fmt.Errorf("got %d (close %v), want 408 and the connection closed", resp.StatusCode, resp.Close)
				return
			}
			results <- nil
		})
	}
	code, out := call(t, "POST", hs.URL+"/v1/models/mlp:predict", `{"instances": [[1,2,3,4]]}`)
	if code != 200 {
		t.Errorf("a normal request beside the slow ones got %d %v", code, out)
	}
	wg.Wait()
	close(results)
	for err := range results {
		if err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the slow connections were cut after %v, with a body timeout of %v", took, timeout)
	}
}
