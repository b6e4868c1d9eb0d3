//go:build libtorch

package libtorch

// JemallocDecay exposes jemallocDecay to the package's external tests.
var JemallocDecay = jemallocDecay

// PrepareSysmon exposes prepareSysmon to the package's external tests.
var PrepareSysmon = prepareSysmon

// OpenBLASThreads exposes openBLASThreads to the package's external tests.
var OpenBLASThreads = openBLASThreads
