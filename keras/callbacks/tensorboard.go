package callbacks

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/kerasgo/kerasgo/internal/tfevents"
)

// TensorBoard writes a run's logs for TensorBoard, like
// keras.callbacks.TensorBoard: event files under LogDir/train and
// LogDir/validation that `tensorboard --logdir LogDir` reads, with
// Keras's tags:
//
//   - epoch_<name> per epoch: the training logs and the learning rate in
//     train, the validation logs (without "val_") in validation;
//   - batch_<name> every UpdateFreq batches, when UpdateFreq is set
//     (Keras's update_freq="batch" is 1);
//   - evaluation_<name>_vs_iterations at the end of each evaluation, at
//     the optimizer's iteration count;
//   - <weight path>/histogram every HistogramFreq epochs, and with
//     WriteImages <weight path>/image for the weights Keras draws;
//   - the model's config as the "keras" summary for TensorBoard's graph
//     plugin (Keras's write_graph), unless NoGraph.
//
// The summaries are TensorFlow 2's (tf.summary's tensors and plugin
// metadata), written by package internal/tfevents. Keras's profiler
// (profile_batch) and embeddings projector (embeddings_freq) are not
// written. Only the chief of a data-parallel job writes. A file that
// cannot be written stops training, and Fit returns the error (Err), as
// CSVLogger's.
type TensorBoard struct {
	Base
	LogDir        string // "logs" when empty
	HistogramFreq int    // epochs between weight histograms; 0: none
	// NoGraph leaves out the model's config (Keras's write_graph=False).
	NoGraph     bool
	WriteImages bool
	// WriteStepsPerSecond adds batch_steps_per_second and
	// epoch_steps_per_second.
	WriteStepsPerSecond bool
	// UpdateFreq writes the batch logs every that many batches; 0 means
	// Keras's "epoch" (no batch logs).
	UpdateFreq int

	train, val     *tfevents.Writer
	globalBatch    int64
	batchStart     time.Time
	epochStart     time.Time
	epochFirstIter int64
	err            error
}

// NewTensorBoard returns a TensorBoard writing under logDir.
func NewTensorBoard(logDir string) *TensorBoard { return &TensorBoard{LogDir: logDir} }

// ModelDetails is what TensorBoard reads of a model besides Model, which
// keras.Model has: its optimizer's iteration count, its weights' paths,
// and its config as JSON. Without it, TensorBoard counts iterations
// itself and names weights by their index.
type ModelDetails interface {
	Iterations() int64
	WeightPaths() []string
	WeightShapes() [][]int
	ToJSON() (string, error)
}

// Err reports the first event file that could not be written.
func (t *TensorBoard) Err() error { return t.err }

func (t *TensorBoard) fail(err error) {
	if t.err == nil && err != nil {
		t.err = fmt.Errorf("TensorBoard %s: %w", t.dir(), err)
		if m := t.Model(); m != nil {
			m.StopTraining()
		}
	}
}

func (t *TensorBoard) dir() string {
	if t.LogDir == "" {
		return "logs"
	}
	return t.LogDir
}

func (t *TensorBoard) writer(w **tfevents.Writer, sub string) *tfevents.Writer {
	if *w == nil && t.err == nil {
		nw, err := tfevents.Create(filepath.Join(t.dir(), sub))
		if err != nil {
			t.fail(err)
			return nil
		}
		*w = nw
	}
	return *w
}

func (t *TensorBoard) details() (ModelDetails, bool) {
	d, ok := t.Model().(ModelDetails)
	return d, ok
}

// OnTrainBegin opens the train writer and writes the model's config.
func (t *TensorBoard) OnTrainBegin(Params) {
	if m := t.Model(); m != nil && !m.IsChief() {
		return
	}
	t.globalBatch = 0
	w := t.writer(&t.train, "train")
	if w == nil || t.NoGraph {
		return
	}
	if d, ok := t.details(); ok {
		if js, err := d.ToJSON(); err == nil {
			w.String("keras", 0, "graph_keras_model", []byte("1"), js)
		}
	}
	t.fail(w.Flush())
}

// OnTrainBatchBegin counts the batch.
func (t *TensorBoard) OnTrainBatchBegin(int) {
	t.globalBatch++
	if t.WriteStepsPerSecond {
		t.batchStart = time.Now()
	}
}

// OnTrainBatchEnd writes the batch logs every UpdateFreq batches.
func (t *TensorBoard) OnTrainBatchEnd(_ int, logs Logs) {
	if t.train == nil || t.UpdateFreq <= 0 || t.globalBatch%int64(t.UpdateFreq) != 0 {
		return
	}
	if t.WriteStepsPerSecond {
		if d := time.Since(t.batchStart).Seconds(); d > 0 {
			t.train.Scalar("batch_steps_per_second", t.globalBatch, 1/d)
		}
	}
	for _, l := range logs {
		t.train.Scalar("batch_"+l.Name, t.globalBatch, l.Value)
	}
}

// OnEpochBegin notes the epoch's start for the steps per second.
func (t *TensorBoard) OnEpochBegin(int) {
	if t.WriteStepsPerSecond {
		t.epochStart, t.epochFirstIter = time.Now(), t.iterations()
	}
}

func (t *TensorBoard) iterations() int64 {
	if d, ok := t.details(); ok {
		return d.Iterations()
	}
	return t.globalBatch
}

// OnEpochEnd writes the epoch's logs and, every HistogramFreq epochs,
// the weights.
func (t *TensorBoard) OnEpochEnd(epoch int, logs Logs) {
	if t.train == nil {
		return
	}
	step := int64(epoch)
	var valLogs Logs
	for _, l := range logs {
		if name, ok := strings.CutPrefix(l.Name, "val_"); ok {
			valLogs = append(valLogs, Log{name, l.Value})
			continue
		}
		t.train.Scalar("epoch_"+l.Name, step, l.Value)
	}
	if _, logged := logs.Get("learning_rate"); !logged {
		if lr, err := t.Model().LearningRate(); err == nil {
			t.train.Scalar("epoch_learning_rate", step, lr)
		}
	}
	if t.WriteStepsPerSecond {
		if d := time.Since(t.epochStart).Seconds(); d > 0 {
			t.train.Scalar("epoch_steps_per_second", step, float64(t.iterations()-t.epochFirstIter)/d)
		}
	}
	if len(valLogs) > 0 {
		if w := t.writer(&t.val, "validation"); w != nil {
			for _, l := range valLogs {
				w.Scalar("epoch_"+l.Name, step, l.Value)
			}
			t.fail(w.Flush())
		}
	}
	if t.HistogramFreq > 0 && epoch%t.HistogramFreq == 0 {
		t.logWeights(step)
	}
	t.fail(t.train.Flush())
}

// logWeights writes a histogram of every weight, and with WriteImages
// the images Keras draws of them.
func (t *TensorBoard) logWeights(step int64) {
	m := t.Model()
	values, err := m.GetWeights()
	if err != nil {
		t.fail(err)
		return
	}
	var paths []string
	var shapes [][]int
	if d, ok := t.details(); ok {
		paths, shapes = d.WeightPaths(), d.WeightShapes()
	}
	for i, v := range values {
		name := fmt.Sprintf("weight_%d", i)
		if i < len(paths) {
			name = strings.ReplaceAll(paths[i], ":", "_")
		}
		data := make([]float64, len(v))
		for k, x := range v {
			data[k] = float64(x)
		}
		t.train.Histogram(name+"/histogram", step, data)
		if t.WriteImages && i < len(shapes) {
			if imgs := weightImages(data, shapes[i]); imgs != nil {
				t.train.Images(name+"/image", step, imgs)
			}
		}
	}
}

// weightImages draws a weight as Keras's _log_weight_as_image does (its
// axes of size 1 dropped): a bias as an n×1 image (n rows), a kernel as rows ×
// columns (transposed to be wide), a rank-3 weight (a, b, c) as c images
// a×b, a rank-4 one whose last axis is 1, 3 or 4 as images of that many
// channels; the others are not drawn. At most 3 images, as
// tf.summary.image's max_outputs, values taken as [0, 1] intensities as
// tf.summary.image converts floats.
func weightImages(data []float64, shape []int) []image.Image {
	var s []int
	for _, d := range shape {
		if d != 1 {
			s = append(s, d)
		}
	}
	at := func(idx ...int) float64 { // row-major into s
		k := 0
		for i, v := range idx {
			k = k*s[i] + v
		}
		return data[k]
	}
	var n, h, w, c int
	var pixel func(img, y, x, ch int) float64
	switch len(s) {
	case 1:
		n, h, w, c = 1, s[0], 1, 1
		pixel = func(_, y, _, _ int) float64 { return data[y] }
	case 2:
		n, h, w, c = 1, s[0], s[1], 1
		pixel = func(_, y, x, _ int) float64 { return at(y, x) }
		if s[0] > s[1] {
			h, w = s[1], s[0]
			pixel = func(_, y, x, _ int) float64 { return at(x, y) }
		}
	case 3:
		n, h, w, c = s[2], s[0], s[1], 1
		pixel = func(i, y, x, _ int) float64 { return at(y, x, i) }
	case 4:
		if last := s[3]; last != 1 && last != 3 && last != 4 {
			return nil
		}
		n, h, w, c = s[0], s[1], s[2], s[3]
		pixel = func(i, y, x, ch int) float64 { return at(i, y, x, ch) }
	default:
		return nil
	}
	level := func(v float64) uint8 { return uint8(math.Min(255, math.Max(0, v*255.5))) }
	var out []image.Image
	for i := range min(n, 3) {
		r := image.Rect(0, 0, w, h)
		if c == 1 {
			g := image.NewGray(r)
			for y := range h {
				for x := range w {
					g.SetGray(x, y, color.Gray{level(pixel(i, y, x, 0))})
				}
			}
			out = append(out, g)
			continue
		}
		rgba := image.NewNRGBA(r)
		for y := range h {
			for x := range w {
				px := color.NRGBA{A: 255}
				px.R, px.G, px.B = level(pixel(i, y, x, 0)), level(pixel(i, y, x, 1)), level(pixel(i, y, x, 2))
				if c == 4 {
					px.A = level(pixel(i, y, x, 3))
				}
				rgba.SetNRGBA(x, y, px)
			}
		}
		out = append(out, rgba)
	}
	return out
}

// OnTestEnd writes the evaluation's logs at the iteration count.
func (t *TensorBoard) OnTestEnd(logs Logs) {
	if m := t.Model(); m != nil && !m.IsChief() {
		return
	}
	w := t.writer(&t.val, "validation")
	if w == nil {
		return
	}
	step := t.iterations()
	for _, l := range logs {
		w.Scalar("evaluation_"+l.Name+"_vs_iterations", step, l.Value)
	}
	t.fail(w.Flush())
	if t.train == nil { // an Evaluate outside Fit: nothing more to write
		t.fail(w.Close())
		t.val = nil
	}
}

// OnTrainEnd closes the writers.
func (t *TensorBoard) OnTrainEnd(Logs) {
	for _, w := range []**tfevents.Writer{&t.train, &t.val} {
		if *w != nil {
			t.fail((*w).Close())
			*w = nil
		}
	}
}
