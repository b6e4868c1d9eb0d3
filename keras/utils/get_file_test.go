package utils_test

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

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
