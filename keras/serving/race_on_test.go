//go:build race

package serving_test

// raceEnabled: the race detector multiplies memory, so memory bounds are
// not checked under it.
const raceEnabled = true
