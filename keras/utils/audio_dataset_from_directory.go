package utils

import (
	"fmt"
	"io"
	"strings"
)

// AudioDatasetOptions are keras.utils.audio_dataset_from_directory's
// arguments; zero values are Keras's defaults.
type AudioDatasetOptions struct {
	// Labels gives each file's label, in the order of the files' sorted
	// paths, instead of Keras's labels="inferred" (from the sub-folder
	// names). NoLabels is Keras's labels=None: batches of audio only.
	Labels   []int
	NoLabels bool
	// LabelMode is "int" (the default when empty), "categorical" or
	// "binary" (exactly 2 classes).
	LabelMode string
	// ClassNames, with inferred labels, chooses the sub-folders and their
	// order (the default: every sub-folder, sorted).
	ClassNames []string
	// BatchSize is the number of files per batch; 0 means Keras's 32.
	BatchSize int
	// OutputSequenceLength cuts every file to its first
	// OutputSequenceLength frames, or pads it with zeros to that length
	// (Keras's output_sequence_length, decode_wav's desired_samples). 0
	// keeps each file whole, and a batch is padded with zeros to its
	// longest file, as Keras's padded_batch does.
	OutputSequenceLength int
	// NoShuffle keeps the files in their sorted order; by default they
	// are shuffled with Seed (NumPy's RandomState(seed).shuffle, Keras's
	// file order) and reshuffled every epoch.
	NoShuffle bool
	Seed      uint32
	// ValidationSplit and Subset ("training" or "validation") keep a
	// fraction of the files for validation; for both at once, use
	// AudioDatasetsFromDirectory.
	ValidationSplit float64
	Subset          string
	FollowLinks     bool
	// Verbose is Silent to print nothing; Log is where Keras's messages
	// go (nil: standard output).
	Verbose int
	Log     io.Writer
}

func (o AudioDatasetOptions) files() directoryIndex {
	return directoryIndex{labels: o.Labels, noLabels: o.NoLabels, labelMode: o.LabelMode, classNames: o.ClassNames,
		batchSize: o.BatchSize, noShuffle: o.NoShuffle, seed: o.Seed, validationSplit: o.ValidationSplit, subset: o.Subset,
		followLinks: o.FollowLinks, verbose: o.Verbose, log: o.Log, isFile: isAudioFile, kind: "audio"}
}

// isAudioFile is Keras's ALLOWED_FORMATS = (".wav",).
func isAudioFile(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".wav") }

// resolve checks the options.
func (o AudioDatasetOptions) resolve() (directoryIndex, error) {
	if o.OutputSequenceLength < 0 {
		return directoryIndex{}, fmt.Errorf("OutputSequenceLength %d: give the number of frames to cut or pad each file to, or 0 to keep them whole", o.OutputSequenceLength)
	}
	return o.files().resolve()
}

// AudioDatasetFromDirectory reads a folder of WAV files as a Dataset for
// Fit, Evaluate and Predict (give it as keras.Batches{Dataset: ds}), as
// keras.utils.audio_dataset_from_directory does. With labels inferred
// (the default), each sub-folder is a class:
//
//	main_directory/
//	    class_a/  a_audio_1.wav  a_audio_2.wav ...
//	    class_b/  b_audio_1.wav  b_audio_2.wav ...
//
// Batches hold audio of shape (batch, frames, channels), each sample in
// [-1, 1) as TensorFlow's decode_wav gives it (a 16-bit sample divided by
// 32768), and labels as LabelMode says. The files of a batch must have
// the same number of channels. The files are listed, shuffled and split
// when the Dataset is made and decoded when a batch is loaded.
//
// Keras reads 16-bit PCM files only; kerasgo also reads 8-, 24- and
// 32-bit PCM and 32-bit float files. Keras's sampling_rate (resampling
// through tensorflow-io) and ragged batches are not supported.
func AudioDatasetFromDirectory(dir string, opts AudioDatasetOptions) (*AudioDataset, error) {
	d, err := opts.resolve()
	if err != nil {
		return nil, fmt.Errorf("AudioDatasetFromDirectory: %w", err)
	}
	files, classes, err := d.oneSubset(dir, "AudioDatasetFromDirectory", "audio files", ".wav")
	if err != nil {
		return nil, err
	}
	return newAudioDataset(files, classes, d, opts.OutputSequenceLength, !d.noShuffle), nil
}

// AudioDatasetsFromDirectory is AudioDatasetFromDirectory with Keras's
// subset="both": the training and the validation datasets of one
// ValidationSplit. The validation dataset is not shuffled.
func AudioDatasetsFromDirectory(dir string, opts AudioDatasetOptions) (train, validation *AudioDataset, err error) {
	d, err := opts.resolve()
	if err != nil {
		return nil, nil, fmt.Errorf("AudioDatasetsFromDirectory: %w", err)
	}
	tf, vf, classes, err := d.bothSubsets(dir, "AudioDatasetsFromDirectory", "audio files", ".wav")
	if err != nil {
		return nil, nil, err
	}
	return newAudioDataset(tf, classes, d, opts.OutputSequenceLength, !d.noShuffle), newAudioDataset(vf, classes, d, opts.OutputSequenceLength, false), nil
}
