package imaging

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLoadSmallPNG measures what ImageDatasetFromDirectory does per
// MNIST-sized file: open, decode, convert, to floats.
func BenchmarkLoadSmallPNG(b *testing.B) {
	path := filepath.Join(b.TempDir(), "x.png")
	img := image.NewGray(image.Rect(0, 0, 28, 28))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 37)
	}
	f, _ := os.Create(path)
	png.Encode(f, img)
	f.Close()
	b.ReportAllocs()
	for range b.N {
		im, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		im, _ = Convert(im, "grayscale")
		_ = Floats(im)
	}
}
