package datasets_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kerasgo/kerasgo/datasets"
	"github.com/kerasgo/kerasgo/datasets/californiahousing"
	"github.com/kerasgo/kerasgo/datasets/cifar100"
	"github.com/kerasgo/kerasgo/datasets/imdb"
	"github.com/kerasgo/kerasgo/keras"
)

// A file that is nowhere is an error naming it, the place looked in and
// how to get it; nothing is fetched without Download.
func TestMissingFilesSayWhatToDo(t *testing.T) {
	ctx := context.Background()
	cache := t.TempDir()
	_, _, err := imdb.LoadData(ctx, imdb.Options{Options: datasets.Options{CacheDir: cache}})
	if err == nil || !strings.Contains(err.Error(), "imdb.npz is not in Keras's cache") || !strings.Contains(err.Error(), "Options.Download") {
		t.Errorf("error %v, want it to name imdb.npz and Options.Download", err)
	}
	_, _, err = cifar100.LoadData(ctx, "", datasets.Options{Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "cifar-100-python-target") || !strings.Contains(err.Error(), "Options.Dir") {
		t.Errorf("error %v, want it to name the extraction and Options.Dir", err)
	}
	if _, _, err := cifar100.LoadData(ctx, "medium", datasets.Options{}); err == nil || !strings.Contains(err.Error(), `"fine" or "coarse"`) {
		t.Errorf("error %v, want the label modes", err)
	}
	if _, _, err := californiahousing.LoadData(ctx, californiahousing.Options{Version: "tiny"}); err == nil || !strings.Contains(err.Error(), `"small" or "large"`) {
		t.Errorf("error %v, want the versions", err)
	}
}

// With Download, a missing file is fetched from its origin (a local
// server here) into Keras's cache and checked against its hash; a wrong
// hash leaves nothing in the cache.
func TestDownloadChecksTheHash(t *testing.T) {
	npz, err := os.ReadFile("../internal/npy/testdata/numeric.npz")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(npz)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); w.Write(npz) }))
	defer srv.Close()
	ctx := context.Background()
	cache := t.TempDir()
	o := datasets.Options{CacheDir: cache, Download: true}
	r := datasets.Remote{Name: "numbers.npz", Origin: srv.URL + "/numbers.npz", Hash: hex.EncodeToString(sum[:])}
	train, test, err := datasets.LoadRegression(ctx, o, r, 0.4, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if train.X.Shape[0] != 1 || test.X.Shape[0] != 2 { // int(3 * 0.6) = 1
		t.Errorf("split %v and %v, want 1 and 2 samples", train.X.Shape, test.X.Shape)
	}
	if _, err := os.Stat(filepath.Join(cache, "datasets", "numbers.npz")); err != nil {
		t.Errorf("the download is not in Keras's cache: %v", err)
	}
	bad := r
	bad.Name, bad.Hash = "other.npz", strings.Repeat("0", 64)
	if _, _, err := datasets.LoadRegression(ctx, o, bad, 0.2, 0, 0); err == nil {
		t.Error("a download with the wrong hash gave no error")
	}
	if _, err := os.Stat(filepath.Join(cache, "datasets", "other.npz")); err == nil {
		t.Error("a download with the wrong hash was left in the cache")
	}
	if _, _, err := datasets.LoadRegression(ctx, o, r, 1, 0, 0); err == nil || !strings.Contains(err.Error(), "between 0 and 1") {
		t.Errorf("test split 1: error %v", err)
	}
	// Without Download, a cached file that does not match the hash is an
	// error, and nothing is fetched.
	if err := os.WriteFile(filepath.Join(cache, "datasets", "numbers.npz"), []byte("corrupt"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := hits.Load()
	if _, _, err := datasets.LoadRegression(ctx, datasets.Options{CacheDir: cache}, r, 0.4, 0, 0); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("a corrupt cached file without Download: error %v, want a hash mismatch", err)
	}
	if hits.Load() != before {
		t.Error("a load without Download fetched the file")
	}
}

// An archive entry that would land outside the extraction is refused,
// and nothing is left at the extraction's name.
func TestExtractionRefusesEscapingEntries(t *testing.T) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "../evil", Mode: 0o644, Size: 1, Typeflag: tar.TypeReg})
	tw.Write([]byte("x"))
	tw.Close()
	gz.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "thing_archive"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := datasets.Options{Dir: dir}.Extracted(context.Background(), datasets.Remote{Name: "thing"})
	if err == nil || !strings.Contains(err.Error(), "outside the extraction directory") {
		t.Errorf("error %v, want the escaping entry refused", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "thing")); err == nil {
		t.Error("a failed extraction left its directory")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "evil")); err == nil {
		t.Error("the escaping entry was written")
	}
}

func ExampleShuffleSplit() {
	x := keras.Array{Shape: []int{5, 1}, Data: []float32{0, 1, 2, 3, 4}}
	y := keras.Array{Shape: []int{5}, Data: []float32{0, 10, 20, 30, 40}}
	train, test, err := datasets.ShuffleSplit(x, y, 0.4, 113) // NumPy's RandomState(113).shuffle gives 1 0 3 2 4, as Keras shuffles
	if err != nil {
		panic(err)
	}
	fmt.Println(train.X.Data, train.Y.Data, test.X.Data)
	// Output:
	// [1 0 3] [10 0 30] [2 4]
}
