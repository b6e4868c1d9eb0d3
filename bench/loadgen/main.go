// Command loadgen is the load generator of the serving benchmark
// (scripts/bench-serving.sh): C connections POST one body to a URL, each
// as fast as its answers come, for a duration after a warm-up, and it
// prints one JSON line: requests per second, latency percentiles,
// errors, and the server's resident memory (sampled from /proc every
// second when -pid is given) at the start and end of the measured span
// and at its peak.
//
//	loadgen -url http://127.0.0.1:8501/v1/models/cnn:predict -body req.json -c 64 -duration 60s -pid 1234
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

type result struct {
	Label      string  `json:"label"`
	Conns      int     `json:"conns"`
	Seconds    float64 `json:"seconds"`
	Requests   int     `json:"requests"`
	Errors     int     `json:"errors"`
	FirstError string  `json:"first_error,omitempty"`
	RPS        float64 `json:"rps"`
	P50ms      float64 `json:"p50_ms"`
	P99ms      float64 `json:"p99_ms"`
	RSSStartMB float64 `json:"rss_start_mb,omitempty"` // after the warm-up
	RSSEndMB   float64 `json:"rss_end_mb,omitempty"`
	RSSPeakMB  float64 `json:"rss_peak_mb,omitempty"` // VmHWM: the peak over the server's life
}

func main() {
	url := flag.String("url", "", "URL to POST to")
	bodyFile := flag.String("body", "", "file holding the request body")
	conns := flag.Int("c", 1, "concurrent connections")
	duration := flag.Duration("duration", 10*time.Second, "how long to measure")
	warmup := flag.Duration("warmup", 2*time.Second, "load before measuring (not counted)")
	maxRequests := flag.Int("n", 10_000_000, "stop after this many measured requests")
	pid := flag.Int("pid", 0, "the server's process id, to sample its resident memory")
	label := flag.String("label", "", "a label for the result")
	flag.Parse()
	body, err := os.ReadFile(*bodyFile)
	if err != nil || *url == "" {
		fmt.Fprintln(os.Stderr, "loadgen: need -url and a readable -body:", err)
		os.Exit(2)
	}
	res := run(*url, body, *conns, *warmup, *duration, *maxRequests, *pid)
	res.Label = *label
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
}

func run(url string, body []byte, conns int, warmup, duration time.Duration, maxRequests, pid int) result {
	ctx, cancel := context.WithTimeout(context.Background(), warmup+duration)
	defer cancel()
	start := time.Now().Add(warmup)
	var mu sync.Mutex
	var lat []time.Duration
	var errs int
	var firstErr string
	fail := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		errs++
		if firstErr == "" {
			firstErr = msg
		}
	}
	var wg sync.WaitGroup
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: 60 * time.Second}
			for ctx.Err() == nil {
				t0 := time.Now()
				resp, err := client.Post(url, "application/json", bytes.NewReader(body))
				if err != nil {
					if ctx.Err() == nil {
						fail(err.Error())
					}
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				d := time.Since(t0)
				if t0.Before(start) {
					continue
				}
				if resp.StatusCode != 200 {
					fail("status " + resp.Status)
					continue
				}
				mu.Lock()
				lat = append(lat, d)
				done := len(lat) >= maxRequests
				mu.Unlock()
				if done {
					cancel()
				}
			}
		}()
	}
	var rssStart, rssEnd float64
	if pid > 0 {
		time.Sleep(warmup)
		rssStart, _ = memory(pid)
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	var peak float64
	if pid > 0 {
		rssEnd, peak = memory(pid)
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	return result{Conns: conns, Seconds: elapsed, Requests: len(lat), Errors: errs, FirstError: firstErr,
		RPS: float64(len(lat)) / elapsed, P50ms: pct(0.50), P99ms: pct(0.99), RSSStartMB: rssStart, RSSEndMB: rssEnd, RSSPeakMB: peak}
}

// memory returns a process's resident and peak resident memory in MB.
func memory(pid int) (rss, peak float64) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb / 1024
		case "VmHWM:":
			peak = kb / 1024
		}
	}
	return rss, peak
}
