package saving

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DigestSuffix names the digest file written beside a weights file:
// model.weights.h5.sha256, in sha256sum's format, so that
// `sha256sum -c model.weights.h5.sha256` checks it too.
const DigestSuffix = ".sha256"

// WriteDigest writes the SHA-256 of the file at path beside it
// (path + DigestSuffix), atomically. .weights.h5 and .safetensors files
// have no checksum of their own: the digest lets a later load tell a
// flipped byte from a weight.
func WriteDigest(path string) error {
	sum, err := fileSHA256(path)
	if err != nil {
		return err
	}
	line := sum + "  " + filepath.Base(path) + "\n"
	return WriteAtomic(path+DigestSuffix, func(w io.Writer) error {
		_, err := io.WriteString(w, line)
		return err
	})
}

// VerifyDigest checks the file at path against the digest beside it. It
// reports found false, and no error, when there is no digest file (Keras
// writes none); an error when the digest file is unreadable or the file
// does not match it.
func VerifyDigest(path string) (found bool, err error) {
	data, err := os.ReadFile(path + DigestSuffix)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 || len(fields[0]) != 64 {
		return true, fmt.Errorf("%s%s is not a SHA-256 digest (sha256sum's format): delete it, or write it again with sha256sum", path, DigestSuffix)
	}
	sum, err := fileSHA256(path)
	if err != nil {
		return true, err
	}
	if !strings.EqualFold(sum, fields[0]) {
		return true, fmt.Errorf("%s does not match its digest %s%s: the file is corrupt, or it was replaced by a writer that did not update the digest (then delete the digest file)", path, filepath.Base(path), DigestSuffix)
	}
	return true, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
