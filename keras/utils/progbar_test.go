package utils_test

import (
	"bytes"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/utils"
)

// Values are averaged over the steps, weighted by how far each update
// moved (Keras's Progbar.update), stateful ones shown as they are; the
// one line of Verbose 2 comes at the end, with the averages.
func TestProgbarAveragesAndPrints(t *testing.T) {
	var out bytes.Buffer
	bar := &utils.Progbar{Target: 4, Out: &out, Verbose: 2, Stateful: []string{"acc"}}
	bar.Update(1, callbacks.Logs{{Name: "loss", Value: 4}, {Name: "acc", Value: 0.25}})
	bar.Add(2, callbacks.Logs{{Name: "loss", Value: 1}, {Name: "acc", Value: 0.5}}) // steps 2 and 3
	if out.Len() != 0 {
		t.Errorf("Verbose 2 printed before the end: %q", out.String())
	}
	bar.Update(4, callbacks.Logs{{Name: "loss", Value: 2}, {Name: "acc", Value: 0.75}})
	got := bar.Values()
	want := map[string]float64{"loss": (4 + 1*2 + 2) / 4.0, "acc": 0.75}
	for _, v := range got {
		if math.Abs(v.Value-want[v.Name]) > 1e-12 {
			t.Errorf("%s = %v, want %v", v.Name, v.Value, want[v.Name])
		}
	}
	line := out.String()
	if !strings.HasPrefix(line, "4/4 - ") || !strings.Contains(line, "/step - loss: 2.0000 - acc: 0.7500") || !strings.HasSuffix(line, "\n") {
		t.Errorf("Verbose 2's line is %q, want 4/4 - <time> - <per step> - loss: 2.0000 - acc: 0.7500", line)
	}
	var live bytes.Buffer
	bar = &utils.Progbar{Target: 2, Out: &live, UnitName: "batch"}
	bar.Update(1, nil)
	bar.Update(2, nil)
	if s := live.String(); !strings.Contains(s, "\r2/2 [==============================]") || !strings.Contains(s, "/batch") || !strings.HasSuffix(s, "\n") {
		t.Errorf("the live bar ends %q, want the full bar, the time per batch and a new line", s)
	}
}

// Several goroutines may advance one bar (run with -race).
func TestProgbarConcurrentAdds(t *testing.T) {
	var out bytes.Buffer
	bar := &utils.Progbar{Target: 400, Out: &out}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 100 {
				bar.Add(1, callbacks.Logs{{Name: "loss", Value: 1}})
			}
		})
	}
	wg.Wait()
	if v := bar.Values(); len(v) != 1 || v[0].Value != 1 {
		t.Errorf("Values = %v after 400 adds of loss 1, want loss 1", v)
	}
	if !strings.Contains(out.String(), "400/400") {
		t.Errorf("the bar did not reach 400/400: %q", out.String())
	}
}
