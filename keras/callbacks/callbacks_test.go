package callbacks

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeModel records what callbacks do to it.
type fakeModel struct {
	weights [][]float32
	lr      float64
	stopped bool
	saved   []string
	// worker makes it a rank other than 0 of a data-parallel job.
	worker bool
}

func (f *fakeModel) GetWeights() ([][]float32, error) {
	out := make([][]float32, len(f.weights))
	for i, w := range f.weights {
		out[i] = append([]float32(nil), w...)
	}
	return out, nil
}
func (f *fakeModel) SetWeights(w [][]float32) error { f.weights = w; return nil }
func (f *fakeModel) Save(p string) error {
	f.saved = append(f.saved, p)
	return os.WriteFile(p, []byte("model"), 0o644)
}
func (f *fakeModel) SaveWeights(p string) error       { return f.Save(p) }
func (f *fakeModel) LearningRate() (float64, error)   { return f.lr, nil }
func (f *fakeModel) SetLearningRate(lr float64) error { f.lr = lr; return nil }
func (f *fakeModel) StopTraining()                    { f.stopped = true }
func (f *fakeModel) LoadWeights(string) error         { return nil }
func (f *fakeModel) ResumeAt(int, int, Logs)          {}
func (f *fakeModel) IsChief() bool                    { return !f.worker }

// drive plays a training run of scripted epoch logs through cb, stopping
// when the callback stops training; it returns the epochs run. Before each
// epoch's end the fake model's weights are set to the epoch number.
func drive(cb Callback, m *fakeModel, name string, values []float64) int {
	cb.SetModel(m)
	cb.OnTrainBegin(Params{Epochs: len(values), Steps: 1})
	epochs := 0
	for e, v := range values {
		if m.stopped {
			break
		}
		cb.OnEpochBegin(e)
		m.weights = [][]float32{{float32(e)}}
		cb.OnEpochEnd(e, Logs{{Name: "loss", Value: 0.5}, {Name: name, Value: v}})
		epochs++
	}
	cb.OnTrainEnd(nil)
	return epochs
}

func fp(v float64) *float64 { return &v }

// EarlyStopping follows Keras 3's rules (keras/src/callbacks/early_stopping.py)
// on scripted sequences of the monitored value.
func TestEarlyStopping(t *testing.T) {
	cases := []struct {
		name     string
		opts     EarlyStoppingOptions
		monitor  string
		values   []float64
		epochs   int // epochs run before stopping
		stopped  int // StoppedEpoch
		restored float32
	}{
		{"patience 0", EarlyStoppingOptions{}, "val_loss", []float64{1, 0.9, 0.95, 0.5}, 3, 2, -1},
		{"patience 2", EarlyStoppingOptions{Patience: 2}, "val_loss", []float64{1, 0.9, 0.95, 0.96, 0.97, 0.1}, 4, 3, -1},
		{"min delta", EarlyStoppingOptions{MinDelta: 0.1, Patience: 1}, "val_loss", []float64{1, 0.95, 0.8}, 2, 1, -1},
		{"accuracy goes up (auto)", EarlyStoppingOptions{Monitor: "val_accuracy", Patience: 1}, "val_accuracy", []float64{0.5, 0.6, 0.55, 0.55}, 3, 2, -1},
		{"explicit max", EarlyStoppingOptions{Monitor: "score", Mode: ModeMax}, "score", []float64{1, 2, 3, 2}, 4, 3, -1},
		{"baseline never beaten", EarlyStoppingOptions{Baseline: fp(0.5), Patience: 2}, "val_loss", []float64{0.8, 0.8, 0.8}, 2, 1, -1},
		{"baseline beaten", EarlyStoppingOptions{Baseline: fp(0.5), Patience: 1}, "val_loss", []float64{0.4, 0.3, 0.2, 0.1}, 4, 0, -1},
		{"warm-up", EarlyStoppingOptions{StartFromEpoch: 2}, "val_loss", []float64{1, 2, 3, 4, 0}, 4, 3, -1},
		{"restore best, stopped", EarlyStoppingOptions{Patience: 1, RestoreBestWeights: true}, "val_loss", []float64{1, 0.5, 0.7, 0.8}, 3, 2, 1},
		{"restore best, not stopped", EarlyStoppingOptions{Patience: 5, RestoreBestWeights: true}, "val_loss", []float64{1, 0.2, 0.7}, 3, 0, 1},
		{"never improves from the start", EarlyStoppingOptions{Patience: 0, RestoreBestWeights: true}, "val_loss", []float64{math.Inf(1), math.Inf(1)}, 2, 1, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.opts.Monitor == "" {
				c.opts.Monitor = c.monitor
			}
			es, err := NewEarlyStopping(c.opts)
			if err != nil {
				t.Fatal(err)
			}
			m := &fakeModel{}
			if got := drive(es, m, c.monitor, c.values); got != c.epochs {
				t.Errorf("ran %d epochs, want %d", got, c.epochs)
			}
			if es.StoppedEpoch() != c.stopped {
				t.Errorf("StoppedEpoch = %d, want %d", es.StoppedEpoch(), c.stopped)
			}
			if c.restored >= 0 && m.weights[0][0] != c.restored {
				t.Errorf("weights after training are those of epoch %v, want the best epoch %v", m.weights[0][0], c.restored)
			}
			if es.Err() != nil {
				t.Error(es.Err())
			}
		})
	}
	if _, err := NewEarlyStopping(EarlyStoppingOptions{Monitor: "val_mystery"}); err == nil || !strings.Contains(err.Error(), "Mode") {
		t.Errorf("an unknown metric in auto mode gave %v, want an error asking for Mode", err)
	}
	es, _ := NewEarlyStopping(EarlyStoppingOptions{})
	m := &fakeModel{}
	drive(es, m, "loss_only", []float64{1, 1})
	if es.Err() == nil || !strings.Contains(es.Err().Error(), "val_loss") || !m.stopped {
		t.Errorf("a missing val_loss: err %v, stopped %v", es.Err(), m.stopped)
	}
}

// ReduceLROnPlateau follows Keras's rules: patience, cooldown, min_lr
// (compared in float32 as Keras does) and min_delta.
func TestReduceLROnPlateau(t *testing.T) {
	one := 1
	cases := []struct {
		name   string
		opts   ReduceLROnPlateauOptions
		values []float64
		lrs    []float64 // after each epoch
	}{
		{"cooldown and floor", ReduceLROnPlateauOptions{Factor: 0.5, Patience: &one, Cooldown: 1, MinLR: 0.2}, []float64{1, 1, 1, 1, 1, 1}, []float64{1, 0.5, 0.25, 0.2, 0.2, 0.2}},
		{"improving", ReduceLROnPlateauOptions{Factor: 0.5, Patience: &one}, []float64{1, 0.9, 0.8, 0.7}, []float64{1, 1, 1, 1}},
		{"below min delta", ReduceLROnPlateauOptions{Factor: 0.5, Patience: &one, MinDelta: fp(0.2)}, []float64{1, 0.9, 0.5}, []float64{1, 0.5, 0.5}},
		{"default patience 10", ReduceLROnPlateauOptions{}, []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.1}},
		{"accuracy (auto: up)", ReduceLROnPlateauOptions{Monitor: "val_accuracy", Factor: 0.5, Patience: &one}, []float64{0.5, 0.4, 0.6}, []float64{1, 0.5, 0.5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := NewReduceLROnPlateau(c.opts)
			if err != nil {
				t.Fatal(err)
			}
			name := c.opts.Monitor
			if name == "" {
				name = "val_loss"
			}
			m := &fakeModel{lr: 1}
			r.SetModel(m)
			r.OnTrainBegin(Params{})
			for e, v := range c.values {
				r.OnEpochEnd(e, Logs{{Name: name, Value: v}})
				if math.Abs(m.lr-c.lrs[e]) > 1e-12 {
					t.Fatalf("after epoch %d the learning rate is %v, want %v", e, m.lr, c.lrs[e])
				}
			}
		})
	}
	if _, err := NewReduceLROnPlateau(ReduceLROnPlateauOptions{Factor: 1.5}); err == nil {
		t.Error("factor 1.5 accepted")
	}
}

func TestLearningRateScheduler(t *testing.T) {
	s := NewLearningRateScheduler(func(epoch int, lr float64) float64 { return lr * math.Pow(0.5, float64(epoch)) })
	m := &fakeModel{lr: 1}
	s.SetModel(m)
	for e, want := range []float64{1, 0.5, 0.125} {
		s.OnEpochBegin(e)
		if m.lr != want {
			t.Errorf("epoch %d: lr %v, want %v", e, m.lr, want)
		}
	}
	bad := NewLearningRateScheduler(func(int, float64) float64 { return -1 })
	bad.SetModel(m)
	bad.OnEpochBegin(0)
	if bad.Err() == nil || !m.stopped {
		t.Error("a negative learning rate from the schedule was accepted")
	}
}

func TestFormatPath(t *testing.T) {
	logs := Logs{{Name: "loss", Value: 0.123456}, {Name: "val_loss", Value: 0.5}, {Name: "val_accuracy", Value: 0.875}}
	for _, c := range []struct{ pattern, want string }{
		{"ckpt-{epoch:02d}-{val_loss:.2f}.keras", "ckpt-03-0.50.keras"},
		{"m{epoch}.keras", "m3.keras"},
		{"m-{val_accuracy:.1%}.keras", "m-87.5%.keras"},
		{"m-{loss}.keras", "m-0.123456.keras"},
		{"m-{val_loss:.3e}.keras", "m-5.000e-01.keras"},
		{"plain.keras", "plain.keras"},
	} {
		got, err := FormatPath(c.pattern, 3, 0, logs)
		if err != nil || got != c.want {
			t.Errorf("FormatPath(%q) = %q, %v; want %q", c.pattern, got, err, c.want)
		}
	}
	if _, err := FormatPath("m-{val_auc:.2f}.keras", 1, 0, logs); err == nil || !strings.Contains(err.Error(), "val_auc") {
		t.Errorf("an unknown placeholder gave %v", err)
	}
	if got, err := FormatPath("m-{epoch}-{batch:03d}.keras", 2, 7, logs); err != nil || got != "m-2-007.keras" {
		t.Errorf("batch placeholder: %q, %v", got, err)
	}
}

// ModelCheckpoint with SaveBestOnly saves exactly when the monitored value
// improves; the path pattern gets the epoch.
func TestModelCheckpointBestOnly(t *testing.T) {
	dir := t.TempDir()
	c, err := NewModelCheckpoint(ModelCheckpointOptions{Path: filepath.Join(dir, "m-{epoch:02d}.keras"), SaveBestOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	m := &fakeModel{}
	drive(c, m, "val_loss", []float64{1, 0.5, 0.7, 0.4, 0.4})
	want := []string{"m-01.keras", "m-02.keras", "m-04.keras"}
	if len(m.saved) != len(want) {
		t.Fatalf("saved %v, want %v", m.saved, want)
	}
	for i, p := range m.saved {
		if filepath.Base(p) != want[i] {
			t.Errorf("save %d went to %s, want %s", i, filepath.Base(p), want[i])
		}
	}
	if _, err := NewModelCheckpoint(ModelCheckpointOptions{Path: "m.h5"}); err == nil {
		t.Error("a path without .keras accepted")
	}
	if _, err := NewModelCheckpoint(ModelCheckpointOptions{Path: "m.keras", SaveWeightsOnly: true}); err == nil {
		t.Error("SaveWeightsOnly with a .keras path accepted")
	}
}

func TestCSVLogger(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.csv")
	for run := 0; run < 2; run++ {
		l := NewCSVLogger(path, run == 1)
		l.SetModel(&fakeModel{})
		l.OnTrainBegin(Params{})
		for e := 0; e < 2; e++ {
			l.OnEpochEnd(e, Logs{{Name: "loss", Value: 0.5 / float64(e+1)}, {Name: "accuracy", Value: 0.25}})
		}
		l.OnTrainEnd(nil)
		if l.Err() != nil {
			t.Fatal(l.Err())
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "epoch,accuracy,loss\n0,0.25,0.5\n1,0.25,0.25\n0,0.25,0.5\n1,0.25,0.25\n"
	if string(data) != want {
		t.Errorf("CSV file:\n%s\nwant:\n%s", data, want)
	}
}

// TestOnlyTheChiefWrites: in a data-parallel job, ranks other than 0
// write no checkpoint, backup or CSV log (rank 0 writes them).
func TestOnlyTheChiefWrites(t *testing.T) {
	dir := t.TempDir()
	m := &fakeModel{worker: true}
	ck, err := NewModelCheckpoint(ModelCheckpointOptions{Path: filepath.Join(dir, "model.keras")})
	if err != nil {
		t.Fatal(err)
	}
	backup := NewBackupAndRestore(filepath.Join(dir, "backup"))
	csvLog := NewCSVLogger(filepath.Join(dir, "log.csv"), false)
	for _, cb := range []Callback{ck, backup, csvLog} {
		cb.SetModel(m)
		cb.OnTrainBegin(Params{Epochs: 1, Steps: 1})
		cb.OnEpochEnd(0, Logs{{Name: "loss", Value: 1}})
		cb.OnTrainEnd(Logs{{Name: "loss", Value: 1}})
	}
	if len(m.saved) != 0 {
		t.Errorf("a worker saved %v", m.saved)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a worker wrote %v", entries)
	}
}
