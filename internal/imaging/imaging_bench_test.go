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

// BenchmarkLoadRGB measures an RGB PNG and a JPEG of 180x180, the size of
// Keras's image classification example, opened and converted to floats.
func BenchmarkLoadRGB(b *testing.B) {
	dir := b.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 180, 180))
	for i := range img.Pix {
		img.Pix[i] = uint8(i*37 + i/720)
	}
	for _, name := range []string{"x.png", "x.jpg"} {
		path := filepath.Join(dir, name)
		f, _ := os.Create(path)
		if err := Encode(f, name, img); err != nil {
			b.Fatal(err)
		}
		f.Close()
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				im, err := Open(path)
				if err != nil {
					b.Fatal(err)
				}
				im, _ = Convert(im, "rgb")
				_ = Floats(im)
			}
		})
	}
}
