package mnist

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Split is one half of a dataset: Count images of Rows x Cols bytes, and
// one label (0-9) per image.
type Split struct {
	Images     []byte
	Labels     []byte
	Count      int
	Rows, Cols int
}

// Dataset is a loaded MNIST-style dataset.
type Dataset struct {
	Name   string // "mnist" or "fashion"
	Title  string // "MNIST" or "Fashion-MNIST"
	Source string // the directory the files came from
	Train  Split
	Test   Split
}

// Options say where Load may look.
type Options struct {
	// Dir, if set, is the only place looked in.
	Dir string
	// Download allows fetching from the canonical mirrors into the cache
	// when no local copy is found.
	Download bool
	// Timeout bounds each download; default 60s.
	Timeout time.Duration
}

type file struct {
	name   string // without .gz
	sha256 string // of the .gz archive on the mirrors
}

type spec struct {
	title   string
	system  string // a directory a distribution package installs, or ""
	mirrors []string
	files   [4]file // train images, train labels, test images, test labels
}

var specs = map[string]spec{
	"mnist": {
		title:   "MNIST",
		mirrors: []string{"https://storage.googleapis.com/cvdf-datasets/mnist/", "https://ossci-datasets.s3.amazonaws.com/mnist/"},
		files: [4]file{
			{"train-images-idx3-ubyte", "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609"},
			{"train-labels-idx1-ubyte", "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c"},
			{"t10k-images-idx3-ubyte", "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6"},
			{"t10k-labels-idx1-ubyte", "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6"},
		},
	},
	"fashion": {
		title:   "Fashion-MNIST",
		system:  "/usr/share/datasets/fashion-mnist",
		mirrors: []string{"https://storage.googleapis.com/tensorflow/tf-keras-datasets/", "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"},
		files: [4]file{
			{"train-images-idx3-ubyte", "08dc20ab1689590a0bcd66e874647b6ee8464e2d501b5a3f1f78831db19a3fdc"},
			{"train-labels-idx1-ubyte", "b0197879cbda89f3dc7b894f9fd52b858e68ea4182b6947c9d8c2b67e5f18dcc"},
			{"t10k-images-idx3-ubyte", "78dcbbfb5a27efaf1b6c1d616caca68560be8766c5bffcb2791df9273a534229"},
			{"t10k-labels-idx1-ubyte", "42bd18137a62d5998cdeae52bf3a0676ac6b706f5cf8439b47bb5b151ae3dccf"},
		},
	},
}

// Names lists the datasets Load knows.
func Names() []string { return []string{"mnist", "fashion"} }

// CacheDir returns where downloaded datasets are kept: $KERASGO_DATA, else
// ~/.kerasgo/datasets.
func CacheDir() (string, error) {
	if d := os.Getenv("KERASGO_DATA"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory for the dataset cache: set KERASGO_DATA: %w", err)
	}
	return filepath.Join(home, ".kerasgo", "datasets"), nil
}

// ErrNotFound is wrapped when no source has the dataset.
var ErrNotFound = errors.New("dataset not found")

// Load loads the dataset called name ("mnist" or "fashion").
func Load(ctx context.Context, name string, opts Options) (*Dataset, error) {
	sp, ok := specs[name]
	if !ok {
		return nil, fmt.Errorf("unknown dataset %q: use \"mnist\" or \"fashion\"", name)
	}
	var dirs []string
	if opts.Dir != "" {
		dirs = []string{opts.Dir}
	} else {
		if cache, err := CacheDir(); err == nil {
			dirs = append(dirs, filepath.Join(cache, name))
		}
		if sp.system != "" {
			dirs = append(dirs, sp.system)
		}
	}
	for _, d := range dirs {
		if has(d, sp) {
			return loadDir(name, sp, d)
		}
	}
	if opts.Download && opts.Dir == "" {
		cache, err := CacheDir()
		if err != nil {
			return nil, err
		}
		dir := filepath.Join(cache, name)
		if err := download(ctx, sp, dir, opts.Timeout); err != nil {
			return nil, fmt.Errorf("%w: %s is not in %s and downloading it failed: %v", ErrNotFound, sp.title, strings.Join(dirs, ", "), err)
		}
		return loadDir(name, sp, dir)
	}
	hint := "allow downloading"
	if name == "fashion" {
		hint = "install Debian's dataset-fashion-mnist (apt-get install dataset-fashion-mnist), or allow downloading"
	}
	return nil, fmt.Errorf("%w: %s is not in %s: put its four IDX files there, %s", ErrNotFound, sp.title, strings.Join(dirs, ", "), hint)
}

// find returns the path of f in dir, raw or gzip, or "".
func find(dir string, f file) string {
	for _, p := range []string{filepath.Join(dir, f.name), filepath.Join(dir, f.name+".gz")} {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

func has(dir string, sp spec) bool {
	for _, f := range sp.files {
		if find(dir, f) == "" {
			return false
		}
	}
	return true
}

func loadDir(name string, sp spec, dir string) (*Dataset, error) {
	var idx [4]*IDX
	for i, f := range sp.files {
		var err error
		if idx[i], err = ReadIDXFile(find(dir, f)); err != nil {
			return nil, err
		}
	}
	train, err := split(idx[0], idx[1])
	if err != nil {
		return nil, fmt.Errorf("%s training set in %s: %w", sp.title, dir, err)
	}
	test, err := split(idx[2], idx[3])
	if err != nil {
		return nil, fmt.Errorf("%s test set in %s: %w", sp.title, dir, err)
	}
	return &Dataset{Name: name, Title: sp.title, Source: dir, Train: train, Test: test}, nil
}

func split(images, labels *IDX) (Split, error) {
	if len(images.Dims) != 3 {
		return Split{}, fmt.Errorf("%w: images have dimensions %v, want (count, rows, cols)", ErrFormat, images.Dims)
	}
	if len(labels.Dims) != 1 {
		return Split{}, fmt.Errorf("%w: labels have dimensions %v, want (count)", ErrFormat, labels.Dims)
	}
	if images.Dims[0] != labels.Dims[0] {
		return Split{}, fmt.Errorf("%w: %d images but %d labels", ErrFormat, images.Dims[0], labels.Dims[0])
	}
	for i, l := range labels.Data {
		if l > 9 {
			return Split{}, fmt.Errorf("%w: label %d at index %d is not a class 0-9", ErrFormat, l, i)
		}
	}
	return Split{Images: images.Data, Labels: labels.Data, Count: images.Dims[0], Rows: images.Dims[1], Cols: images.Dims[2]}, nil
}

// ImagesFloat32 returns the pixels scaled to [0, 1], Count x Rows x Cols.
func (s Split) ImagesFloat32() []float32 {
	out := make([]float32, len(s.Images))
	for i, p := range s.Images {
		out[i] = float32(p) / 255
	}
	return out
}

// InputData returns the images as a model takes them, as Keras's MNIST
// examples prepare them: pixels scaled to [0, 1], and the shape (Count,
// Rows, Cols, 1). The package returns plain data; keras.ArrayOf wraps it:
// keras.ArrayOf(split.InputData()).
func (s Split) InputData() (data []float32, shape []int) {
	return s.ImagesFloat32(), []int{s.Count, s.Rows, s.Cols, 1}
}

// LabelData returns the class labels 0-9 as float32, and their shape
// (Count): keras.ArrayOf(split.LabelData()).
func (s Split) LabelData() (data []float32, shape []int) {
	return s.LabelsFloat32(), []int{s.Count}
}

// LabelsFloat32 returns the labels as float32 class indices.
func (s Split) LabelsFloat32() []float32 {
	out := make([]float32, len(s.Labels))
	for i, l := range s.Labels {
		out[i] = float32(l)
	}
	return out
}

// download fetches every file of sp into dir, trying each mirror in turn.
func download(ctx context.Context, sp spec, dir string, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range sp.files {
		if find(dir, f) != "" {
			continue
		}
		var errs []error
		for _, m := range sp.mirrors {
			err := fetch(ctx, m+f.name+".gz", filepath.Join(dir, f.name+".gz"), f.sha256, timeout)
			if err == nil {
				errs = nil
				break
			}
			errs = append(errs, err)
		}
		if errs != nil {
			return errors.Join(errs...)
		}
	}
	return nil
}

// fetch downloads url to dest if its SHA-256 is sum. It writes to a
// temporary file in dest's directory and renames it into place, so dest is
// either absent or complete and verified.
func fetch(ctx context.Context, url, dest, sum string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".download-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(resp.Body, 64<<20)); err != nil {
		tmp.Close()
		return fmt.Errorf("GET %s: %w", url, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sum {
		tmp.Close()
		return fmt.Errorf("GET %s: SHA-256 %s, want %s: the file is corrupt or not the expected one", url, got, sum)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dest)
}
