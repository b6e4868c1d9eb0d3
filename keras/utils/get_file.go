package utils

import (
	"cmp"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// GetFileOptions are the arguments of Keras's get_file beside the file's
// name and origin.
type GetFileOptions struct {
	// FileHash is the file's expected hash, hex encoded: a cached file
	// that does not match is downloaded again, and a download that does
	// not match is deleted and an error. Empty: not checked.
	FileHash string
	// HashAlgorithm is "md5", "sha256", or "" (Keras's "auto": sha256 for
	// a 64-digit hash, md5 otherwise).
	HashAlgorithm string
	// CacheSubdir is the directory under the cache that holds the file;
	// default "datasets", as Keras's.
	CacheSubdir string
	// CacheDir is the cache; default $KERAS_HOME, else ~/.keras (else
	// /tmp/.keras where the home directory is not writable), as Keras's.
	CacheDir string
	// ForceDownload downloads the file even when it is cached.
	ForceDownload bool
	// CacheOnly never downloads: a file missing from the cache, or one
	// that does not match FileHash, is an error.
	CacheOnly bool
	// Client makes the request; nil: http.DefaultClient.
	Client *http.Client
}

// GetFile returns the path of a file in Keras's cache, downloading it
// from origin first when it is not there (or, with FileHash, when the
// cached copy does not match), like Keras's keras.utils.get_file. It
// shares Keras's cache: a file Keras downloaded is found here, and the
// other way round. The download goes to a temporary file in the cache
// directory, which is renamed into place once complete and checked, so
// an interrupted or corrupt download never leaves a file at the name.
// fname "" takes the name from origin's path. Archives are not extracted
// (Keras's extract and untar).
func GetFile(ctx context.Context, fname, origin string, o GetFileOptions) (string, error) {
	if fname == "" {
		u, err := url.Parse(origin)
		if err != nil || path.Base(u.Path) == "/" || path.Base(u.Path) == "." {
			return "", fmt.Errorf("GetFile: cannot take the file's name from the origin %q: give fname", origin)
		}
		fname = path.Base(u.Path)
	}
	if strings.ContainsAny(fname, `/\`) || fname == "." || fname == ".." {
		return "", fmt.Errorf("GetFile: fname %q must be a file name, not a path: give the directory as CacheDir or CacheSubdir", fname)
	}
	hasher, err := fileHasher(o.HashAlgorithm, o.FileHash)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(CacheDir(o.CacheDir), cmp.Or(o.CacheSubdir, "datasets"))
	target := filepath.Join(dir, fname)
	if !o.ForceDownload {
		if _, err := os.Stat(target); err == nil {
			if o.FileHash == "" {
				return target, nil
			}
			if sum, err := fileSum(target, hasher()); err == nil && strings.EqualFold(sum, o.FileHash) {
				return target, nil
			}
			// Keras: "A local file was found, but it seems to be incomplete
			// or outdated": downloaded again.
		}
	}
	if o.CacheOnly {
		return "", fmt.Errorf("GetFile: %s is not in the cache, or does not match its hash %s, and CacheOnly forbids downloading it from %s", target, o.FileHash, origin)
	}
	if origin == "" {
		return "", fmt.Errorf("GetFile: %s is not in the cache and no origin was given to download it from", target)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("GetFile: %w", err)
	}
	if err := download(ctx, o.Client, origin, target, hasher, o.FileHash); err != nil {
		return "", err
	}
	return target, nil
}

// CacheDir returns Keras's cache directory for dir "": $KERAS_HOME, else
// ~/.keras, else /tmp/.keras where the home directory is not writable
// (Keras's keras_home and get_file); dir itself otherwise.
func CacheDir(dir string) string {
	if dir != "" {
		return dir
	}
	if h := os.Getenv("KERAS_HOME"); h != "" {
		return h
	}
	home, err := os.UserHomeDir()
	if st, serr := os.Stat(filepath.Join(home, ".keras")); err == nil && serr == nil && st.IsDir() {
		return filepath.Join(home, ".keras")
	}
	if err == nil && writable(home) {
		return filepath.Join(home, ".keras")
	}
	return filepath.Join(os.TempDir(), ".keras")
}

// writable reports whether a file can be created in dir (Keras's
// os.access(dir, os.W_OK)), by creating and removing one.
func writable(dir string) bool {
	f, err := os.CreateTemp(dir, ".kerasgo-probe-*")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}

// fileHasher returns the hash the algorithm names, as Keras's
// resolve_hasher: "auto" (or "") is sha256 for a 64-digit hash, else md5.
func fileHasher(algorithm, fileHash string) (func() hash.Hash, error) {
	switch algorithm {
	case "sha256":
		return sha256.New, nil
	case "md5":
		return md5.New, nil
	case "", "auto":
		if len(fileHash) == 64 {
			return sha256.New, nil
		}
		return md5.New, nil
	}
	return nil, fmt.Errorf("GetFile: HashAlgorithm %q: want \"md5\", \"sha256\" or \"auto\"", algorithm)
}

func fileSum(p string, h hash.Hash) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// download fetches origin into target through a temporary file beside it,
// checked against want (when not empty) before it is renamed into place.
func download(ctx context.Context, client *http.Client, origin, target string, hasher func() hash.Hash, want string) (err error) {
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, origin, nil)
	if err != nil {
		return fmt.Errorf("GetFile: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("GetFile: downloading %s: %w", origin, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GetFile: downloading %s: %s", origin, resp.Status)
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".part-*")
	if err != nil {
		return fmt.Errorf("GetFile: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	h := hasher()
	if _, err = io.Copy(io.MultiWriter(tmp, h), resp.Body); err != nil {
		return fmt.Errorf("GetFile: downloading %s: %w", origin, err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); want != "" && !strings.EqualFold(sum, want) {
		return fmt.Errorf("GetFile: the file downloaded from %s has the hash %s, not %s: it was deleted (the download was corrupted, or the file on the server is not the one expected)", origin, sum, strings.ToLower(want))
	}
	if err = tmp.Sync(); err == nil {
		err = tmp.Close()
	}
	if err == nil {
		err = os.Rename(tmp.Name(), target)
	}
	if err != nil {
		return fmt.Errorf("GetFile: %w", err)
	}
	return nil
}
