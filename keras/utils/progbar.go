package utils

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/kerasgo/kerasgo/keras/callbacks"
)

// Progbar is Keras's keras.utils.Progbar: a progress bar for a loop of
// your own, drawn as Fit draws its bar (callbacks.Bar), with the values
// it is given averaged over the steps, except those named in Stateful,
// shown as they are (a metric that is already a running value).
//
//	bar := &utils.Progbar{Target: len(batches), Out: os.Stdout}
//	for i, batch := range batches {
//		loss := step(batch)
//		bar.Update(i+1, callbacks.Logs{{Name: "loss", Value: loss}})
//	}
//
// Verbose 1 (the zero value, as Keras's default) redraws one line in
// place, at most every Interval (zero: Keras's 50 ms), and ends it when
// Target is reached; Verbose 2 prints one line at the end; Silent (0 in
// Keras) is Verbose < 0 here, which prints nothing. A Target of 0 is
// Keras's target=None: the count is shown without a bar. It is safe to
// call from several goroutines.
type Progbar struct {
	Target   int
	Out      io.Writer
	Verbose  int
	Interval time.Duration
	Stateful []string
	// UnitName names a step in the time per step ("step"; Keras's
	// unit_name).
	UnitName string

	mu       sync.Mutex
	start    time.Time
	last     time.Time
	seen     int
	order    []string
	sums     map[string][2]float64 // value × steps, steps (or the value, 1)
	finished bool
}

// Update sets the current step and adds the step's values, as Keras's
// update(current, values); the bar ends when current reaches Target.
func (p *Progbar) Update(current int, values callbacks.Logs) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.update(current, values)
}

// Add advances the bar by n steps, as Keras's add(n, values).
func (p *Progbar) Add(n int, values callbacks.Logs) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.update(p.seen+n, values)
}

// update is Update with p.mu held.
func (p *Progbar) update(current int, values callbacks.Logs) {
	now := time.Now()
	if p.sums == nil {
		p.sums, p.start = map[string][2]float64{}, now
	}
	for _, v := range values {
		if !slices.Contains(p.order, v.Name) {
			p.order = append(p.order, v.Name)
		}
		if slices.Contains(p.Stateful, v.Name) {
			p.sums[v.Name] = [2]float64{v.Value, 1}
			continue
		}
		steps := float64(max(current-p.seen, 1))
		s := p.sums[v.Name]
		p.sums[v.Name] = [2]float64{s[0] + v.Value*steps, s[1] + steps}
	}
	p.seen = current
	final := p.Target > 0 && current >= p.Target
	if p.Out == nil || p.Verbose < 0 || p.finished {
		return
	}
	interval := p.Interval
	if interval == 0 {
		interval = 50 * time.Millisecond
	}
	if !final && (p.Verbose == 2 || now.Sub(p.last) < interval) {
		return
	}
	p.last = now
	elapsed := now.Sub(p.start)
	unit := p.UnitName
	if unit == "" {
		unit = "step"
	}
	perStep := callbacks.FormatPerStep(elapsed, max(current, 1))
	perStep = perStep[:len(perStep)-len("step")] + unit
	logs := callbacks.FormatLogs(p.values())
	switch {
	case p.Verbose == 2:
		fmt.Fprintf(p.Out, "%d/%d - %s - %s%s\n", current, p.Target, callbacks.FormatDuration(elapsed), perStep, logs)
	case p.Target <= 0:
		fmt.Fprintf(p.Out, "\r%7d/Unknown - %s %s%s", current, callbacks.FormatDuration(elapsed), perStep, logs)
	case final:
		fmt.Fprintf(p.Out, "\r%s - %s %s%s\n", callbacks.Bar(current, p.Target), callbacks.FormatDuration(elapsed), perStep, logs)
	default:
		eta := time.Duration(float64(elapsed) / float64(max(current, 1)) * float64(p.Target-current))
		fmt.Fprintf(p.Out, "\r%s - ETA: %s%s", callbacks.Bar(current, p.Target), callbacks.FormatDuration(eta), logs)
	}
	if final {
		p.finished = true
	}
}

// Values returns the values the bar shows: each non-stateful one
// averaged over the steps, weighted by how many steps each update
// advanced, as Keras averages them.
func (p *Progbar) Values() callbacks.Logs {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.values()
}

// values is Values with p.mu held.
func (p *Progbar) values() callbacks.Logs {
	var out callbacks.Logs
	for _, name := range p.order {
		s := p.sums[name]
		out = append(out, callbacks.Log{Name: name, Value: s[0] / max(s[1], 1)})
	}
	return out
}
