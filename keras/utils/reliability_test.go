package utils_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/kerasgo/kerasgo/internal/testcheck"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/utils"
)

// pngDeclaring returns a valid 1x1 PNG whose header is rewritten to
// declare a w x h image (its CRC fixed), about 70 bytes.
func pngDeclaring(t *testing.T, w, h uint32) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	// 8-byte signature, then IHDR: length (4), "IHDR" (4), width, height, ...
	ihdr := data[8+8 : 8+8+13]
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	binary.BigEndian.PutUint32(data[8+8+13:], crc32.ChecksumIEEE(data[8+4:8+8+13]))
	return data
}

// A small PNG whose header declares 100000x100000 pixels killed the
// process (fatal error: runtime: out of memory) in LoadImg and
// ImageDatasetFromDirectory (issue 39): the declared size is checked
// before any pixel is decoded.
func TestImageDeclaringHugeSizeIsRefused(t *testing.T) {
	dir := t.TempDir()
	bomb := pngDeclaring(t, 100000, 100000)
	if len(bomb) > 100 {
		t.Fatalf("the test's PNG is %d bytes, want a small file", len(bomb))
	}
	if err := os.MkdirAll(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "a", "bomb.png")
	if err := os.WriteFile(path, bomb, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := utils.LoadImg(path, utils.LoadImgOptions{})
	testcheck.WantErr(t, err, "bomb.png", "100000x100000", "remove the file")

	ds, err := utils.ImageDatasetFromDirectory(dir, utils.ImageDatasetOptions{ImageSize: [2]int{4, 4}, Verbose: keras.Silent})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ds.Batch(t.Context(), 0)
	testcheck.WantErr(t, err, "bomb.png", "100000x100000")

	// A header within the limit still decodes (the real file is 1x1).
	ok := pngDeclaring(t, 1, 1)
	if err := os.WriteFile(path, ok, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := utils.LoadImg(path, utils.LoadImgOptions{}); err != nil {
		t.Fatal(err)
	}
}

// With FollowLinks, a link back to a folder it is inside recursed for
// over a minute, memory growing (issue 39): it is an error naming the
// link. A link to a folder elsewhere is still followed.
func TestFollowLinksDetectsLoops(t *testing.T) {
	dir := t.TempDir()
	cls := filepath.Join(dir, "cats")
	if err := os.MkdirAll(cls, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cls, "a.png"), pngDeclaring(t, 1, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "b.png"), pngDeclaring(t, 1, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(cls, "more")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	o := utils.ImageDatasetOptions{FollowLinks: true, Verbose: keras.Silent}
	ds, err := utils.ImageDatasetFromDirectory(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.FilePaths) != 2 {
		t.Fatalf("files %v, want a.png and the linked b.png", ds.FilePaths)
	}
	if err := os.Symlink("..", filepath.Join(cls, "loop")); err != nil {
		t.Fatal(err)
	}
	_, err = utils.ImageDatasetFromDirectory(dir, o)
	testcheck.WantErr(t, err, filepath.Join(cls, "loop"), "a loop", "FollowLinks")
	_, err = utils.TextDatasetFromDirectory(dir, utils.TextDatasetOptions{FollowLinks: true, Verbose: keras.Silent})
	testcheck.WantErr(t, err, "a loop")
}
