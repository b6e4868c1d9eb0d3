// Package parallel runs the loops of kerasgo's pure-Go kernels (and of
// its matrix product) over GOMAXPROCS goroutines.
//
// A loop's items are handed out one at a time, from a shared counter, to
// GOMAXPROCS goroutines started for the loop while the caller waits. A
// goroutine that the Go scheduler starts late (waking an idle processor
// takes tens of microseconds) takes fewer items instead of finishing
// last, and the loop ends when its items are done, not when every
// goroutine has run: one that starts after the last item was handed out
// returns at once, unwaited for. Ranges hands out up to four ranges per
// core for the same reason. Which goroutine computes an item
// never changes what is computed, so a kernel's result does not depend on
// the number of cores, as long as its items write disjoint outputs (or
// partial results indexed by item, added in order afterwards).
//
// The functions are safe to call from many goroutines at once; each call
// returns only when every item of its loop is done.
package parallel
