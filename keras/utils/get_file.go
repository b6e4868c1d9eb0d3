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

	"github.com/kerasgo/kerasgo/keras"
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
	// A CacheDir given is made if missing and used as it is (Keras falls
	// back to /tmp/.keras when the one it is given is not writable).
	CacheDir string
	// ForceDownload downloads the file even when it is cached.
	ForceDownload bool
	// CacheOnly never downloads: a file missing from the cache, or one
	// that does not match FileHash, is an error.
	CacheOnly bool
	// Client makes the request; nil: http.DefaultClient.
	Client *http.Client
	// Extract extracts the file, a tar (plain, gzip or bzip2) or zip
	// archive, as Keras's extract=True: GetFile then returns the folder
	// of its contents, laid out as Keras lays it out (for fname
	// "data.tar.gz", the archive at data.tar.gz and its contents in
	// data_extracted/; for a name without a dot, the archive at
	// <name>_archive and its contents in <name>/). ArchiveFormat is
	// "auto" (or "": tar, then zip), "tar" or "zip".
	Extract       bool
	ArchiveFormat string
	// Verbose is keras.Silent to print nothing; otherwise a download
	// prints Keras's "Downloading data from ..." and its progress to Log
	// (nil: standard output).
	Verbose int
	Log     io.Writer
}

// GetFile returns the path of a file in Keras's cache, downloading it
// from origin first when it is not there (or, with FileHash, when the
// cached copy does not match), like Keras's keras.utils.get_file. It
// shares Keras's cache: a file Keras downloaded is found here, and the
// other way round. The download goes to a temporary file in the cache
// directory, which is renamed into place once complete and checked, so
// an interrupted or corrupt download never leaves a file at the name.
// fname "" takes the name from origin's path. With Extract, the file is
// an archive, extracted at each call as Keras extracts it.
func GetFile(ctx context.Context, fname, origin string, o GetFileOptions) (string, error) {
	provided := fname != ""
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
	target, extracted := filepath.Join(dir, fname), ""
	if o.Extract { // Keras's layout of an archive and its contents
		if base, _, dotted := strings.Cut(fname, "."); provided && dotted {
			extracted = filepath.Join(dir, base+"_extracted")
		} else {
			target, extracted = filepath.Join(dir, fname+"_archive"), filepath.Join(dir, fname)
		}
	}
	if o.ArchiveFormat != "" && !o.Extract {
		return "", fmt.Errorf("GetFile: ArchiveFormat %q is given without Extract: set Extract to extract the archive", o.ArchiveFormat)
	}
	finish := func(path string) (string, error) {
		if !o.Extract {
			return path, nil
		}
		ok, err := ExtractArchive(path, extracted, o.ArchiveFormat)
		if err != nil {
			return "", fmt.Errorf("GetFile: %w", err)
		}
		if !ok {
			return "", fmt.Errorf("GetFile: %s is not a %s archive, so it cannot be extracted: leave Extract unset to get the file itself", path, map[bool]string{true: "tar or zip", false: o.ArchiveFormat}[o.ArchiveFormat == "" || o.ArchiveFormat == "auto"])
		}
		return extracted, nil
	}
	if !o.ForceDownload {
		if _, err := os.Stat(target); err == nil {
			if o.FileHash == "" {
				return finish(target)
			}
			if sum, err := fileSum(target, hasher()); err == nil && strings.EqualFold(sum, o.FileHash) {
				return finish(target)
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
		return "", fmt.Errorf("GetFile: cannot make the cache folder: %w: give a writable CacheDir (or set KERAS_HOME)", err)
	}
	var progress io.Writer
	if o.Verbose != keras.Silent {
		progress = cmp.Or[io.Writer](o.Log, os.Stdout)
		fmt.Fprintf(progress, "Downloading data from %s\n", origin)
	}
	if err := download(ctx, o.Client, origin, target, hasher, o.FileHash, progress); err != nil {
		return "", err
	}
	return finish(target)
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
func download(ctx context.Context, client *http.Client, origin, target string, hasher func() hash.Hash, want string, progress io.Writer) (err error) {
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
	var body io.Reader = resp.Body
	if progress != nil {
		p := &progressReader{r: resp.Body, total: resp.ContentLength, out: progress}
		defer p.end()
		body = p
	}
	if _, err = io.Copy(io.MultiWriter(tmp, h), body); err != nil {
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

// progressReader prints a download's progress, as Keras's progress bar
// does: bytes so far out of the total, at most every 1% (or every MiB
// when the size is not known), on one line rewritten with \r.
type progressReader struct {
	r           io.Reader
	total       int64 // -1: unknown
	done, shown int64
	out         io.Writer
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done += int64(n)
	step := int64(1 << 20)
	if p.total > 0 {
		step = max(p.total/100, 1)
	}
	if p.done-p.shown >= step {
		p.show()
	}
	return n, err
}

func (p *progressReader) show() {
	p.shown = p.done
	if p.total > 0 {
		fmt.Fprintf(p.out, "\r%d/%d bytes (%d%%)", p.done, p.total, p.done*100/p.total)
	} else {
		fmt.Fprintf(p.out, "\r%d bytes", p.done)
	}
}

// end prints the final count and ends the line.
func (p *progressReader) end() {
	if p.shown != p.done || p.done == 0 {
		p.show()
	}
	fmt.Fprintln(p.out)
}
