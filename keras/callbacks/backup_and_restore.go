package callbacks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kerasgo/kerasgo/keras/saving"
)

// BackupAndRestore lets an interrupted Fit resume, like
// keras.callbacks.BackupAndRestore: it backs up the weights, the
// optimizer's state and the position in training into Dir at the end of
// every epoch (and every SaveFreq batches when SaveFreq > 0); a Fit started
// again with the same callback (after a crash, a kill or a preemption)
// restores them and continues where the backup was taken, with the same
// shuffling order (from FitOptions.Seed) and the same dropout masks (they
// depend on the seed and the step number only). When training completes
// the backup is deleted, unless KeepBackup is set.
//
// Each backup is a Keras .weights.h5 file written atomically, and a small
// metadata file naming it is replaced atomically afterwards: whenever the
// process dies, the metadata names a complete backup.
//
// Unlike Keras 3, which restarts an interrupted epoch from its first batch
// (with the weights of the backup), a backup taken after batch k resumes
// at batch k+1, and the epoch's logs count the batches before it; and with
// SaveFreq set, the end of each epoch is backed up too.
type BackupAndRestore struct {
	Base
	Dir string
	// SaveFreq, when positive, backs up every SaveFreq training batches
	// as well (Keras's save_freq=N); 0 is Keras's save_freq="epoch".
	SaveFreq   int
	KeepBackup bool // Keras's delete_checkpoint=False
	err        error
	epoch      int // the epoch in progress
	sinceSave  int // batches since the last backup
	steps      int // batches per epoch
}

// NewBackupAndRestore returns the callback backing up into dir.
func NewBackupAndRestore(dir string) *BackupAndRestore { return &BackupAndRestore{Dir: dir} }

const backupMetadata = "training_metadata.json"

// backupState says where training resumes: at Batch (from 0) of Epoch
// (from 0), the batches before it having produced the running Logs.
type backupState struct {
	Epoch   int            `json:"epoch"`
	Batch   int            `json:"batch"`
	Logs    map[string]any `json:"logs,omitempty"`
	Weights string         `json:"weights"` // file name in Dir
}

// Err reports a backup that could not be written or restored.
func (b *BackupAndRestore) Err() error { return b.err }

// OnTrainBegin restores the last backup, if there is one.
func (b *BackupAndRestore) OnTrainBegin(p Params) {
	b.err, b.sinceSave, b.steps = nil, 0, p.Steps
	if b.SaveFreq < 0 {
		b.fail(fmt.Errorf("SaveFreq must be 0 (every epoch) or a positive number of batches, got %d", b.SaveFreq))
		return
	}
	data, err := os.ReadFile(filepath.Join(b.Dir, backupMetadata))
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		b.fail(err)
		return
	}
	var st backupState
	if err := json.Unmarshal(data, &st); err != nil || st.Weights == "" || filepath.Base(st.Weights) != st.Weights || st.Epoch < 0 || st.Batch < 0 {
		b.fail(fmt.Errorf("%s is corrupt (%v): delete %s to start afresh", backupMetadata, err, b.Dir))
		return
	}
	logs, err := logsFromJSON(st.Logs)
	if err != nil {
		b.fail(fmt.Errorf("%s is corrupt (%v): delete %s to start afresh", backupMetadata, err, b.Dir))
		return
	}
	if err := b.Model().LoadWeights(filepath.Join(b.Dir, st.Weights)); err != nil {
		b.fail(fmt.Errorf("restoring the backup: %w (delete %s to start afresh)", err, b.Dir))
		return
	}
	b.Model().ResumeAt(st.Epoch, st.Batch, logs)
}

// OnEpochBegin notes the epoch in progress.
func (b *BackupAndRestore) OnEpochBegin(epoch int) { b.epoch = epoch }

// OnTrainBatchEnd backs up every SaveFreq batches.
func (b *BackupAndRestore) OnTrainBatchEnd(batch int, logs Logs) {
	if b.SaveFreq <= 0 {
		return
	}
	if b.sinceSave++; b.sinceSave >= b.SaveFreq {
		b.sinceSave = 0
		b.backup(backupState{Epoch: b.epoch, Batch: batch + 1, Logs: logsToJSON(logs)}, fmt.Sprintf("backup-epoch%d-batch%d.weights.h5", b.epoch, batch+1))
	}
}

// OnEpochEnd backs up the epoch's weights and optimizer state.
func (b *BackupAndRestore) OnEpochEnd(epoch int, _ Logs) {
	b.backup(backupState{Epoch: epoch + 1}, fmt.Sprintf("backup-epoch%d.weights.h5", epoch))
}

// backup writes the weights to Dir/name, then the metadata naming them,
// then deletes the backup it replaces.
func (b *BackupAndRestore) backup(st backupState, name string) {
	if b.err != nil || !b.Model().IsChief() { // rank 0 backs up a data-parallel job
		return
	}
	if err := os.MkdirAll(b.Dir, 0o755); err != nil {
		b.fail(err)
		return
	}
	if err := b.Model().SaveWeights(filepath.Join(b.Dir, name)); err != nil {
		b.fail(err)
		return
	}
	prev, _ := os.ReadFile(filepath.Join(b.Dir, backupMetadata))
	st.Weights = name
	meta, err := json.Marshal(st)
	if err == nil {
		err = saving.WriteAtomic(filepath.Join(b.Dir, backupMetadata), func(w io.Writer) error {
			_, err := w.Write(meta)
			return err
		})
	}
	if err != nil {
		b.fail(err)
		return
	}
	var old backupState
	if json.Unmarshal(prev, &old) == nil && old.Weights != "" && old.Weights != name && filepath.Base(old.Weights) == old.Weights {
		os.Remove(filepath.Join(b.Dir, old.Weights))
		os.Remove(filepath.Join(b.Dir, old.Weights+saving.DigestSuffix))
	}
	b.removeOrphans(name)
}

// removeOrphans deletes, once the backup keep is complete and named by
// the metadata, what killed runs left in Dir: backups that a kill stopped
// before the metadata named them, their digests, and the temporary files
// of interrupted writes. Files of other names in Dir are kept.
func (b *BackupAndRestore) removeOrphans(keep string) {
	for _, pattern := range []string{"backup-epoch*.weights.h5", "backup-epoch*.weights.h5" + saving.DigestSuffix} {
		found, _ := filepath.Glob(filepath.Join(b.Dir, pattern))
		for _, f := range found {
			if base := filepath.Base(f); base != keep && base != keep+saving.DigestSuffix {
				os.Remove(f)
			}
		}
	}
	saving.RemoveAbandonedTemps(b.Dir, func(name string) bool {
		return name == backupMetadata || strings.HasPrefix(name, "backup-epoch") && strings.Contains(name, ".weights.h5")
	})
}

// logsToJSON keeps the logs' order-free values; NaN and infinities, which
// JSON cannot hold, are written as strings.
func logsToJSON(logs Logs) map[string]any {
	out := make(map[string]any, len(logs))
	for _, l := range logs {
		if math.IsNaN(l.Value) || math.IsInf(l.Value, 0) {
			out[l.Name] = strconv.FormatFloat(l.Value, 'g', -1, 64)
		} else {
			out[l.Name] = l.Value
		}
	}
	return out
}

func logsFromJSON(m map[string]any) (Logs, error) {
	var logs Logs
	for name, v := range m {
		switch x := v.(type) {
		case float64:
			logs = append(logs, Log{Name: name, Value: x})
		case string:
			f, err := strconv.ParseFloat(x, 64)
			if err != nil {
				return nil, fmt.Errorf("log %q: %w", name, err)
			}
			logs = append(logs, Log{Name: name, Value: f})
		default:
			return nil, fmt.Errorf("log %q is %v, not a number", name, v)
		}
	}
	return logs, nil
}

// OnTrainEnd deletes the backup of a completed run: its own files, and
// Dir if nothing else is left in it (unlike Keras, which deletes the whole
// directory, other files there are kept).
func (b *BackupAndRestore) OnTrainEnd(Logs) {
	if b.err != nil || b.KeepBackup || !b.Model().IsChief() {
		return
	}
	var files []string
	// Backups, and the temporary files of a write a kill interrupted.
	for _, pattern := range []string{"backup-epoch*.weights.h5", "backup-epoch*.weights.h5" + saving.DigestSuffix, ".backup-epoch*.weights.h5*.tmp-*", "." + backupMetadata + ".tmp-*"} {
		found, _ := filepath.Glob(filepath.Join(b.Dir, pattern))
		files = append(files, found...)
	}
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
