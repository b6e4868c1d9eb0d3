package utils_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/utils"
)

// GetFile downloads into Keras's cache ($KERAS_HOME/<subdir>) once,
// checks the hash, finds the cached file afterwards without the network,
// downloads again a cached file that no longer matches, and deletes a
// download that does not match, leaving nothing at the name. Tested
// against a local HTTP server only.
func TestGetFile(t *testing.T) {
	body := []byte("class index")
	sum := md5.Sum(body)
	good := hex.EncodeToString(sum[:])
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.URL.Path == "/missing.json" {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	defer srv.Close()
	home := t.TempDir()
	t.Setenv("KERAS_HOME", home)
	ctx := context.Background()

	p, err := utils.GetFile(ctx, "", srv.URL+"/data/imagenet_class_index.json", utils.GetFileOptions{FileHash: good, CacheSubdir: "models"})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, "models", "imagenet_class_index.json"); p != want {
		t.Fatalf("path %s, want %s", p, want)
	}
	if data, _ := os.ReadFile(p); string(data) != string(body) {
		t.Fatalf("the file holds %q", data)
	}
	n := requests.Load()
	if _, err := utils.GetFile(ctx, "imagenet_class_index.json", srv.URL+"/data/imagenet_class_index.json", utils.GetFileOptions{FileHash: good, CacheSubdir: "models"}); err != nil || requests.Load() != n {
		t.Fatalf("cached file: %v, %d more requests", err, requests.Load()-n)
	}
	if err := os.WriteFile(p, []byte("truncated"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := utils.GetFile(ctx, "imagenet_class_index.json", srv.URL+"/data/imagenet_class_index.json", utils.GetFileOptions{FileHash: good, CacheSubdir: "models"}); err != nil || requests.Load() != n+1 {
		t.Fatalf("a cached file that does not match: %v, %d more requests (want it downloaded again)", err, requests.Load()-n)
	}
	if data, _ := os.ReadFile(p); string(data) != string(body) {
		t.Fatalf("after downloading again the file holds %q", data)
	}

	bad := strings.Repeat("0", 32)
	_, err = utils.GetFile(ctx, "other.json", srv.URL+"/other.json", utils.GetFileOptions{FileHash: bad})
	if err == nil || !strings.Contains(err.Error(), "has the hash "+good+", not "+bad+": it was deleted") {
		t.Fatalf("wrong hash: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(home, "datasets"))
	if len(entries) != 0 {
		t.Fatalf("a download with the wrong hash left %v", entries)
	}
	if _, err := utils.GetFile(ctx, "", srv.URL+"/missing.json", utils.GetFileOptions{}); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("a missing file: %v", err)
	}
	if _, err := utils.GetFile(ctx, "../x", srv.URL+"/x", utils.GetFileOptions{}); err == nil || !strings.Contains(err.Error(), "must be a file name") {
		t.Fatalf("a path as fname: %v", err)
	}
}

// archives returns a .tar.gz and a .zip holding d/a.txt ("hi\n"), and a
// zip whose entry climbs out of its folder.
func archives(t *testing.T) (tgz, zipped, escaping []byte) {
	t.Helper()
	var tb bytes.Buffer
	gz := gzip.NewWriter(&tb)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "d/", Typeflag: tar.TypeDir, Mode: 0o755})
	tw.WriteHeader(&tar.Header{Name: "d/a.txt", Typeflag: tar.TypeReg, Mode: 0o644, Size: 3})
	tw.Write([]byte("hi\n"))
	tw.Close()
	gz.Close()
	zipOf := func(name string) []byte {
		var zb bytes.Buffer
		zw := zip.NewWriter(&zb)
		w, _ := zw.Create(name)
		w.Write([]byte("hi\n"))
		zw.Close()
		return zb.Bytes()
	}
	return tb.Bytes(), zipOf("d/a.txt"), zipOf("../evil.txt")
}

// With Extract, GetFile lays out the archive and its contents as Keras's
// get_file(extract=True) does (the paths Keras 3.15.1 gave for the same
// three calls), and refuses what it cannot extract safely.
func TestGetFileExtracts(t *testing.T) {
	tgz, zipped, escaping := archives(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/data.tar.gz":
			w.Write(tgz)
		case "/pack.zip":
			w.Write(zipped)
		case "/evil.zip":
			w.Write(escaping)
		default:
			w.Write([]byte("plain text"))
		}
	}))
	defer srv.Close()
	cache := t.TempDir()
	ctx := context.Background()
	for _, c := range []struct{ fname, origin, dir, archive string }{
		{"data.tar.gz", "/data.tar.gz", "data_extracted", "data.tar.gz"},
		{"mydata", "/data.tar.gz", "mydata", "mydata_archive"},
		{"", "/pack.zip", "pack.zip", "pack.zip_archive"},
	} {
		got, err := utils.GetFile(ctx, c.fname, srv.URL+c.origin, utils.GetFileOptions{CacheDir: cache, Extract: true, Verbose: keras.Silent})
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(cache, "datasets", c.dir); got != want {
			t.Errorf("GetFile(%q, extract): %s, Keras gives %s", c.fname, got, want)
		}
		if data, err := os.ReadFile(filepath.Join(got, "d", "a.txt")); err != nil || string(data) != "hi\n" {
			t.Errorf("GetFile(%q, extract): d/a.txt holds %q (%v)", c.fname, data, err)
		}
		if _, err := os.Stat(filepath.Join(cache, "datasets", c.archive)); err != nil {
			t.Errorf("GetFile(%q, extract): the archive is not at %s: %v", c.fname, c.archive, err)
		}
	}
	if _, err := utils.GetFile(ctx, "evil.zip", srv.URL+"/evil.zip", utils.GetFileOptions{CacheDir: cache, Extract: true, Verbose: keras.Silent}); err == nil || !strings.Contains(err.Error(), "outside the extraction directory") {
		t.Errorf("an entry outside the folder: error %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(cache), "evil.txt")); err == nil {
		t.Error("the escaping entry was written")
	}
	if _, err := os.Stat(filepath.Join(cache, "datasets", "evil_extracted")); err == nil {
		t.Error("a failed extraction left its folder")
	}
	if _, err := utils.GetFile(ctx, "notes.txt", srv.URL+"/notes.txt", utils.GetFileOptions{CacheDir: cache, Extract: true, Verbose: keras.Silent}); err == nil || !strings.Contains(err.Error(), "is not a tar or zip archive") {
		t.Errorf("a text file with Extract: error %v", err)
	}
	var log bytes.Buffer
	if _, err := utils.GetFile(ctx, "again.tar.gz", srv.URL+"/data.tar.gz", utils.GetFileOptions{CacheDir: cache, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("Downloading data from %s/data.tar.gz\n", srv.URL); !strings.HasPrefix(log.String(), want) || !strings.Contains(log.String(), fmt.Sprintf("%d bytes", len(tgz))) {
		t.Errorf("the download printed %q, want Keras's %q and the bytes", log.String(), want)
	}
}
