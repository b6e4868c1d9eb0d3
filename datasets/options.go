package datasets

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"github.com/kerasgo/kerasgo/internal/nprandom"
	"github.com/kerasgo/kerasgo/internal/npy"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/utils"
)

// Options say where a loader looks for its files.
type Options struct {
	// Dir, when set, is the only place looked in: a directory laid out as
	// Keras's cache's datasets directory (the files under Keras's names),
	// whose files are read as they are, without a hash check.
	Dir string
	// CacheDir is Keras's cache; default $KERAS_HOME, else ~/.keras (see
	// utils.CacheDir).
	CacheDir string
	// Download allows fetching a missing file from Keras's URL into the
	// cache, checked against Keras's hash.
	Download bool
	// Client makes the download's request; nil: http.DefaultClient.
	Client *http.Client
}

// Split is one part of a dataset: inputs X and targets Y, one row each
// per sample.
type Split struct {
	X, Y keras.Array
}

// Remote names a file as Keras's loader fetches it: its name in the
// cache, its URL and its SHA-256 (or MD5) hash.
type Remote struct {
	Name, Origin, Hash string
}

func (o Options) dir() string {
	if o.Dir != "" {
		return o.Dir
	}
	return filepath.Join(utils.CacheDir(o.CacheDir), "datasets")
}

func (o Options) missing(what, origin string) error {
	if o.Dir != "" {
		return fmt.Errorf("%s is not in %s: put Keras's file there (from %s), or leave Options.Dir empty to use Keras's cache", what, o.Dir, origin)
	}
	return fmt.Errorf("%s is not in Keras's cache %s: set Options.Download to fetch it from %s (or run Keras's load_data once, which puts it there)", what, o.dir(), origin)
}

// File returns the path of a dataset file: in Dir, or in Keras's cache
// (with Download, fetched into it when missing or when its hash does not
// match, as Keras's get_file).
func (o Options) File(ctx context.Context, r Remote) (string, error) {
	path := filepath.Join(o.dir(), r.Name)
	if o.Dir != "" {
		if _, err := os.Stat(path); err != nil {
			return "", o.missing(r.Name, r.Origin)
		}
		return path, nil
	}
	if !o.Download {
		if _, err := os.Stat(path); err != nil {
			return "", o.missing(r.Name, r.Origin)
		}
	}
	// Without Download, a cached file that does not match Keras's hash is
	// an error, not a download.
	return utils.GetFile(ctx, r.Name, r.Origin, utils.GetFileOptions{FileHash: r.Hash, CacheDir: o.CacheDir, Client: o.Client, CacheOnly: !o.Download})
}

// Extracted returns the directory a dataset's .tar.gz archive extracts
// to, as Keras's get_file(fname, extract=True) lays it out: the archive
// as <name>_archive, its contents under <name>/. A missing extraction is
// made from the archive (fetched first with Download) by
// utils.ExtractArchive, so an interrupted extraction leaves nothing at
// the name.
func (o Options) Extracted(ctx context.Context, r Remote) (string, error) {
	dir := filepath.Join(o.dir(), r.Name)
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return dir, nil
	}
	archive := r
	archive.Name = r.Name + "_archive"
	path, err := o.File(ctx, archive)
	if err != nil {
		if o.Dir != "" || !o.Download {
			return "", o.missing(r.Name+" (or its archive "+archive.Name+")", r.Origin)
		}
		return "", err
	}
	ok, err := utils.ExtractArchive(path, dir, "tar")
	if err == nil && !ok {
		err = fmt.Errorf("it is not a tar archive: delete it, and load again with Download")
	}
	if err != nil {
		return "", fmt.Errorf("extracting %s: %w", path, err)
	}
	return dir, nil
}

// ShuffleSplit shuffles the samples of x and y (the first axis) as
// Keras's regression loaders do, NumPy's RandomState(seed).shuffle of
// their indices, and splits them: the first int(n·(1 - testSplit)) for
// training, the rest for testing.
func ShuffleSplit(x, y keras.Array, testSplit float64, seed uint32) (train, test Split, err error) {
	if !(testSplit >= 0 && testSplit < 1) {
		return Split{}, Split{}, fmt.Errorf("invalid test_split %v: it must be between 0 and 1 (exclusive of 1)", testSplit)
	}
	n := x.Shape[0]
	if len(y.Shape) == 0 || y.Shape[0] != n {
		return Split{}, Split{}, fmt.Errorf("x has %d samples and y %v: they must have the same first axis", n, y.Shape)
	}
	idx := nprandom.New(seed).Permutation(n)
	cut := int(float64(n) * (1 - testSplit))
	take := func(a keras.Array, rows []int) keras.Array {
		per := len(a.Data) / max(n, 1)
		out := keras.Array{Shape: append([]int{len(rows)}, a.Shape[1:]...), Data: make([]float32, 0, len(rows)*per)}
		for _, r := range rows {
			out.Data = append(out.Data, a.Data[r*per:(r+1)*per]...)
		}
		return out
	}
	return Split{X: take(x, idx[:cut]), Y: take(y, idx[:cut])}, Split{X: take(x, idx[cut:]), Y: take(y, idx[cut:])}, nil
}

// NPZ is a NumPy .npz archive read as Keras's loaders read theirs
// (numeric arrays, and object arrays of integer lists, which need the
// pickle Keras's npz_utils reads with its restricted unpickler).
type NPZ struct {
	path   string
	arrays map[string]npy.Array
}

// ReadNPZ reads an .npz archive.
func ReadNPZ(path string) (*NPZ, error) {
	a, err := npy.ReadNPZ(path)
	if err != nil {
		return nil, err
	}
	return &NPZ{path: path, arrays: a}, nil
}

func (z *NPZ) get(name string) (npy.Array, error) {
	a, ok := z.arrays[name]
	if !ok {
		var names []string
		for n := range z.arrays {
			names = append(names, n)
		}
		return npy.Array{}, fmt.Errorf("%s has no array %q (it has %v)", z.path, name, names)
	}
	return a, nil
}

// Array returns a numeric array as a keras.Array (float32).
func (z *NPZ) Array(name string) (keras.Array, error) {
	a, err := z.get(name)
	if err != nil {
		return keras.Array{}, err
	}
	if a.DType == "O" {
		return keras.Array{}, fmt.Errorf("%s: %q is an object array: read it with Sequences", z.path, name)
	}
	out := keras.Array{Shape: append([]int(nil), a.Shape...), Data: make([]float32, len(a.Data))}
	for i, v := range a.Data {
		out.Data[i] = float32(v)
	}
	return out, nil
}

// Sequences returns an object array whose elements are lists (or
// arrays) of integers, IMDB's and Reuters's word ids.
func (z *NPZ) Sequences(name string) ([][]int, error) {
	a, err := z.get(name)
	if err != nil {
		return nil, err
	}
	if a.DType != "O" {
		return nil, fmt.Errorf("%s: %q is a numeric array of shape %v, not one of sequences", z.path, name, a.Shape)
	}
	out := make([][]int, len(a.Objects))
	for i, seq := range a.Objects {
		out[i] = make([]int, len(seq))
		for k, v := range seq {
			out[i][k] = int(v)
		}
	}
	return out, nil
}

// Ints returns a numeric array's values as integers.
func (z *NPZ) Ints(name string) ([]int, error) {
	a, err := z.get(name)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(a.Data))
	for i, v := range a.Data {
		out[i] = int(v)
	}
	return out, nil
}

// LoadRegression is Keras's regression loaders (boston_housing,
// california_housing): x and y from an .npz, the first keep samples
// (all for 0), shuffled with seed (zero means Keras's 113) and split.
func LoadRegression(ctx context.Context, o Options, r Remote, testSplit float64, seed uint32, keep int) (train, test Split, err error) {
	if seed == 0 {
		seed = 113
	}
	path, err := o.File(ctx, r)
	if err != nil {
		return train, test, err
	}
	z, err := ReadNPZ(path)
	if err != nil {
		return train, test, err
	}
	x, err := z.Array("x")
	if err != nil {
		return train, test, err
	}
	y, err := z.Array("y")
	if err != nil {
		return train, test, err
	}
	if keep > 0 && keep < x.Shape[0] {
		x, y = x.Rows(0, keep), y.Rows(0, keep)
	}
	train, test, err = ShuffleSplit(x, y, testSplit, seed)
	if err != nil {
		return train, test, fmt.Errorf("%s: %w", r.Name, err)
	}
	return train, test, nil
}

// TestFraction is a loader's TestSplit option resolved: split, or Keras's
// default 0.2 when split is zero and none (NoTestSplit) is not set.
func TestFraction(split float64, none bool) float64 {
	if split == 0 && !none {
		return 0.2
	}
	return split
}
