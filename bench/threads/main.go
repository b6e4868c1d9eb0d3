// Command threads prints runtime.GOMAXPROCS(0), the number of threads Go
// computes with, so that scripts/bench.sh gives PyTorch the same number.
package main

import (
	"fmt"
	"runtime"
)

func main() { fmt.Println(runtime.GOMAXPROCS(0)) }
