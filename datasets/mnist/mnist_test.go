package mnist

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// encodeIDX writes an unsigned-byte IDX file.
func encodeIDX(dims []int, data []byte) []byte {
	var b bytes.Buffer
	b.Write([]byte{0, 0, 0x08, byte(len(dims))})
	for _, d := range dims {
		binary.Write(&b, binary.BigEndian, uint32(d))
	}
	b.Write(data)
	return b.Bytes()
}

func gz(data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

func TestReadIDXRawAndGzip(t *testing.T) {
	data := []byte{1, 2, 3, 4, 5, 6}
	for name, file := range map[string][]byte{"raw": encodeIDX([]int{2, 3}, data), "gzip": gz(encodeIDX([]int{2, 3}, data))} {
		idx, err := ReadIDX(bytes.NewReader(file))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(idx.Dims) != 2 || idx.Dims[0] != 2 || idx.Dims[1] != 3 || !bytes.Equal(idx.Data, data) {
			t.Errorf("%s: got %v %v", name, idx.Dims, idx.Data)
		}
	}
}

func TestReadIDXRejectsBadFiles(t *testing.T) {
	good := encodeIDX([]int{2, 3}, []byte{1, 2, 3, 4, 5, 6})
	huge := encodeIDX([]int{1 << 20, 1 << 20}, nil)
	cases := map[string][]byte{
		"empty":           {},
		"short header":    good[:3],
		"bad magic":       append([]byte{1}, good[1:]...),
		"float type":      append([]byte{0, 0, 0x0d}, good[3:]...),
		"zero dims":       {0, 0, 8, 0},
		"truncated dims":  good[:6],
		"truncated data":  good[:len(good)-1],
		"trailing data":   append(append([]byte{}, good...), 9),
		"huge header":     huge,
		"gzip truncated":  gz(good)[:20],
		"gzip of garbage": gz([]byte("hello")),
	}
	for name, file := range cases {
		_, err := ReadIDX(bytes.NewReader(file))
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: error = %v, want ErrFormat", name, err)
		}
	}
}

func FuzzReadIDX(f *testing.F) {
	f.Add(encodeIDX([]int{2, 3}, []byte{1, 2, 3, 4, 5, 6}))
	f.Add(gz(encodeIDX([]int{1, 2, 2}, []byte{1, 2, 3, 4})))
	f.Add([]byte{0, 0, 8, 1, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, file []byte) {
		idx, err := ReadIDX(bytes.NewReader(file))
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error does not wrap ErrFormat: %v", err)
			}
			return
		}
		n := 1
		for _, d := range idx.Dims {
			n *= d
		}
		if n != len(idx.Data) {
			t.Fatalf("dims %v but %d values", idx.Dims, len(idx.Data))
		}
	})
}

// writeDataset writes a tiny MNIST-shaped dataset (gzip) into dir.
func writeDataset(t *testing.T, dir string, labels []byte) {
	t.Helper()
	n := len(labels)
	img := make([]byte, n*2*2)
	for i := range img {
		img[i] = byte(i * 40)
	}
	files := map[string][]byte{
		"train-images-idx3-ubyte.gz": gz(encodeIDX([]int{n, 2, 2}, img)),
		"train-labels-idx1-ubyte.gz": gz(encodeIDX([]int{n}, labels)),
		"t10k-images-idx3-ubyte":     encodeIDX([]int{n, 2, 2}, img),
		"t10k-labels-idx1-ubyte":     encodeIDX([]int{n}, labels),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadFromDir(t *testing.T) {
	dir := t.TempDir()
	writeDataset(t, dir, []byte{3, 1, 4})
	ds, err := Load(context.Background(), "mnist", Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Train.Count != 3 || ds.Test.Rows != 2 || ds.Source != dir {
		t.Errorf("got %+v", ds)
	}
	if got := ds.Train.ImagesFloat32()[1]; got != 40.0/255 {
		t.Errorf("scaled pixel = %v, want %v", got, 40.0/255)
	}
	if got := ds.Train.LabelsFloat32(); got[2] != 4 {
		t.Errorf("labels = %v", got)
	}
}

func TestLoadRejectsBadLabelsAndMissingFiles(t *testing.T) {
	dir := t.TempDir()
	writeDataset(t, dir, []byte{3, 12, 4})
	if _, err := Load(context.Background(), "mnist", Options{Dir: dir}); !errors.Is(err, ErrFormat) {
		t.Errorf("label 12: error = %v, want ErrFormat", err)
	}
	if _, err := Load(context.Background(), "mnist", Options{Dir: t.TempDir()}); !errors.Is(err, ErrNotFound) {
		t.Errorf("empty dir: error = %v, want ErrNotFound", err)
	}
	if _, err := Load(context.Background(), "cifar", Options{}); err == nil {
		t.Error("unknown dataset: no error")
	}
}

func TestFetchChecksAndWritesAtomically(t *testing.T) {
	payload := []byte("the archive")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(payload) }))
	defer srv.Close()
	sum := sha256.Sum256(payload)
	dir := t.TempDir()
	dest := filepath.Join(dir, "f.gz")
	if err := fetch(context.Background(), srv.URL, dest, hex.EncodeToString(sum[:]), time.Minute); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(dest); !bytes.Equal(got, payload) {
		t.Errorf("wrote %q", got)
	}
	bad := filepath.Join(dir, "bad.gz")
	if err := fetch(context.Background(), srv.URL, bad, "00", time.Minute); err == nil {
		t.Fatal("wrong checksum accepted")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("a failed download left files behind: %v", entries)
	}
}

func TestLoadFashionFromDebianPackage(t *testing.T) {
	if _, err := os.Stat(specs["fashion"].system); err != nil {
		t.Skip("Debian's dataset-fashion-mnist is not installed")
	}
	t.Setenv("KERASGO_DATA", t.TempDir()) // an empty cache: the system copy must be found
	ds, err := Load(context.Background(), "fashion", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Train.Count != 60000 || ds.Test.Count != 10000 || ds.Train.Rows != 28 || ds.Source != specs["fashion"].system {
		t.Errorf("got %d/%d images of %dx%d from %s", ds.Train.Count, ds.Test.Count, ds.Train.Rows, ds.Train.Cols, ds.Source)
	}
}
