package imaging

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"testing"
)

// decodePNGFast decodes what image/png decodes, to the same pixels, for
// every kind of PNG Go's encoder writes (grey, RGB, RGBA, palette with
// and without transparency, each row's filter chosen by the encoder);
// 16-bit images and palettes of fewer bits are left to image/png; a
// damaged file is an error.
func TestDecodePNGFastMatchesImagePNG(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	bounds := image.Rect(0, 0, 23, 17)
	gray, rgba, nrgba, gray16 := image.NewGray(bounds), image.NewRGBA(bounds), image.NewNRGBA(bounds), image.NewGray16(bounds)
	colors := color.Palette{color.NRGBA{200, 100, 50, 128}} // one translucent entry (tRNS)
	for i := range 19 {                                     // over 16 colours: Go writes 8 bits per index
		colors = append(colors, color.RGBA{uint8(i * 13), uint8(255 - i*7), uint8(i * 3), 255})
	}
	pal := image.NewPaletted(bounds, colors)
	few := image.NewPaletted(bounds, colors[:3]) // 2 bits per index: image/png's
	smooth := image.NewRGBA(bounds)              // rows that favour the Sub, Up, Average and Paeth filters
	for i := range gray.Pix {
		gray.Pix[i] = uint8(r.IntN(256))
		pal.Pix[i] = uint8(r.IntN(len(colors)))
		few.Pix[i] = uint8(r.IntN(3))
	}
	for i := range rgba.Pix {
		rgba.Pix[i] = uint8(r.IntN(256))
		nrgba.Pix[i] = uint8(r.IntN(256))
		smooth.Pix[i] = uint8(i/7 + (i%4)*40)
		if i%4 == 3 {
			rgba.Pix[i], smooth.Pix[i] = 255, 255
		}
	}
	for cases, img := range []image.Image{gray, rgba, nrgba, pal, smooth, gray16, few} {
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		want, err := png.Decode(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := decodePNGFast(buf.Bytes())
		if err != nil {
			t.Fatalf("case %d: %v", cases, err)
		}
		if img == gray16 || img == few {
			if ok {
				t.Errorf("case %d: a PNG of other than 8 bits per sample was decoded by the fast path", cases)
			}
			continue
		}
		if !ok {
			t.Fatalf("case %d (%T) was left to image/png", cases, img)
		}
		for y := range bounds.Dy() {
			for x := range bounds.Dx() {
				wr, wg, wb, wa := want.At(x, y).RGBA()
				gr, gg, gb, ga := got.At(x, y).RGBA()
				if wr != gr || wg != gg || wb != gb || wa != ga {
					t.Fatalf("case %d (%T) pixel (%d, %d): %v, image/png %v", cases, img, x, y, got.At(x, y), want.At(x, y))
				}
			}
		}
		damaged := bytes.Clone(buf.Bytes())
		damaged[len(damaged)/2] ^= 0xff
		if _, _, err := decodePNGFast(damaged); err == nil {
			t.Errorf("case %d: a damaged file decoded without error", cases)
		}
	}
}
