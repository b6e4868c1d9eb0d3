package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// TestMain lets a test run this command: the test binary, started with
// KERASGO_TEST_MAIN=1, is kerasgo.
func TestMain(m *testing.M) {
	if os.Getenv("KERASGO_TEST_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// syncLog is a log written by one goroutine and read by another.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.WriteString(line + "\n")
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serveProcess is a running kerasgo serve.
type serveProcess struct {
	cmd  *exec.Cmd
	addr string        // the address it listens on
	log  *syncLog      // its stderr, line by line
	eof  chan struct{} // closed when its stderr is read to the end
}

// wait waits for the command to exit, after its log is read to the end
// (exec.Cmd.Wait closes the pipe: lines not yet read would be lost).
func (p *serveProcess) wait() error {
	<-p.eof
	return p.cmd.Wait()
}

// startServe starts kerasgo serve with args and returns it once it listens.
func startServe(t *testing.T, args ...string) *serveProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "-addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "KERASGO_TEST_MAIN=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serveProcess{cmd: cmd, log: &syncLog{}, eof: make(chan struct{})}
	lines := bufio.NewScanner(stderr)
	addr := regexp.MustCompile(`msg=listening addr=(\S+)`)
	for lines.Scan() {
		p.log.add(lines.Text())
		if m := addr.FindStringSubmatch(lines.Text()); m != nil {
			p.addr = m[1]
			go func() { // keep reading, so that the command never blocks on its log
				defer close(p.eof)
				for lines.Scan() {
					p.log.add(lines.Text())
				}
			}()
			return p
		}
	}
	cmd.Wait()
	t.Fatalf("kerasgo serve did not start:\n%s", p.log)
	return nil
}

// SIGTERM under load (64 keep-alive connections): /readyz turns 503
// first, the server keeps answering through the drain window, then stops
// listening, answers what is in flight and exits 0. No request sent before
// readiness went 503 fails: before, 1-2 of 8 clients got connection resets
// (issue 39), as the shutdown closed idle keep-alive connections under
// requests being sent.
func TestServeDrainsOnSIGTERM(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mlp.keras")
	m := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{4}}, &layers.Dense{Units: 3, Activation: "softmax"}))
	keras.MustOK(m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Seed: 1}))
	keras.MustOK(m.Save(path))
	// A batch timeout keeps requests waiting in the batcher, so that some
	// are in flight when the listener closes.
	serve := startServe(t, "-batch-timeout", "20ms", "-batch-workers", "1", "-reload-interval", "-1s", "-drain-delay", "1s", path)
	cmd, log := serve.cmd, serve.log
	base := "http://" + serve.addr
	url := base + "/v1/models/mlp:predict"

	// notReadyAt is when /readyz was first seen answering 503 (unix ns; 0:
	// not yet), polled every 10 ms.
	var notReadyAt atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			resp, err := http.Get(base + "/readyz")
			if err == nil {
				resp.Body.Close()
			}
			if err != nil || resp.StatusCode == http.StatusServiceUnavailable {
				notReadyAt.CompareAndSwap(0, time.Now().UnixNano())
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	var signalled atomic.Bool
	var answered, afterSignal, refusedAfter atomic.Int64
	var mu sync.Mutex
	var failures []string
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			for ctx.Err() == nil {
				sent := time.Now().UnixNano()
				resp, err := client.Post(url, "application/json", strings.NewReader(`{"instances": [[1, 2, 3, 4]]}`))
				var problem string
				if err != nil {
					problem = err.Error()
				} else {
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						problem = fmt.Sprintf("%d %s", resp.StatusCode, body)
					}
				}
				if problem == "" {
					answered.Add(1)
					if signalled.Load() {
						afterSignal.Add(1)
					}
					continue
				}
				if at := notReadyAt.Load(); at != 0 && sent > at {
					refusedAfter.Add(1) // sent after readiness went 503: may be refused
					return
				}
				mu.Lock()
				failures = append(failures, problem)
				mu.Unlock()
				return
			}
		})
	}
	time.Sleep(500 * time.Millisecond)
	signalled.Store(true)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- serve.wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("kerasgo serve exited with %v:\n%s", err, log)
		}
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("kerasgo serve did not stop within 15 s of SIGTERM:\n%s", log)
	}
	cancel()
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d requests sent before /readyz went 503 failed (answered %d), the first: %q", len(failures), answered.Load(), failures[:min(3, len(failures))])
	}
	if answered.Load() == 0 || afterSignal.Load() == 0 || !strings.Contains(log.String(), "msg=stopped") || !strings.Contains(log.String(), `msg="draining`) {
		t.Fatalf("answered %d, %d of them after SIGTERM (want some answered in the drain window); log:\n%s", answered.Load(), afterSignal.Load(), log)
	}
	t.Logf("%d requests answered, %d of them after SIGTERM; %d clients refused after /readyz went 503", answered.Load(), afterSignal.Load(), refusedAfter.Load())
}

// A base directory of versions (N.keras or N/<file>.keras, as TensorFlow
// Serving's base path) serves every version, and -label names one.
func TestServeVersionDirectoryAndLabels(t *testing.T) {
	dir := t.TempDir()
	m := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{4}}, &layers.Dense{Units: 3, Activation: "softmax"}))
	keras.MustOK(m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Seed: 1}))
	keras.MustOK(m.Save(filepath.Join(dir, "1.keras")))
	keras.MustOK(os.Mkdir(filepath.Join(dir, "2"), 0o755))
	keras.MustOK(m.Save(filepath.Join(dir, "2", "model.keras")))
	serve := startServe(t, "-label", "m:stable=1", "-reload-interval", "-1s", "-drain-delay", "0s", "m="+dir)
	defer func() {
		serve.cmd.Process.Signal(syscall.SIGTERM)
		serve.wait()
	}()
	get := func(path string) string {
		resp, err := http.Get("http://" + serve.addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
		}
		return string(b)
	}
	if got := get("/v1/models/m"); !strings.Contains(got, `"version":"1"`) || !strings.Contains(got, `"version":"2"`) {
		t.Fatalf("status %s, want versions 1 and 2", got)
	}
	if got := get("/v1/models/m/labels/stable"); !strings.Contains(got, `"version":"1"`) || strings.Contains(got, `"version":"2"`) {
		t.Fatalf("status of the stable label %s, want version 1", got)
	}
}
