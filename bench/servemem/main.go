// Command servemem measures the model server's memory under large
// requests (internal/servemem): the demo MLP served in this process,
// concurrent :predict requests of many MNIST rows each, and the peak
// resident memory above the idle server's:
//
//	go run ./bench/servemem -requests 16 -rows 4700
//
// Issue 39's check: 16 concurrent 15.7 MB requests keep the growth under
// the server's in-flight bound (serving.Options.MaxInFlightBytes).
package main

import (
	"flag"
	"fmt"
	"log"
	"time"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/internal/servemem"
	"github.com/kerasgo/kerasgo/keras/serving"
)

func main() {
	requests := flag.Int("requests", 16, "concurrent requests")
	rows := flag.Int("rows", 4700, "MNIST rows (28x28x1) per request: 4,700 are 15.7 MB")
	inflight := flag.Int64("max-inflight", 0, "serving.Options.MaxInFlightBytes (0: the default)")
	flag.Parse()
	res, err := servemem.Run(serving.Options{MaxInFlightBytes: *inflight, RequestTimeout: 5 * time.Minute, BodyTimeout: 5 * time.Minute}, *requests, *rows)
	if err != nil {
		log.Fatal(err)
	}
	bound := "the default"
	if *inflight > 0 {
		bound = fmt.Sprintf("%.0f MB", float64(*inflight)/(1<<20))
	}
	fmt.Printf("%v (in-flight bound %s)\n", res, bound)
}
