package applications

// SetWeightsBase points the "imagenet" downloads at base (a local test
// server) and returns a function that restores Keras's origin.
func SetWeightsBase(base string) (restore func()) {
	old := weightsBase
	weightsBase = base
	return func() { weightsBase = old }
}

// SetClassIndex points DecodePredictions' download at origin with hash,
// forgets the class index read, and returns a function that restores
// Keras's.
func SetClassIndex(origin, hash string) (restore func()) {
	oldOrigin, oldHash := classIndexOrigin, classIndexHash
	classIndexOrigin, classIndexHash = origin, hash
	classIndex.Lock()
	classIndex.entries = nil
	classIndex.Unlock()
	return func() {
		classIndexOrigin, classIndexHash = oldOrigin, oldHash
		classIndex.Lock()
		classIndex.entries = nil
		classIndex.Unlock()
	}
}
