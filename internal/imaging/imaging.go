// Package imaging reads, converts, resizes and writes images on the host
// as Keras's image utilities do: decoding with Go's image packages (PNG,
// JPEG, GIF's first frame, BMP), colour conversion as PIL's convert
// (keras.utils.load_img and image_dataset_from_directory open images with
// PIL), resizing as PIL's resize (load_img) or as Keras's JAX resize
// (image_dataset_from_directory), to float pixels in [0, 255].
package imaging

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/image/bmp"

	"github.com/kerasgo/kerasgo/internal/resample"
)

// Formats are the file extensions Keras's image_dataset_from_directory
// reads (its ALLOWLIST_FORMATS).
var Formats = []string{".bmp", ".gif", ".jpeg", ".jpg", ".png"}

// HasFormat reports whether name ends with one of Formats (any case).
func HasFormat(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	for _, f := range Formats {
		if ext == f {
			return true
		}
	}
	return false
}

// MaxPixels is the largest image (width times height) Open decodes:
// PIL's decompression-bomb limit (Image.MAX_IMAGE_PIXELS, 89,478,485,
// times two, above which PIL and so Keras's loaders refuse a file). A
// file's header says its size before any pixel is decoded, so a small
// file that declares a huge image is refused instead of allocating it.
const MaxPixels = 2 * 89_478_485

// Open decodes the image file at path. GIF gives its first frame, as
// Keras's loaders do. An image larger than MaxPixels is an error.
func Open(path string) (image.Image, error) {
	data, err := os.ReadFile(path) // one read: image files are small beside a batch
	if err != nil {
		return nil, err
	}
	r := bytes.NewReader(data)
	head := data[:min(len(data), 12)]
	var decode func(io.Reader) (image.Image, error)
	var config func(io.Reader) (image.Config, error)
	isPNG := len(head) >= 8 && string(head[1:4]) == "PNG"
	switch {
	case isPNG:
		decode, config = png.Decode, png.DecodeConfig
	case len(head) >= 3 && head[0] == 0xff && head[1] == 0xd8:
		decode, config = jpeg.Decode, jpeg.DecodeConfig
	case len(head) >= 6 && string(head[:3]) == "GIF":
		decode, config = gif.Decode, gif.DecodeConfig
	case len(head) >= 2 && string(head[:2]) == "BM":
		decode, config = bmp.Decode, bmp.DecodeConfig
	default:
		return nil, fmt.Errorf("%s is not a PNG, JPEG, GIF or BMP image (it starts with % x)", path, head)
	}
	cfg, err := config(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decoding %s: %w (the file is damaged or not the image its content says)", path, err)
	}
	if px := int64(cfg.Width) * int64(cfg.Height); px > MaxPixels {
		return nil, fmt.Errorf("%s declares a %dx%d image (%d pixels), more than the %d that Keras's loaders (PIL) accept: shrink the image or remove the file", path, cfg.Width, cfg.Height, px, int64(MaxPixels))
	}
	var img image.Image
	if isPNG {
		var ok bool
		if img, ok, err = decodePNGFast(data); !ok && err == nil {
			img, err = decode(r)
		}
	} else {
		img, err = decode(r)
	}
	if err != nil {
		return nil, fmt.Errorf("decoding %s: %w (the file is damaged or not the image its content says)", path, err)
	}
	if b := img.Bounds(); b.Dx() < 1 || b.Dy() < 1 {
		return nil, fmt.Errorf("%s is an empty image (%dx%d)", path, b.Dx(), b.Dy())
	}
	return img, nil
}

// Convert returns img in Keras's colour mode as PIL's convert gives it:
// "grayscale" a *image.Gray (a 16-bit grey image stays *image.Gray16, as
// Keras keeps PIL's "I;16"), with PIL's luma L = (299 R + 587 G + 114 B)
// / 1000 in PIL's integer arithmetic; "rgb" a *image.RGBA with every
// pixel opaque (alpha dropped, not blended); "rgba" a *image.NRGBA.
func Convert(img image.Image, mode string) (image.Image, error) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	switch mode {
	case "grayscale":
		switch g := img.(type) {
		case *image.Gray, *image.Gray16:
			return g, nil
		}
		pix := nrgbaPixels(img)
		out := image.NewGray(image.Rect(0, 0, w, h))
		for i := range out.Pix {
			r, g, bl := uint32(pix[4*i]), uint32(pix[4*i+1]), uint32(pix[4*i+2])
			out.Pix[i] = uint8((r*19595 + g*38470 + bl*7471 + 0x8000) >> 16)
		}
		return out, nil
	case "rgb":
		pix := nrgbaPixels(img)
		for i := 3; i < len(pix); i += 4 {
			pix[i] = 255
		}
		return &image.RGBA{Pix: pix, Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}, nil
	case "rgba":
		return &image.NRGBA{Pix: nrgbaPixels(img), Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}, nil
	}
	return nil, fmt.Errorf("unknown color mode %q: use rgb, rgba or grayscale", mode)
}

// nrgbaPixels returns img's pixels as non-premultiplied 8-bit RGBA, in a
// new buffer: the decoders' image types directly, any other through its
// colour model.
func nrgbaPixels(img image.Image) []uint8 {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := make([]uint8, 4*w*h)
	switch m := img.(type) {
	case *image.NRGBA:
		for y := range h {
			copy(out[4*w*y:4*w*(y+1)], m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):])
		}
		return out
	case *image.Gray:
		for y := range h {
			row := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := range w {
				v := row[x]
				out[4*(w*y+x)], out[4*(w*y+x)+1], out[4*(w*y+x)+2], out[4*(w*y+x)+3] = v, v, v, 255
			}
		}
		return out
	case *image.Paletted:
		palette := make([][4]uint8, len(m.Palette))
		for i, c := range m.Palette {
			r, g, bl, a := nrgba(c)
			palette[i] = [4]uint8{r, g, bl, a}
		}
		for y := range h {
			row := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := range w {
				var c [4]uint8
				if int(row[x]) < len(palette) {
					c = palette[row[x]]
				}
				copy(out[4*(w*y+x):], c[:])
			}
		}
		return out
	case *image.YCbCr:
		for y := range h {
			for x := range w {
				yi, ci := m.YOffset(b.Min.X+x, b.Min.Y+y), m.COffset(b.Min.X+x, b.Min.Y+y)
				r, g, bl := color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
				out[4*(w*y+x)], out[4*(w*y+x)+1], out[4*(w*y+x)+2], out[4*(w*y+x)+3] = r, g, bl, 255
			}
		}
		return out
	case *image.RGBA:
		for y := range h {
			row := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := range w {
				if row[4*x+3] == 255 {
					copy(out[4*(w*y+x):4*(w*y+x)+4], row[4*x:4*x+4])
					continue
				}
				c := color.NRGBAModel.Convert(color.RGBA{row[4*x], row[4*x+1], row[4*x+2], row[4*x+3]}).(color.NRGBA)
				out[4*(w*y+x)], out[4*(w*y+x)+1], out[4*(w*y+x)+2], out[4*(w*y+x)+3] = c.R, c.G, c.B, c.A
			}
		}
		return out
	}
	for y := range h {
		for x := range w {
			r, g, bl, a := nrgba(img.At(b.Min.X+x, b.Min.Y+y))
			out[4*(w*y+x)], out[4*(w*y+x)+1], out[4*(w*y+x)+2], out[4*(w*y+x)+3] = r, g, bl, a
		}
	}
	return out
}

// nrgba is c's non-premultiplied 8-bit channels: a grey's value
// repeated, a palette entry's colour.
func nrgba(c color.Color) (r, g, b, a uint8) {
	switch c := c.(type) {
	case color.Gray:
		return c.Y, c.Y, c.Y, 255
	case color.NRGBA:
		return c.R, c.G, c.B, c.A
	case color.RGBA:
		if c.A == 255 {
			return c.R, c.G, c.B, 255
		}
	}
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	return n.R, n.G, n.B, n.A
}

// Pixels are an image's values as floats, (height, width, channels) in
// row-major order.
type Pixels struct {
	Height, Width, Channels int
	Data                    []float32
}

// Floats returns a converted image's values: 1 channel for *image.Gray
// and *image.Gray16, 4 for *image.NRGBA, 3 for any other image (its
// colours; alpha dropped).
func Floats(img image.Image) Pixels {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	switch g := img.(type) {
	case *image.Gray:
		p := Pixels{h, w, 1, make([]float32, w*h)}
		for y := range h {
			for x := range w {
				p.Data[y*w+x] = float32(g.Pix[y*g.Stride+x])
			}
		}
		return p
	case *image.Gray16:
		p := Pixels{h, w, 1, make([]float32, w*h)}
		for y := range h {
			for x := range w {
				p.Data[y*w+x] = float32(g.Gray16At(b.Min.X+x, b.Min.Y+y).Y)
			}
		}
		return p
	}
	c := 3
	if _, ok := img.(*image.NRGBA); ok {
		c = 4
	}
	pix := nrgbaPixels(img)
	p := Pixels{h, w, c, make([]float32, w*h*c)}
	for i := range w * h {
		for k := range c {
			p.Data[i*c+k] = float32(pix[4*i+k])
		}
	}
	return p
}

// ResizeJAX resizes p to (h, w) as Keras's ops.image.resize does on its
// JAX backend, after cropping (crop) or padding with zeros (pad) to the
// target's aspect ratio if asked: what image_dataset_from_directory does
// with each image.
func ResizeJAX(p Pixels, h, w int, interpolation string, crop, pad bool) (Pixels, error) {
	if err := resample.Check(resample.JAX, interpolation); err != nil {
		return Pixels{}, err
	}
	if crop && pad {
		return Pixels{}, errors.New("only one of CropToAspectRatio and PadToAspectRatio can be set")
	}
	switch {
	case crop:
		top, left, ch, cw := resample.AspectCrop(p.Height, p.Width, h, w)
		p = window(p, top, left, ch, cw)
	case pad:
		top, left := resample.AspectPad(p.Height, p.Width, h, w)
		p = padded(p, top, left)
	}
	kernel := resample.JAX[interpolation]
	p = resizeAxis(p, true, h, kernel)
	return resizeAxis(p, false, w, kernel), nil
}

// window is the block of p at (top, left) of size (h, w).
func window(p Pixels, top, left, h, w int) Pixels {
	out := Pixels{h, w, p.Channels, make([]float32, h*w*p.Channels)}
	for y := range h {
		src := ((top+y)*p.Width + left) * p.Channels
		copy(out.Data[y*w*p.Channels:(y+1)*w*p.Channels], p.Data[src:src+w*p.Channels])
	}
	return out
}

// padded adds top rows of zeros above and below p, or left columns on
// both sides.
func padded(p Pixels, top, left int) Pixels {
	out := Pixels{p.Height + 2*top, p.Width + 2*left, p.Channels, nil}
	out.Data = make([]float32, out.Height*out.Width*out.Channels)
	for y := range p.Height {
		dst := ((top+y)*out.Width + left) * p.Channels
		copy(out.Data[dst:dst+p.Width*p.Channels], p.Data[y*p.Width*p.Channels:(y+1)*p.Width*p.Channels])
	}
	return out
}

// resizeAxis resamples the rows (vertical) or columns of p to n.
func resizeAxis(p Pixels, vertical bool, n int, kernel *resample.Kernel) Pixels {
	in, other := p.Width, p.Height
	if vertical {
		in, other = p.Height, p.Width
	}
	if in == n {
		return p
	}
	out := Pixels{p.Height, n, p.Channels, nil}
	if vertical {
		out = Pixels{n, p.Width, p.Channels, nil}
	}
	out.Data = make([]float32, out.Height*out.Width*out.Channels)
	at := func(q Pixels, along, across, c int) int {
		if vertical {
			return (along*q.Width+across)*q.Channels + c
		}
		return (across*q.Width+along)*q.Channels + c
	}
	if kernel == nil {
		idx := resample.NearestIndices(in, n)
		for i, j := range idx {
			for k := range other {
				for c := range p.Channels {
					out.Data[at(out, i, k, c)] = p.Data[at(p, j, k, c)]
				}
			}
		}
		return out
	}
	weights := jaxWeights(in, n, kernel)
	for i := range n {
		row := weights[i*in : (i+1)*in]
		for k := range other {
			for c := range p.Channels {
				sum := 0.0
				for j, wt := range row {
					if wt != 0 {
						sum += wt * float64(p.Data[at(p, j, k, c)])
					}
				}
				out.Data[at(out, i, k, c)] = float32(sum)
			}
		}
	}
	return out
}

// jaxWeights is resample.Weights without antialias, kept per lengths and
// kernel (a folder's images often share their size), up to
// maxCachedWeights numbers in all: photos of many sizes recompute.
func jaxWeights(in, out int, k *resample.Kernel) []float64 {
	key := weightsKey{in, out, k}
	if w, ok := weightCache.Load(key); ok {
		return w.([]float64)
	}
	w := resample.Weights(in, out, *k, false)
	if cachedWeights.Add(int64(len(w))) <= maxCachedWeights {
		weightCache.Store(key, w)
	} else {
		cachedWeights.Add(-int64(len(w)))
	}
	return w
}

// maxCachedWeights bounds weightCache: 2^21 numbers, 16 MB.
const maxCachedWeights = 1 << 21

type weightsKey struct {
	in, out int
	k       *resample.Kernel
}

// weightCache holds jaxWeights' matrices, cachedWeights their numbers.
var (
	weightCache   sync.Map
	cachedWeights atomic.Int64
)

// ResizePIL resizes a converted image (*image.Gray, *image.RGBA or
// *image.NRGBA) to (w, h) as PIL's Image.resize does with the given
// filter, reading the box (x0, y0, x1, y1) of the source (the whole
// image when box is nil): PIL's coefficients in its 22-bit fixed point,
// horizontally first, each pass rounded to 8 bits.
func ResizePIL(img image.Image, w, h int, filter string, box *[4]float64) (image.Image, error) {
	if err := resample.Check(resample.PIL, filter); err != nil {
		return nil, err
	}
	b := img.Bounds()
	full := [4]float64{0, 0, float64(b.Dx()), float64(b.Dy())}
	if box == nil {
		box = &full
	}
	var pix []uint8
	var channels int
	switch g := img.(type) {
	case *image.Gray:
		pix, channels = packed(g.Pix, g.Stride, b.Dx(), b.Dy(), 1), 1
	case *image.RGBA:
		pix, channels = packed(g.Pix, g.Stride, b.Dx(), b.Dy(), 4), 4
	case *image.NRGBA:
		pix, channels = packed(g.Pix, g.Stride, b.Dx(), b.Dy(), 4), 4
	default:
		return nil, fmt.Errorf("resizing a %T: convert it first", img)
	}
	kernel := resample.PIL[filter]
	src := plane{b.Dx(), b.Dy(), channels, pix}
	_, alpha := img.(*image.NRGBA)
	switch {
	case kernel == nil:
		src = nearestPIL(src, w, h, *box)
	case alpha: // PIL resizes RGBA premultiplied ("RGBa")
		premultiply(src.pix)
		src = pilPasses(src, w, h, *box, *kernel)
		unpremultiply(src.pix)
	default:
		src = pilPasses(src, w, h, *box, *kernel)
	}
	switch img.(type) {
	case *image.Gray:
		return &image.Gray{Pix: src.pix, Stride: w, Rect: image.Rect(0, 0, w, h)}, nil
	case *image.RGBA:
		return &image.RGBA{Pix: src.pix, Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}, nil
	}
	return &image.NRGBA{Pix: src.pix, Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}, nil
}

// pilPasses is Pillow 13's ImagingResampleInner: a pass per axis whose
// length or box changes (PIL's test compares the box's end with the
// output's size), horizontal first unless the height shrinks by more
// than twice as many pixels as the width.
func pilPasses(src plane, w, h int, box [4]float64, k resample.Kernel) plane {
	needH := w != src.w || box[0] != 0 || box[2] != float64(w)
	needV := h != src.h || box[1] != 0 || box[3] != float64(h)
	horizontalFirst := !(src.h-h > 0 && src.h-h > (src.w-w)*2)
	if horizontalFirst && needH {
		src = pilPass(src, w, box[0], box[2], k, true)
	}
	if needV {
		src = pilPass(src, h, box[1], box[3], k, false)
	}
	if !horizontalFirst && needH {
		src = pilPass(src, w, box[0], box[2], k, true)
	}
	return src
}

// premultiply is PIL's RGBA to RGBa conversion: each colour times alpha
// / 255, rounded as PIL's MULDIV255.
func premultiply(pix []uint8) {
	for i := 0; i < len(pix); i += 4 {
		a := uint32(pix[i+3])
		for c := range 3 {
			t := uint32(pix[i+c])*a + 128
			pix[i+c] = uint8((t>>8 + t) >> 8)
		}
	}
}

// unpremultiply is PIL's RGBa to RGBA conversion: each colour times 255
// / alpha, truncated and clipped.
func unpremultiply(pix []uint8) {
	for i := 0; i < len(pix); i += 4 {
		a := uint32(pix[i+3])
		if a == 0 || a == 255 {
			continue
		}
		for c := range 3 {
			pix[i+c] = uint8(min(255, 255*uint32(pix[i+c])/a))
		}
	}
}

// plane is 8-bit pixels, w x h with c channels, row-major.
type plane struct {
	w, h, c int
	pix     []uint8
}

func packed(pix []uint8, stride, w, h, c int) []uint8 {
	out := make([]uint8, w*h*c)
	for y := range h {
		copy(out[y*w*c:(y+1)*w*c], pix[y*stride:y*stride+w*c])
	}
	return out
}

// pilBits is PIL's fixed-point precision for 8-bit resampling.
const pilBits = 32 - 8 - 2

// pilPass resamples one axis of p to n, reading [in0, in1) of it.
func pilPass(p plane, n int, in0, in1 float64, k resample.Kernel, horizontal bool) plane {
	in := p.h
	if horizontal {
		in = p.w
	}
	first, weights := resample.PILCoefficients(in, in0, in1, n, k)
	fixed := make([][]int64, n)
	for i, ws := range weights {
		fixed[i] = make([]int64, len(ws))
		for j, v := range ws {
			if v < 0 {
				fixed[i][j] = int64(-0.5 + v*(1<<pilBits))
			} else {
				fixed[i][j] = int64(0.5 + v*(1<<pilBits))
			}
		}
	}
	out := plane{p.w, n, p.c, nil}
	if horizontal {
		out = plane{n, p.h, p.c, nil}
	}
	out.pix = make([]uint8, out.w*out.h*out.c)
	across := p.w // the other axis
	if horizontal {
		across = p.h
	}
	for i := range n {
		for k := range across {
			for c := range p.c {
				ss := int64(1) << (pilBits - 1)
				for j, f := range fixed[i] {
					src := first[i] + j
					if horizontal {
						ss += int64(p.pix[(k*p.w+src)*p.c+c]) * f
					} else {
						ss += int64(p.pix[(src*p.w+k)*p.c+c]) * f
					}
				}
				v := uint8(max(0, min(255, ss>>pilBits)))
				if horizontal {
					out.pix[(k*out.w+i)*p.c+c] = v
				} else {
					out.pix[(i*out.w+k)*p.c+c] = v
				}
			}
		}
	}
	return out
}

// nearestPIL is PIL's nearest resize (ImagingScaleAffine): output x
// takes the source pixel int(x0), x0 starting at box start + scale/2 and
// growing by scale per pixel, summed as PIL sums it.
func nearestPIL(p plane, w, h int, box [4]float64) plane {
	positions := func(start, end float64, n, size int) []int {
		scale := float64(float32(end)-float32(start)) / float64(n)
		at := make([]int, n)
		v := float64(float32(start)) + scale*0.5
		for i := range at {
			at[i] = min(max(int(v), 0), size-1)
			v += scale
		}
		return at
	}
	xs, ys := positions(box[0], box[2], w, p.w), positions(box[1], box[3], h, p.h)
	out := plane{w, h, p.c, make([]uint8, w*h*p.c)}
	for y, yy := range ys {
		for x, xx := range xs {
			copy(out.pix[(y*w+x)*p.c:(y*w+x+1)*p.c], p.pix[(yy*p.w+xx)*p.c:(yy*p.w+xx+1)*p.c])
		}
	}
	return out
}

// Encode writes img in the format its file name's extension names
// (.png, .jpg or .jpeg with quality 75 as PIL's default, .gif, .bmp).
func Encode(w io.Writer, name string, img image.Image) error {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".png":
		return png.Encode(w, img)
	case ".jpg", ".jpeg":
		return jpeg.Encode(w, img, &jpeg.Options{Quality: 75})
	case ".gif":
		return gif.Encode(w, img, nil)
	case ".bmp":
		return bmp.Encode(w, img)
	}
	return fmt.Errorf("cannot tell the image format of %q: name it .png, .jpg, .jpeg, .gif or .bmp", name)
}
