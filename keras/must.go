package keras

// Must returns v, or panics if err is not nil. It keeps examples and
// scripts short: model := keras.Must(keras.NewSequential(...)).
// Programs that must not panic check the error instead.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// MustOK panics if err is not nil: keras.MustOK(model.Compile(...)).
func MustOK(err error) {
	if err != nil {
		panic(err)
	}
}
