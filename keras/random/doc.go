// Package random is Keras's keras.random in Go: random tensors drawn
// inside a computation (a layer's Call, a train step), on every engine.
//
// Each function takes a [Seed], Keras's seed argument. The zero Seed is
// the computation's own stream, as Keras's SeedGenerator: fresh numbers
// on every run of the compiled step, which depend only on the compile
// seed (keras.CompileOptions.Seed) and the step number, so a training run
// is reproducible and resumes exactly. [Fixed] is an integer seed: the
// same numbers on every run, as Keras's integer seed gives inside a
// compiled function; they are drawn once, on the host, when the
// computation is built.
//
// A [SeedGenerator] is Keras's keras.random.SeedGenerator: numbers that
// depend on its own (seed, counter) state alone, the same on every
// engine, with the state kept in a layer's variable from step to step.
//
// Keras's numbers themselves are not reproduced (each engine has its own
// generator, and so does Keras on each backend): the tests check the
// distributions, not the values.
//
// The functions hold no state; a Builder is used by one goroutine at a
// time.
package random
