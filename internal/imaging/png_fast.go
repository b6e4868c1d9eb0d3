package imaging

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"io"
	"sync"
)

// decodePNGFast decodes the PNGs a training folder holds, the common
// kinds (8 bits per sample, not interlaced: grey, RGB, palette, grey with
// alpha, RGBA), reusing its zlib decompressor and buffers between files:
// image/png allocates a new decompressor (tens of kilobytes) per image,
// which on small images costs more in garbage collection than the
// decoding itself. ok is false for any other PNG, which image/png then
// decodes; err is set for a damaged file.
func decodePNGFast(data []byte) (img image.Image, ok bool, err error) {
	const sig = "\x89PNG\r\n\x1a\n"
	if len(data) < len(sig) || string(data[:len(sig)]) != sig {
		return nil, false, nil
	}
	var (
		w, h            int
		colorType       byte
		palette         color.Palette
		transparency    []byte
		idat            = pngBuffers.Get().(*bytes.Buffer)
		seenHeader, end bool
	)
	defer func() {
		idat.Reset()
		pngBuffers.Put(idat)
	}()
	rest := data[len(sig):]
	for len(rest) > 0 && !end {
		if len(rest) < 12 {
			return nil, false, errors.New("png: truncated chunk")
		}
		n := int(binary.BigEndian.Uint32(rest))
		if n < 0 || 12+n > len(rest) {
			return nil, false, errors.New("png: truncated chunk")
		}
		kind, body := string(rest[4:8]), rest[8:8+n]
		if crc32.ChecksumIEEE(rest[4:8+n]) != binary.BigEndian.Uint32(rest[8+n:]) {
			return nil, false, errors.New("png: invalid checksum")
		}
		rest = rest[12+n:]
		switch kind {
		case "IHDR":
			if n != 13 {
				return nil, false, errors.New("png: bad IHDR")
			}
			w, h = int(binary.BigEndian.Uint32(body)), int(binary.BigEndian.Uint32(body[4:]))
			depth, interlace := body[8], body[12]
			colorType = body[9]
			if depth != 8 || interlace != 0 || body[10] != 0 || body[11] != 0 || w <= 0 || h <= 0 || w > 1<<15 || h > 1<<15 {
				return nil, false, nil // image/png's business
			}
			switch colorType {
			case 0, 2, 3, 4, 6:
			default:
				return nil, false, nil
			}
			seenHeader = true
		case "PLTE":
			if n%3 != 0 || n/3 > 256 {
				return nil, false, errors.New("png: bad PLTE")
			}
			palette = make(color.Palette, n/3)
			for i := range palette {
				palette[i] = color.RGBA{body[3*i], body[3*i+1], body[3*i+2], 255}
			}
		case "tRNS":
			if colorType != 3 {
				return nil, false, nil // transparency keyed on a colour: image/png's business
			}
			transparency = body
		case "IDAT":
			idat.Write(body)
		case "IEND":
			end = true
		}
	}
	if !seenHeader || !end {
		return nil, false, errors.New("png: missing IHDR or IEND")
	}
	channels := map[byte]int{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colorType]
	stride := w * channels
	raw := pngRows.Get().(*[]byte)
	defer pngRows.Put(raw)
	if need := h * (stride + 1); cap(*raw) < need {
		*raw = make([]byte, need)
	} else {
		*raw = (*raw)[:need]
	}
	z := pngInflaters.Get()
	var zr io.ReadCloser
	if z == nil {
		if zr, err = zlib.NewReader(bytes.NewReader(idat.Bytes())); err != nil {
			return nil, false, err
		}
	} else {
		zr = z.(io.ReadCloser)
		if err := zr.(zlib.Resetter).Reset(bytes.NewReader(idat.Bytes()), nil); err != nil {
			return nil, false, err
		}
	}
	_, err = io.ReadFull(zr, *raw)
	pngInflaters.Put(zr)
	if err != nil {
		return nil, false, errors.New("png: not enough pixel data: " + err.Error())
	}
	pix := make([]byte, h*stride)
	if err := unfilter(*raw, pix, stride, channels, h); err != nil {
		return nil, false, err
	}
	r := image.Rect(0, 0, w, h)
	switch colorType {
	case 0:
		return &image.Gray{Pix: pix, Stride: stride, Rect: r}, true, nil
	case 2:
		out := image.NewRGBA(r)
		for i := range w * h {
			copy(out.Pix[4*i:4*i+3], pix[3*i:3*i+3])
			out.Pix[4*i+3] = 255
		}
		return out, true, nil
	case 3:
		if palette == nil {
			return nil, false, errors.New("png: palette image without PLTE")
		}
		for i, a := range transparency {
			if i < len(palette) {
				c := palette[i].(color.RGBA)
				palette[i] = color.NRGBA{c.R, c.G, c.B, a}
			}
		}
		for _, v := range pix {
			if int(v) >= len(palette) {
				return nil, false, errors.New("png: palette index out of range")
			}
		}
		return &image.Paletted{Pix: pix, Stride: stride, Rect: r, Palette: palette}, true, nil
	case 4:
		out := image.NewNRGBA(r)
		for i := range w * h {
			g := pix[2*i]
			out.Pix[4*i], out.Pix[4*i+1], out.Pix[4*i+2], out.Pix[4*i+3] = g, g, g, pix[2*i+1]
		}
		return out, true, nil
	}
	return &image.NRGBA{Pix: pix, Stride: stride, Rect: r}, true, nil
}

// unfilter undoes PNG's per-row filters (None, Sub, Up, Average, Paeth)
// from raw (a filter byte then stride bytes per row) into pix.
func unfilter(raw, pix []byte, stride, bpp, h int) error {
	prev := make([]byte, stride)
	for y := range h {
		f, cur := raw[y*(stride+1)], pix[y*stride:(y+1)*stride]
		copy(cur, raw[y*(stride+1)+1:(y+1)*(stride+1)])
		switch f {
		case 0:
		case 1:
			for i := bpp; i < stride; i++ {
				cur[i] += cur[i-bpp]
			}
		case 2:
			for i := range cur {
				cur[i] += prev[i]
			}
		case 3:
			for i := range cur {
				var left byte
				if i >= bpp {
					left = cur[i-bpp]
				}
				cur[i] += byte((int(left) + int(prev[i])) / 2)
			}
		case 4:
			for i := range cur {
				var a, c int
				if i >= bpp {
					a, c = int(cur[i-bpp]), int(prev[i-bpp])
				}
				b := int(prev[i])
				p := a + b - c
				pa, pb, pc := abs(p-a), abs(p-b), abs(p-c)
				switch {
				case pa <= pb && pa <= pc:
					cur[i] += byte(a)
				case pb <= pc:
					cur[i] += byte(b)
				default:
					cur[i] += byte(c)
				}
			}
		default:
			return errors.New("png: bad filter type")
		}
		prev = cur
	}
	return nil
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// The buffers and decompressors decodePNGFast reuses.
var (
	pngBuffers   = sync.Pool{New: func() any { return new(bytes.Buffer) }}
	pngRows      = sync.Pool{New: func() any { return new([]byte) }}
	pngInflaters sync.Pool
)
