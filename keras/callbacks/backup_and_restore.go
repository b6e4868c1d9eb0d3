package callbacks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kerasgo/kerasgo/keras/saving"
)

// BackupAndRestore lets an interrupted Fit resume, like
// keras.callbacks.BackupAndRestore: at the end of every epoch it backs up
// the weights and the optimizer's state into Dir; a Fit started again with
// the same callback (after a crash, a kill or a preemption) restores them
// and continues from the next epoch, with the same shuffling order (from
// FitOptions.Seed). When training completes the backup is deleted, unless
// KeepBackup is set.
//
// Each backup is a Keras .weights.h5 file written atomically, and a small
// metadata file naming it is replaced atomically afterwards: whenever the
// process dies, the metadata names a complete backup.
//
// Dropout masks after a resume are not those of an uninterrupted run (the
// engines' random generators are not saved); without dropout the resumed
// run reproduces the uninterrupted one.
type BackupAndRestore struct {
	Base
	Dir        string
	KeepBackup bool // Keras's delete_checkpoint=False
	err        error
}

// NewBackupAndRestore returns the callback backing up into dir.
func NewBackupAndRestore(dir string) *BackupAndRestore { return &BackupAndRestore{Dir: dir} }

const backupMetadata = "training_metadata.json"

type backupState struct {
	Epoch   int    `json:"epoch"`   // the last completed epoch, from 0
	Weights string `json:"weights"` // file name in Dir
}

// Err reports a backup that could not be written or restored.
func (b *BackupAndRestore) Err() error { return b.err }

// OnTrainBegin restores the last backup, if there is one.
func (b *BackupAndRestore) OnTrainBegin(Params) {
	b.err = nil
	data, err := os.ReadFile(filepath.Join(b.Dir, backupMetadata))
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		b.fail(err)
		return
	}
	var st backupState
	if err := json.Unmarshal(data, &st); err != nil || st.Weights == "" || filepath.Base(st.Weights) != st.Weights || st.Epoch < 0 {
		b.fail(fmt.Errorf("%s is corrupt (%v): delete %s to start afresh", backupMetadata, err, b.Dir))
		return
	}
	if err := b.Model().LoadWeights(filepath.Join(b.Dir, st.Weights)); err != nil {
		b.fail(fmt.Errorf("restoring the backup: %w (delete %s to start afresh)", err, b.Dir))
		return
	}
	b.Model().SetInitialEpoch(st.Epoch + 1)
}

// OnEpochEnd backs up the epoch's weights and optimizer state.
func (b *BackupAndRestore) OnEpochEnd(epoch int, _ Logs) {
	if b.err != nil {
		return
	}
	if err := os.MkdirAll(b.Dir, 0o755); err != nil {
		b.fail(err)
		return
	}
	name := fmt.Sprintf("backup-epoch%d.weights.h5", epoch)
	if err := b.Model().SaveWeights(filepath.Join(b.Dir, name)); err != nil {
		b.fail(err)
		return
	}
	prev, _ := os.ReadFile(filepath.Join(b.Dir, backupMetadata))
	meta, _ := json.Marshal(backupState{Epoch: epoch, Weights: name})
	err := saving.WriteAtomic(filepath.Join(b.Dir, backupMetadata), func(w io.Writer) error {
		_, err := w.Write(meta)
		return err
	})
	if err != nil {
		b.fail(err)
		return
	}
	var old backupState
	if json.Unmarshal(prev, &old) == nil && old.Weights != "" && old.Weights != name && filepath.Base(old.Weights) == old.Weights {
		os.Remove(filepath.Join(b.Dir, old.Weights))
	}
}

// OnTrainEnd deletes the backup of a completed run: its own files, and
// Dir if nothing else is left in it (unlike Keras, which deletes the whole
// directory, other files there are kept).
func (b *BackupAndRestore) OnTrainEnd(Logs) {
	if b.err != nil || b.KeepBackup {
		return
	}
	files, _ := filepath.Glob(filepath.Join(b.Dir, "backup-epoch*.weights.h5"))
	files = append(files, filepath.Join(b.Dir, backupMetadata))
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			b.fail(err)
			return
		}
	}
	os.Remove(b.Dir) // only succeeds when empty
}

func (b *BackupAndRestore) fail(err error) {
	if b.err == nil {
		b.err = fmt.Errorf("BackupAndRestore %s: %w", b.Dir, err)
		if m := b.Model(); m != nil {
			m.StopTraining()
		}
	}
}
