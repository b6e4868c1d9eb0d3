package utils

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ExtractArchive extracts the tar (plain, gzip or bzip2 compressed) or
// zip archive at path into dir, like Keras's
// keras.utils.extract_archive: format is "auto" (or "": tar, then zip),
// "tar" or "zip". It reports false, with no error, when the file is not
// an archive of those formats. The archive is extracted into a temporary
// folder beside dir, which then replaces dir, so an interrupted or
// failed extraction never leaves a half-extracted dir.
//
// Entries that would land outside dir (an absolute path, "..") are an
// error, where Keras skips them with a warning; so are links and special
// files: kerasgo extracts files and folders only.
func ExtractArchive(path, dir, format string) (bool, error) {
	var formats []string
	switch format {
	case "", "auto":
		formats = []string{"tar", "zip"}
	case "tar", "zip":
		formats = []string{format}
	default:
		return false, fmt.Errorf("ExtractArchive: unknown archive format %q: use \"auto\", \"tar\" or \"zip\"", format)
	}
	for _, f := range formats {
		var ok bool
		var extract func(tmp string) error
		switch f {
		case "tar":
			ok, extract = tarArchive(path)
		case "zip":
			ok, extract = zipArchive(path)
		}
		if !ok {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return false, fmt.Errorf("ExtractArchive: %w", err)
		}
		tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".extracting-")
		if err != nil {
			return false, fmt.Errorf("ExtractArchive: %w", err)
		}
		defer os.RemoveAll(tmp)
		if err := extract(tmp); err != nil {
			return false, fmt.Errorf("ExtractArchive: extracting %s: %w", path, err)
		}
		if err := replaceDir(tmp, dir); err != nil {
			return false, fmt.Errorf("ExtractArchive: %w", err)
		}
		return true, nil
	}
	return false, nil
}

// replaceDir renames tmp to dir, moving an existing dir aside first.
func replaceDir(tmp, dir string) error {
	if _, err := os.Lstat(dir); err == nil {
		old := tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return err
		}
		defer os.RemoveAll(old)
	}
	return os.Rename(tmp, dir)
}

// entryPath returns where an archive entry goes under dir, or an error
// for an entry outside it.
func entryPath(dir, name string) (string, error) {
	clean := filepath.Clean(filepath.FromSlash(name))
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) || filepath.VolumeName(clean) != "" {
		return "", fmt.Errorf("the archive's entry %q is outside the extraction directory", name)
	}
	return filepath.Join(dir, clean), nil
}

// writeEntry writes one file of an archive.
func writeEntry(target string, r io.Reader, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode.Perm()|0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, r)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// tarArchive reports whether path is a tar archive (uncompressed, gzip or
// bzip2), as Python's tarfile.is_tarfile, and returns its extraction.
func tarArchive(path string) (bool, func(dir string) error) {
	open := func() (io.ReadCloser, *tar.Reader, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, err
		}
		br := bufio.NewReader(f)
		magic, _ := br.Peek(3)
		var r io.Reader = br
		switch {
		case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
			gz, err := gzip.NewReader(br)
			if err != nil {
				f.Close()
				return nil, nil, err
			}
			r = gz
		case bytes.HasPrefix(magic, []byte("BZh")):
			r = bzip2.NewReader(br)
		}
		return f, tar.NewReader(r), nil
	}
	f, tr, err := open()
	if err != nil {
		return false, nil
	}
	_, err = tr.Next()
	f.Close()
	if err != nil {
		return false, nil
	}
	return true, func(dir string) error {
		f, tr, err := open()
		if err != nil {
			return err
		}
		defer f.Close()
		for {
			h, err := tr.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			target, err := entryPath(dir, h.Name)
			if err != nil {
				return err
			}
			switch h.Typeflag {
			case tar.TypeDir:
				if err := os.MkdirAll(target, 0o755); err != nil {
					return err
				}
			case tar.TypeReg:
				if err := writeEntry(target, tr, h.FileInfo().Mode()); err != nil {
					return err
				}
			case tar.TypeXGlobalHeader:
			default:
				return fmt.Errorf("the archive's entry %q is a link or a special file: kerasgo extracts files and folders only", h.Name)
			}
		}
	}
}

// zipArchive reports whether path is a zip archive and returns its
// extraction.
func zipArchive(path string) (bool, func(dir string) error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return false, nil
	}
	z.Close()
	return true, func(dir string) error {
		z, err := zip.OpenReader(path)
		if err != nil {
			return err
		}
		defer z.Close()
		for _, f := range z.File {
			target, err := entryPath(dir, f.Name)
			if err != nil {
				return err
			}
			mode := f.Mode()
			switch {
			case mode.IsDir():
				if err := os.MkdirAll(target, 0o755); err != nil {
					return err
				}
			case mode.IsRegular():
				r, err := f.Open()
				if err != nil {
					return err
				}
				err = writeEntry(target, r, mode)
				r.Close()
				if err != nil {
					return err
				}
			default:
				return fmt.Errorf("the archive's entry %q is a link or a special file: kerasgo extracts files and folders only", f.Name)
			}
		}
		return nil
	}
}
