package utils

import (
	"context"
	"fmt"
	"os"

	"github.com/kerasgo/kerasgo/internal/wav"
	"github.com/kerasgo/kerasgo/keras"
)

// AudioDataset is a folder of WAV files as a Dataset, made by
// AudioDatasetFromDirectory: batch i decodes its files when it is
// loaded. It is safe for the concurrent Batch calls of several loader
// goroutines.
type AudioDataset struct {
	// ClassNames are the classes in label order (the sub-folders' names,
	// or the distinct Labels); nil with NoLabels.
	ClassNames []string
	// FilePaths are the WAV files in the dataset's first order.
	FilePaths []string

	length int // OutputSequenceLength
	files  *fileOrder
}

func newAudioDataset(f filesOf, classes []string, d directoryIndex, length int, shuffle bool) *AudioDataset {
	a := &AudioDataset{ClassNames: classes, FilePaths: f.paths, length: length, files: newFileOrder(len(f.paths), f.labels, len(classes), d, shuffle)}
	if d.noLabels {
		a.ClassNames = nil
	}
	return a
}

// Len is the number of batches.
func (d *AudioDataset) Len() int { return d.files.batches() }

// Batch decodes the files of batch i (and makes their labels): X holds
// floats of shape (batch, frames, channels), each file cut or padded with
// zeros to OutputSequenceLength frames, or without it padded to the
// batch's longest file. A file that cannot be read or decoded, or whose
// channels differ from the batch's first file's, is an error that names
// it.
func (d *AudioDataset) Batch(ctx context.Context, i int) (keras.Batch, error) {
	files, err := d.files.batchFiles(i, "AudioDataset")
	if err != nil {
		return keras.Batch{}, err
	}
	clips := make([]wav.Audio, len(files))
	frames := d.length
	for k, f := range files {
		if err := ctx.Err(); err != nil {
			return keras.Batch{}, err
		}
		data, err := os.ReadFile(d.FilePaths[f])
		if err != nil {
			return keras.Batch{}, fmt.Errorf("reading an audio file: %w", err)
		}
		if clips[k], err = wav.Decode(data); err != nil {
			return keras.Batch{}, fmt.Errorf("%s: %w: remove or replace the file", d.FilePaths[f], err)
		}
		if clips[k].Channels != clips[0].Channels {
			return keras.Batch{}, fmt.Errorf("%s has %d channels and %s, in the same batch, has %d: the files of a dataset need the same number of channels", d.FilePaths[f], clips[k].Channels, d.FilePaths[files[0]], clips[0].Channels)
		}
		if d.length == 0 {
			frames = max(frames, clips[k].Frames)
		}
	}
	c := clips[0].Channels
	x := keras.Array{Shape: []int{len(files), frames, c}, Data: make([]float32, len(files)*frames*c)}
	for k, clip := range clips {
		copy(x.Data[k*frames*c:(k+1)*frames*c], clip.Samples)
	}
	if d.files.labels == nil {
		return keras.Batch{X: x}, nil
	}
	return keras.Batch{X: x, Y: d.files.labelArray(files)}, nil
}

// OnEpochEnd reshuffles the files for the next epoch (unless NoShuffle).
func (d *AudioDataset) OnEpochEnd() { d.files.reshuffle() }
