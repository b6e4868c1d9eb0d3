package callbacks

// Failer is a callback that can fail to do its job (a monitored quantity
// missing from the logs, a checkpoint that could not be written). Fit
// stops training when such a callback asks it to and returns the
// callback's error.
type Failer interface {
	Err() error
}
