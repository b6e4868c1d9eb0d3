// Package servemem measures the model server's memory under large
// requests: it serves the demo MLP in this process, sends concurrent
// :predict requests of many MNIST rows each (bodies generated as they
// are sent, so the clients hold none), and reports the peak resident
// memory above the idle server's. bench/servemem prints it; the serving
// tests check it against the in-flight bound (issue 39).
package servemem

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kerasgo/kerasgo/internal/models"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/serving"
)

// Result is what Run measured.
type Result struct {
	Requests, Rows int
	BodyBytes      int64         // one request's body
	Codes          []int         // each request's status code
	Took           time.Duration // all requests, from the first sent to the last answered
	IdleRSS        int64         // the server's resident memory before the requests, bytes
	PeakRSS        int64         // its peak while they ran
}

// Growth is the peak resident memory above the idle server's.
func (r Result) Growth() int64 { return r.PeakRSS - r.IdleRSS }

func (r Result) String() string {
	return fmt.Sprintf("%d requests of %d rows (%.1f MB each) in %v; status codes %v\nRSS idle %.0f MB, peak %.0f MB: +%.0f MB",
		r.Requests, r.Rows, float64(r.BodyBytes)/(1<<20), r.Took.Round(time.Millisecond), r.Codes,
		float64(r.IdleRSS)/(1<<20), float64(r.PeakRSS)/(1<<20), float64(r.Growth())/(1<<20))
}

// Run serves the demo MLP with opts and sends requests concurrent
// :predict requests of rows MNIST rows (28x28x1) each. It needs Linux's
// /proc (the peak is VmHWM, reset before the requests).
func Run(opts serving.Options, requests, rows int) (Result, error) {
	m, err := models.New("mlp")
	if err != nil {
		return Result{}, err
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Seed: 1}); err != nil {
		return Result{}, err
	}
	srv, err := serving.NewServer(opts)
	if err != nil {
		return Result{}, err
	}
	defer srv.Close()
	if err := srv.AddModel("mlp", m); err != nil {
		return Result{}, err
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	// Warm up: a request of one whole batch and one of a single row
	// compile the engine's programs before the measure.
	batch := opts.Batching.MaxBatchSize
	if batch == 0 {
		batch = 32 // the server's default
	}
	for _, n := range []int{batch, 1} {
		var b strings.Builder
		Body(&b, n)
		resp, err := http.Post(hs.URL+"/v1/models/mlp:predict", "application/json", strings.NewReader(b.String()))
		if err != nil {
			return Result{}, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	var size countingWriter
	Body(&size, rows)
	runtime.GC()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil { // reset the peak (VmHWM) to now
		return Result{}, fmt.Errorf("cannot reset the peak resident memory: %w", err)
	}
	res := Result{Requests: requests, Rows: rows, BodyBytes: int64(size), Codes: make([]int, requests), IdleRSS: procField("VmRSS")}
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, requests)
	for i := range requests {
		wg.Go(func() {
			pr, pw := io.Pipe()
			go func() { Body(pw, rows); pw.Close() }()
			req, _ := http.NewRequest("POST", hs.URL+"/v1/models/mlp:predict", pr)
			req.ContentLength = int64(size)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				errs <- err
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			res.Codes[i] = resp.StatusCode
		})
	}
	wg.Wait()
	close(errs)
	res.Took = time.Since(start)
	res.PeakRSS = procField("VmHWM")
	return res, <-errs
}

// procField reads a "Name:   123 kB" line of /proc/self/status, in bytes.
func procField(name string) int64 {
	data, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == name+":" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return -1
}

// Body writes {"instances": [...]} of rows MNIST-like rows (28x28x1
// values, mostly 0, as normalised MNIST digits are) into w.
func Body(w io.Writer, rows int) {
	row := make([]byte, 0, 4096)
	row = append(row, '[')
	for i := range 28 {
		if i > 0 {
			row = append(row, ',')
		}
		row = append(row, '[')
		for j := range 28 {
			if j > 0 {
				row = append(row, ',')
			}
			if (i*28+j)%5 == 0 {
				row = append(row, "[0.5]"...)
			} else {
				row = append(row, "[0]"...)
			}
		}
		row = append(row, ']')
	}
	row = append(row, ']')
	io.WriteString(w, `{"instances": [`)
	for r := range rows {
		if r > 0 {
			io.WriteString(w, ",")
		}
		w.Write(row)
	}
	io.WriteString(w, "]}")
}

// countingWriter counts the bytes written to it.
type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
