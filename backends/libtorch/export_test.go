//go:build libtorch

package libtorch

// JemallocDecay exposes jemallocDecay to the package's external tests.
var JemallocDecay = jemallocDecay
