// Package plotting draws a training History as a PNG, the Go counterpart
// of plotting history.history with matplotlib in Keras's guides.
//
// It is a package of its own, not a method of keras.History, so that
// programs that never plot do not link gonum's plotting library (8.4 MB
// more binary for bench/stepbench, measured).
package plotting
