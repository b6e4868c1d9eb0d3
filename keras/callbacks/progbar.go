package callbacks

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// Progbar prints training progress in Keras's format:
//
//	Epoch 1/12
//	469/469 [==============================] - 12s 25ms/step - loss: 0.4012 - accuracy: 0.8561
//
// With Verbose 1 on a terminal the bar updates in place after every batch;
// otherwise (Verbose 1 to a file or pipe, or Verbose 2) it prints one line
// per epoch.
type Progbar struct {
	Base
	W       io.Writer
	Verbose int
	// Live forces in-place updates (true) or one line per epoch (false).
	// Nil decides from whether W is a terminal.
	Live *bool

	params     Params
	seen       int // batches of the epoch (or evaluation) so far
	start      time.Time
	lastUpdate time.Time
	live       bool
	inFit      bool // validation inside Fit prints no bar of its own
}

// ProgbarLogger is Keras's name for the progress bar callback.
type ProgbarLogger = Progbar

// NewProgbar returns the progress bar Fit uses for verbosity 1 or 2.
func NewProgbar(w io.Writer, verbose int) *Progbar {
	return &Progbar{W: w, Verbose: verbose}
}

// IsTerminal reports whether w is an interactive terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// OnTrainBegin records the run's size.
func (p *Progbar) OnTrainBegin(params Params) {
	p.params, p.inFit = params, true
	if p.Live != nil {
		p.live = *p.Live
	} else {
		p.live = IsTerminal(p.W)
	}
	p.live = p.live && p.Verbose == 1
}

// OnEpochBegin prints "Epoch i/n".
func (p *Progbar) OnEpochBegin(epoch int) {
	fmt.Fprintf(p.W, "Epoch %d/%d\n", epoch+1, p.params.Epochs)
	p.start, p.seen = time.Now(), 0
	p.lastUpdate = time.Time{}
}

// OnTrainEnd ends the run.
func (p *Progbar) OnTrainEnd(Logs) { p.inFit = false }

// OnTestBegin starts timing an evaluation (outside Fit).
func (p *Progbar) OnTestBegin(params Params) {
	if !p.inFit {
		p.params, p.start, p.seen = params, time.Now(), 0
	}
}

// OnTestBatchEnd counts the evaluation's batches (for data of a length
// known only at its end).
func (p *Progbar) OnTestBatchEnd(batch int, _ Logs) {
	if !p.inFit {
		p.seen = batch + 1
	}
}

// steps is the number of batches of the epoch or evaluation at its end:
// those seen, as Keras's progress bar finalizes with its count (an epoch
// of a generator may end early, or have a length known only at its end),
// else the number planned.
func (p *Progbar) steps() int {
	if p.seen > 0 {
		return p.seen
	}
	return p.params.Steps
}

// OnTestEnd prints the evaluation's line (outside Fit), as Keras's
// evaluate does: "313/313 - 1s - 3ms/step - loss: 0.2518 - accuracy: 0.9051".
func (p *Progbar) OnTestEnd(logs Logs) {
	if p.inFit {
		return
	}
	elapsed := time.Since(p.start)
	n := p.steps()
	fmt.Fprintf(p.W, "%d/%d - %s - %s%s\n", n, n, FormatDuration(elapsed), FormatPerStep(elapsed, n), FormatLogs(logs))
}

// OnTrainBatchEnd redraws the bar in place, at most 20 times a second.
func (p *Progbar) OnTrainBatchEnd(batch int, logs Logs) {
	p.seen = batch + 1
	if !p.live || (p.params.Steps > 0 && batch+1 >= p.params.Steps) {
		return
	}
	now := time.Now()
	if now.Sub(p.lastUpdate) < 50*time.Millisecond {
		return
	}
	p.lastUpdate = now
	elapsed := now.Sub(p.start)
	if p.params.Steps <= 0 { // Keras's bar for data of unknown length
		fmt.Fprintf(p.W, "\r%7d/Unknown - %s %s%s", batch+1, FormatDuration(elapsed), FormatPerStep(elapsed, batch+1), FormatLogs(logs))
		return
	}
	eta := time.Duration(float64(elapsed) / float64(batch+1) * float64(p.params.Steps-batch-1))
	fmt.Fprintf(p.W, "\r%s - ETA: %s%s", Bar(batch+1, p.params.Steps), FormatDuration(eta), FormatLogs(logs))
}

// OnEpochEnd prints the epoch's final line.
func (p *Progbar) OnEpochEnd(_ int, logs Logs) {
	elapsed := time.Since(p.start)
	n := p.steps()
	perStep := FormatPerStep(elapsed, n)
	if p.Verbose == 2 {
		fmt.Fprintf(p.W, "%d/%d - %s - %s%s\n", n, n, FormatDuration(elapsed), perStep, FormatLogs(logs))
		return
	}
	prefix := ""
	if p.live {
		prefix = "\r"
	}
	fmt.Fprintf(p.W, "%s%s - %s %s%s\n", prefix, Bar(n, n), FormatDuration(elapsed), perStep, FormatLogs(logs))
}

// Bar renders Keras's 30-character progress bar: " 37/469 [==>.....]".
func Bar(current, target int) string {
	const width = 30
	digits := len(fmt.Sprint(target))
	var b strings.Builder
	fmt.Fprintf(&b, "%*d/%d [", digits, current, target)
	filled := int(float64(width) * float64(current) / float64(target))
	if filled > 0 {
		b.WriteString(strings.Repeat("=", filled-1))
		if current < target {
			b.WriteByte('>')
		} else {
			b.WriteByte('=')
		}
	}
	b.WriteString(strings.Repeat(".", width-filled))
	b.WriteByte(']')
	return b.String()
}

// FormatLogs renders " - loss: 0.4012 - accuracy: 0.8561" as Keras does
// (scientific notation for values under 1e-3).
func FormatLogs(logs Logs) string {
	var b strings.Builder
	for _, l := range logs {
		if math.Abs(l.Value) > 1e-3 || l.Value == 0 {
			fmt.Fprintf(&b, " - %s: %.4f", l.Name, l.Value)
		} else {
			fmt.Fprintf(&b, " - %s: %.4e", l.Name, l.Value)
		}
	}
	return b.String()
}

// FormatDuration renders an elapsed time or ETA as Keras does: "12s",
// "1:02:03" for an hour or more, "2:03" for a minute or more.
func FormatDuration(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s >= 3600:
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	case s >= 60:
		return fmt.Sprintf("%d:%02d", s/60, s%60)
	}
	return fmt.Sprintf("%ds", s)
}

// FormatPerStep renders the time per step: "25ms/step", "1s/step",
// "850us/step".
func FormatPerStep(elapsed time.Duration, steps int) string {
	if steps <= 0 {
		return "0us/step"
	}
	per := elapsed.Seconds() / float64(steps)
	switch {
	case per >= 1:
		return fmt.Sprintf("%.0fs/step", per)
	case per >= 1e-3:
		return fmt.Sprintf("%.0fms/step", per*1e3)
	}
	return fmt.Sprintf("%.0fus/step", per*1e6)
}
