//go:build !race

package serving_test

const raceEnabled = false
