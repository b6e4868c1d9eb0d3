//go:build libtorch

package libtorch

// JemallocDecay exposes jemallocDecay to the package's external tests.
var JemallocDecay = jemallocDecay

// BatchSysmon exposes batchSysmon to the package's external tests.
var BatchSysmon = batchSysmon

// PrepareSysmon exposes prepareSysmon to the package's external tests.
var PrepareSysmon = prepareSysmon
