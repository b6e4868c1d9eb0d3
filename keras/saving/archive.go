package saving

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/kerasgo/kerasgo/internal/h5"
)

// The entries of a .keras archive (saving_lib.py).
const (
	metadataEntry = "metadata.json"
	configEntry   = "config.json"
	weightsEntry  = "model.weights.h5"
)

// Limits on what OpenKeras accepts, so that a hostile archive cannot make
// it allocate without bound.
const (
	maxJSONSize    = 64 << 20 // config.json and metadata.json
	maxWeightsSize = 64 << 30 // model.weights.h5
	maxAssetsSize  = 4 << 30  // every file under assets/, together
	maxEntries     = 10000
)

// KerasFormatVersion is the Keras version whose format kerasgo writes; it
// goes into metadata.json's keras_version.
const KerasFormatVersion = "3.10.0"

// Metadata is metadata.json. Keras reads keras_version and date_saved and
// ignores the rest; kerasgo adds its own version and the engine that
// trained the model.
type Metadata struct {
	KerasVersion   string `json:"keras_version"`
	DateSaved      string `json:"date_saved"`
	KerasgoVersion string `json:"kerasgo_version,omitempty"`
	KerasgoBackend string `json:"kerasgo_backend,omitempty"`
}

// NewMetadata returns metadata for a file saved now.
func NewMetadata(kerasgoVersion, backend string) Metadata {
	return Metadata{KerasVersion: KerasFormatVersion, DateSaved: time.Now().Format("2006-01-02@15:04:05"), KerasgoVersion: kerasgoVersion, KerasgoBackend: backend}
}

// AssetsDir is the archive's folder of layers' files (a lookup layer's
// vocabulary.txt under assets/<layer path>/).
const AssetsDir = "assets/"

// WriteKeras writes a .keras archive atomically: metadata.json,
// config.json (already encoded), model.weights.h5 from weights, and the
// layers' files, assets maps a path under assets/ to its content.
func WriteKeras(path string, meta Metadata, config []byte, weights *h5.Group, assets map[string][]byte) error {
	if !json.Valid(config) {
		return errors.New("saving: the model config is not valid JSON")
	}
	metaJSON, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	return WriteAtomic(path, func(w io.Writer) error {
		zw := zip.NewWriter(w)
		for _, e := range []struct {
			name string
			data []byte
		}{{metadataEntry, metaJSON}, {configEntry, config}} {
			f, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: time.Now()})
			if err != nil {
				return err
			}
			if _, err := f.Write(e.data); err != nil {
				return err
			}
		}
		// Keras stores the weights uncompressed (ZIP_STORED).
		f, err := zw.CreateHeader(&zip.FileHeader{Name: weightsEntry, Method: zip.Store, Modified: time.Now()})
		if err != nil {
			return err
		}
		if _, err := h5.Write(f, weights); err != nil {
			return err
		}
		for _, name := range slices.Sorted(maps.Keys(assets)) {
			f, err := zw.CreateHeader(&zip.FileHeader{Name: AssetsDir + name, Method: zip.Deflate, Modified: time.Now()})
			if err != nil {
				return err
			}
			if _, err := f.Write(assets[name]); err != nil {
				return err
			}
		}
		return zw.Close()
	})
}

// Archive is an opened .keras file. Close removes the temporary copy of
// its weights.
type Archive struct {
	Metadata Metadata
	Config   []byte
	Weights  *h5.File
	// Assets holds the files under assets/, by their path below it.
	Assets map[string][]byte
	file   *os.File // the archive, when the weights are read in place
	tmp    string   // the weights' temporary copy, when they were compressed
}

// Close releases the weights file.
func (a *Archive) Close() error {
	var err error
	if a.Weights != nil {
		err = a.Weights.Close()
	}
	if a.file != nil {
		a.file.Close()
	}
	if a.tmp != "" {
		os.Remove(a.tmp)
	}
	return err
}

// OpenKeras opens a .keras archive: it reads metadata.json and config.json
// and opens model.weights.h5: in place when it is stored uncompressed, as
// Keras stores it (its CRC checked first), or inflated into a temporary
// file (the HDF5 reader needs random access) when it is compressed.
func OpenKeras(path string) (*Archive, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no model file %s: save one with model.Save(%q)", path, path)
		}
		return nil, fmt.Errorf("%s is not a .keras file (a zip archive): %v", path, err)
	}
	defer zr.Close()
	if len(zr.File) > maxEntries {
		return nil, fmt.Errorf("%s: a .keras archive with %d entries is not one Keras wrote", path, len(zr.File))
	}
	entries := map[string]*zip.File{}
	for _, f := range zr.File {
		if _, twice := entries[f.Name]; twice {
			return nil, fmt.Errorf("%s holds two entries named %s: a zip with repeated names is not one Keras wrote (which one a reader takes differs), so the file is refused", path, f.Name)
		}
		entries[f.Name] = f
	}
	for _, name := range []string{metadataEntry, configEntry, weightsEntry} {
		if entries[name] == nil {
			return nil, fmt.Errorf("%s: the .keras archive has no %s: the file is incomplete or was not written by Keras", path, name)
		}
	}
	a := &Archive{}
	if err := a.read(path, entries); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// read fills a from the archive's entries.
func (a *Archive) read(path string, entries map[string]*zip.File) error {
	meta, err := readEntry(entries[metadataEntry], maxJSONSize)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := json.Unmarshal(meta, &a.Metadata); err != nil {
		return fmt.Errorf("%s: metadata.json: %v", path, err)
	}
	if a.Config, err = readEntry(entries[configEntry], maxJSONSize); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var total uint64
	for name, f := range entries {
		if !strings.HasPrefix(name, AssetsDir) || strings.HasSuffix(name, "/") {
			continue
		}
		if total += f.UncompressedSize64; total > maxAssetsSize {
			return fmt.Errorf("%s: its assets/ hold more than %d bytes, more than a model's vocabularies", path, maxAssetsSize)
		}
		data, err := readEntry(f, maxAssetsSize)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if a.Assets == nil {
			a.Assets = map[string][]byte{}
		}
		a.Assets[strings.TrimPrefix(name, AssetsDir)] = data
	}
	w := entries[weightsEntry]
	if w.Method == zip.Store {
		if a.file, err = os.Open(path); err != nil {
			return err
		}
		section, err := storedEntry(a.file, w)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if a.Weights, err = h5.OpenReader(section, section.Size()); err != nil {
			return fmt.Errorf("%s: model.weights.h5: %w", path, err)
		}
		return nil
	}
	if a.tmp, err = extract(w, maxWeightsSize); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if a.Weights, err = h5.Open(a.tmp); err != nil {
		return fmt.Errorf("%s: model.weights.h5: %w", path, err)
	}
	return nil
}

// storedEntry returns an uncompressed entry's bytes inside the archive,
// after checking that they lie inside it and match the entry's CRC-32
// (which the zip reader checks only when it copies an entry out).
func storedEntry(file *os.File, f *zip.File) (*io.SectionReader, error) {
	st, err := file.Stat()
	if err != nil {
		return nil, err
	}
	off, err := f.DataOffset()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", f.Name, err)
	}
	size := f.UncompressedSize64
	if size != f.CompressedSize64 || off < 0 || size > uint64(st.Size()) || uint64(off) > uint64(st.Size())-size {
		return nil, fmt.Errorf("%s declares %d bytes at offset %d, which a file of %d bytes cannot hold: the file is corrupt", f.Name, size, off, st.Size())
	}
	section := io.NewSectionReader(file, off, int64(size))
	sum := crc32.NewIEEE()
	if _, err := io.Copy(sum, section); err != nil {
		return nil, fmt.Errorf("%s: %v", f.Name, err)
	}
	if f.CRC32 != 0 && sum.Sum32() != f.CRC32 {
		return nil, fmt.Errorf("%s does not match its CRC-32 (the archive's checksum): the file is corrupt", f.Name)
	}
	return section, nil
}

// readEntry reads a zip entry of at most limit bytes; the zip reader
// checks its CRC.
func readEntry(f *zip.File, limit int64) ([]byte, error) {
	if f.UncompressedSize64 > uint64(limit) {
		return nil, fmt.Errorf("%s declares %d bytes, more than kerasgo reads (%d)", f.Name, f.UncompressedSize64, limit)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", f.Name, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, int64(f.UncompressedSize64)+1))
	if err != nil {
		return nil, fmt.Errorf("%s is corrupt: %v", f.Name, err)
	}
	if uint64(len(data)) != f.UncompressedSize64 {
		return nil, fmt.Errorf("%s holds %d bytes, its header says %d: the file is corrupt", f.Name, len(data), f.UncompressedSize64)
	}
	return data, nil
}

// extract copies a compressed zip entry into a temporary file and returns
// its path. The entry must start as an HDF5 file does, and its superblock
// must give the size the entry declares, before anything more is inflated:
// so a small archive whose entry inflates to gigabytes of zeros is
// refused at once.
func extract(f *zip.File, limit int64) (string, error) {
	if f.UncompressedSize64 > uint64(limit) {
		return "", fmt.Errorf("%s declares %d bytes, more than kerasgo reads (%d)", f.Name, f.UncompressedSize64, limit)
	}
	rc, err := f.Open()
	if err != nil {
		return "", fmt.Errorf("%s: %v", f.Name, err)
	}
	defer rc.Close()
	head := make([]byte, 56)
	if _, err := io.ReadFull(rc, head); err != nil {
		return "", fmt.Errorf("%s is corrupt: %v", f.Name, err)
	}
	size, ok := h5.DeclaredSize(head)
	if !ok {
		return "", fmt.Errorf("%s is not a readable HDF5 file: it does not start with an HDF5 superblock", f.Name)
	}
	if size != f.UncompressedSize64 {
		return "", fmt.Errorf("%s is not a readable HDF5 file: the archive declares %d bytes, its HDF5 superblock %d: the file is corrupt (truncated or padded)", f.Name, f.UncompressedSize64, size)
	}
	tmp, err := os.CreateTemp("", "kerasgo-*.weights.h5")
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(head)
	var n int64
	if err == nil {
		n, err = io.Copy(tmp, io.LimitReader(rc, int64(f.UncompressedSize64)+1-int64(len(head))))
		n += int64(len(head))
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil && uint64(n) != f.UncompressedSize64 {
		err = fmt.Errorf("holds %d bytes, its header says %d", n, f.UncompressedSize64)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("%s is corrupt: %v", f.Name, err)
	}
	return tmp.Name(), nil
}

// WriteWeightsH5 writes a Keras .weights.h5 file atomically.
func WriteWeightsH5(path string, weights *h5.Group) error {
	return WriteAtomic(path, func(w io.Writer) error {
		_, err := h5.Write(w, weights)
		return err
	})
}

// OpenWeightsH5 opens a Keras .weights.h5 file.
func OpenWeightsH5(path string) (*h5.File, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no weights file %s: %v", path, err)
	}
	f, err := h5.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}
