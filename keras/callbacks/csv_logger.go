package callbacks

import (
	"encoding/csv"
	"fmt"
	"os"
	"sort"
	"strconv"
)

// CSVLogger writes each epoch's logs as a row of a CSV file, like
// keras.callbacks.CSVLogger: a header "epoch,<sorted names>" and one row
// per epoch, written and flushed as each epoch ends.
type CSVLogger struct {
	Base
	Path      string
	Separator rune // default ','
	// Append adds to an existing file (a resumed run) instead of
	// replacing it; the header is written only to an empty file.
	Append bool

	f      *os.File
	w      *csv.Writer
	keys   []string
	header bool
	err    error
}

// NewCSVLogger returns a CSVLogger writing to path.
func NewCSVLogger(path string, appendToFile bool) *CSVLogger {
	return &CSVLogger{Path: path, Append: appendToFile}
}

// Err reports a file that could not be written.
func (l *CSVLogger) Err() error { return l.err }

// OnTrainBegin opens the file.
func (l *CSVLogger) OnTrainBegin(Params) {
	if !l.Model().IsChief() { // rank 0 logs a data-parallel job
		return
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if l.Append {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(l.Path, flags, 0o644)
	if err != nil {
		l.fail(err)
		return
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		l.fail(err)
		return
	}
	l.f, l.keys = f, nil
	l.header = st.Size() == 0
	l.w = csv.NewWriter(f)
	if l.Separator != 0 {
		l.w.Comma = l.Separator
	}
}

// OnEpochEnd writes the epoch's row.
func (l *CSVLogger) OnEpochEnd(epoch int, logs Logs) {
	if l.w == nil {
		return
	}
	if l.keys == nil {
		l.keys = logs.Names()
		sort.Strings(l.keys)
		if l.header {
			l.w.Write(append([]string{"epoch"}, l.keys...))
		}
	}
	row := []string{strconv.Itoa(epoch)}
	for _, k := range l.keys {
		if v, ok := logs.Get(k); ok {
			row = append(row, strconv.FormatFloat(v, 'g', -1, 64))
		} else {
			row = append(row, "NA")
		}
	}
	l.w.Write(row)
	l.w.Flush()
	if err := l.w.Error(); err != nil {
		l.fail(err)
		return
	}
}

// OnTrainEnd closes the file.
func (l *CSVLogger) OnTrainEnd(Logs) {
	if l.f == nil {
		return
	}
	l.w.Flush()
	if err := l.f.Close(); err != nil {
		l.fail(err)
	}
	l.f, l.w = nil, nil
}

func (l *CSVLogger) fail(err error) {
	if l.err == nil {
		l.err = fmt.Errorf("CSVLogger %s: %w", l.Path, err)
		if m := l.Model(); m != nil {
			m.StopTraining()
		}
	}
}
