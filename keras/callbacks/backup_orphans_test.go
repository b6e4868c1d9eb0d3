package callbacks

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Kills left backups the metadata never named, their digests and the
// temporary files of interrupted writes in Dir, which no later run
// removed (11 orphaned backups after a series of kills, issue 39): once a
// later backup succeeds they are deleted, and other files are kept.
func TestBackupRemovesWhatKilledRunsLeft(t *testing.T) {
	dir := t.TempDir()
	orphans := []string{
		"backup-epoch7.weights.h5", "backup-epoch7.weights.h5.sha256",
		"backup-epoch2-batch14.weights.h5",
		"backup-epoch9.weights.h5.sha256",
		".backup-epoch3.weights.h5.tmp-123456", "." + backupMetadata + ".tmp-42",
	}
	kept := []string{"notes.txt", "backup-epoch1.csv"}
	for _, f := range append(slices.Clone(orphans), kept...) {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b := &BackupAndRestore{Dir: dir, KeepBackup: true}
	b.SetModel(&fakeModel{})
	b.OnTrainBegin(Params{Epochs: 1, Steps: 1})
	b.OnEpochBegin(0)
	b.OnEpochEnd(0, nil)
	if b.Err() != nil {
		t.Fatal(b.Err())
	}
	for _, f := range orphans {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s is still there after a later backup succeeded", f)
		}
	}
	for _, f := range append(kept, "backup-epoch0.weights.h5", backupMetadata) {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s was removed: %v", f, err)
		}
	}
}
