// Package bench holds kerasgo's benchmarks: Go testing.B benchmarks of one
// training step (bench_test.go, for benchstat), the stepbench command that
// `make bench` runs, and the PyTorch reference script (torch_step.py).
// See docs/benchmarks.md for results and how they were measured.
package bench
