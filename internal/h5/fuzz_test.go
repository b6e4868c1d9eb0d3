package h5

import (
	"bytes"
	"testing"
)

// FuzzOpen feeds arbitrary bytes to the reader: it must return an error or
// a file whose datasets read without panicking or allocating beyond the
// file's size.
func FuzzOpen(f *testing.F) {
	var buf bytes.Buffer
	if _, err := Write(&buf, kerasLike()); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:len(buf.Bytes())/2])
	f.Add([]byte("\x89HDF\r\n\x1a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := OpenReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		for _, path := range file.Paths() {
			if d, err := file.Read(path); err == nil && d.Len()*d.DType.Size() > len(data) {
				t.Fatalf("%s: read %d elements from a file of %d bytes", path, d.Len(), len(data))
			}
		}
	})
}
