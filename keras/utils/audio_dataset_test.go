package utils_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/utils"
)

// AudioDatasetFromDirectory gives the batches Keras's
// audio_dataset_from_directory gives (unshuffled): the same files in the
// same batches, decoded as decode_wav decodes them, cut or padded as
// Keras does, with the same labels, exactly.
func TestAudioDatasetMatchesKeras(t *testing.T) {
	var index loadersIndex
	dir := loadersCorpus.Build(t, &index)
	if len(index.Audio) == 0 {
		t.Fatal("the Keras script wrote no audio cases")
	}
	ctx := context.Background()
	for k, ref := range index.Audio {
		o := ref.Options
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			ds, err := utils.AudioDatasetFromDirectory(filepath.Join(dir, "audio"), utils.AudioDatasetOptions{
				NoLabels: ref.NoLabels, LabelMode: o.LabelMode, BatchSize: o.BatchSize,
				OutputSequenceLength: o.OutputSequenceLength, NoShuffle: true, Verbose: keras.Silent})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(ds.ClassNames) != fmt.Sprint(ref.ClassNames) {
				t.Errorf("class names %v, Keras %v", ds.ClassNames, ref.ClassNames)
			}
			if ds.Len() != len(ref.Batches) {
				t.Fatalf("%d batches, Keras %d", ds.Len(), len(ref.Batches))
			}
			for i, want := range ref.Batches {
				b, err := ds.Batch(ctx, i)
				if err != nil {
					t.Fatal(err)
				}
				x := b.X.(keras.Array)
				if fmt.Sprint(x.Shape) != fmt.Sprint(want.X.Shape) {
					t.Fatalf("batch %d: audio of shape %v, Keras %v", i, x.Shape, want.X.Shape)
				}
				if d, at := worstDifference(x.Data, want.X.Data); d != 0 {
					t.Errorf("batch %d: audio differs from Keras's by %g at %d", i, d, at)
				}
				if (b.Y == nil) != (want.Y == nil) {
					t.Fatalf("batch %d: labels %v, Keras %v", i, b.Y, want.Y)
				}
				if want.Y != nil {
					y := b.Y.(keras.Array)
					got := y.Data
					if y.Ints != nil {
						got = make([]float32, len(y.Ints))
						for j, v := range y.Ints {
							got[j] = float32(v)
						}
					}
					if fmt.Sprint(y.Shape) != fmt.Sprint(want.Y.Shape) {
						t.Errorf("batch %d: labels of shape %v, Keras %v", i, y.Shape, want.Y.Shape)
					} else if d, _ := worstDifference(got, want.Y.Data); d != 0 {
						t.Errorf("batch %d: labels %v, Keras %v", i, got, want.Y.Data)
					}
				}
			}
		})
	}
}

// writeWAV writes a 16-bit PCM file of the given channels and samples.
func writeWAV(t *testing.T, path string, channels int, samples []int16) {
	t.Helper()
	data := binary.LittleEndian.AppendUint16(nil, 1) // PCM
	data = binary.LittleEndian.AppendUint16(data, uint16(channels))
	data = binary.LittleEndian.AppendUint32(data, 16000)
	data = binary.LittleEndian.AppendUint32(data, uint32(16000*2*channels))
	data = binary.LittleEndian.AppendUint16(data, uint16(2*channels))
	data = binary.LittleEndian.AppendUint16(data, 16)
	out := append([]byte("RIFF\x00\x00\x00\x00WAVEfmt "), binary.LittleEndian.AppendUint32(nil, 16)...)
	out = append(out, data...)
	out = append(out, "data"...)
	out = binary.LittleEndian.AppendUint32(out, uint32(2*len(samples)))
	for _, s := range samples {
		out = binary.LittleEndian.AppendUint16(out, uint16(s))
	}
	binary.LittleEndian.PutUint32(out[4:], uint32(len(out)-8))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A model trains on a folder of WAV files, and bad files and options are
// errors that name them.
func TestAudioDatasetTrainsAndRefuses(t *testing.T) {
	dir := t.TempDir()
	for c := range 2 {
		for k := range 4 {
			s := make([]int16, 20+k)
			for i := range s {
				s[i] = int16((c*2 - 1) * 1000 * (i%5 + 1))
			}
			writeWAV(t, filepath.Join(dir, fmt.Sprintf("class%d", c), fmt.Sprintf("%d.wav", k)), 1, s)
		}
	}
	train, val, err := utils.AudioDatasetsFromDirectory(dir, utils.AudioDatasetOptions{BatchSize: 3, OutputSequenceLength: 20, ValidationSplit: 0.25, Seed: 3, Verbose: keras.Silent})
	if err != nil {
		t.Fatal(err)
	}
	if len(train.FilePaths) != 6 || len(val.FilePaths) != 2 {
		t.Fatalf("%d training and %d validation files, want 6 and 2", len(train.FilePaths), len(val.FilePaths))
	}
	for _, f := range val.FilePaths {
		for _, g := range train.FilePaths {
			if f == g {
				t.Fatalf("%s is in both subsets", f)
			}
		}
	}
	b, err := train.Batch(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if x := b.X.(keras.Array); fmt.Sprint(x.Shape) != "[3 20 1]" {
		t.Fatalf("a batch of shape %v, want [3 20 1]", x.Shape)
	}
	m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{20, 1}}, &layers.Flatten{}, &layers.Dense{Units: 2, Activation: "softmax"})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{LearningRate: 0.5}, Loss: keras.Loss("sparse_categorical_crossentropy"), Metrics: keras.Metrics("accuracy"), Seed: 5}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := m.Fit(ctx, keras.Batches{Dataset: train, Workers: 2}, nil, keras.FitOptions{Epochs: 20, Verbose: keras.Silent}); err != nil {
		t.Fatal(err)
	}
	scores, err := m.Evaluate(ctx, keras.Batches{Dataset: val}, nil, keras.EvaluateOptions{Verbose: keras.Silent})
	if err != nil {
		t.Fatal(err)
	}
	if acc, _ := scores.Get("accuracy"); acc != 1 {
		t.Errorf("validation accuracy %v after training on the two classes' files (their signs differ), want 1", acc)
	}

	writeWAV(t, filepath.Join(dir, "class1", "stereo.wav"), 2, make([]int16, 40))
	os.WriteFile(filepath.Join(dir, "class0", "broken.wav"), []byte("not audio"), 0o644)
	ds, err := utils.AudioDatasetFromDirectory(dir, utils.AudioDatasetOptions{BatchSize: 10, NoShuffle: true, Verbose: keras.Silent})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ds.Batch(context.Background(), 0); err == nil || !strings.Contains(err.Error(), "broken.wav: not a WAV file") {
		t.Errorf("a batch with a broken file: error %v", err)
	}
	os.Remove(filepath.Join(dir, "class0", "broken.wav"))
	ds, _ = utils.AudioDatasetFromDirectory(dir, utils.AudioDatasetOptions{BatchSize: 10, NoShuffle: true, Verbose: keras.Silent})
	if _, err := ds.Batch(context.Background(), 0); err == nil || !strings.Contains(err.Error(), "stereo.wav has 2 channels") {
		t.Errorf("a batch mixing mono and stereo: error %v", err)
	}
	for _, c := range []struct {
		o    utils.AudioDatasetOptions
		want string
	}{
		{utils.AudioDatasetOptions{OutputSequenceLength: -1}, "OutputSequenceLength -1"},
		{utils.AudioDatasetOptions{LabelMode: "sparse"}, `unknown LabelMode "sparse"`},
		{utils.AudioDatasetOptions{ValidationSplit: 0.2}, `set Subset to "training" or "validation" (or call AudioDatasetsFromDirectory`},
	} {
		if _, err := utils.AudioDatasetFromDirectory(dir, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.o, err, c.want)
		}
	}
	if _, err := utils.AudioDatasetFromDirectory(t.TempDir(), utils.AudioDatasetOptions{NoLabels: true, Verbose: keras.Silent}); err == nil || !strings.Contains(err.Error(), "no audio files found") {
		t.Errorf("an empty folder: error %v", err)
	}
}
