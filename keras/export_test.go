package keras

// SummaryRows gives the tests the rows of Summary: per layer, its name
// and class, output shape, parameter count and inputs.
func SummaryRows(m *Model) [][4]string { return m.summaryRows() }

// UnsetRandomSeed undoes SetRandomSeed, so that a test of it leaves the
// other tests' seeds random.
func UnsetRandomSeed() {
	seedSource.mu.Lock()
	seedSource.r = nil
	seedSource.mu.Unlock()
}
