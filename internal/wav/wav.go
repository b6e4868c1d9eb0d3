// Package wav decodes WAV (RIFF WAVE) audio files into float samples,
// as TensorFlow's tf.audio.decode_wav does for the 16-bit PCM files it
// reads: each sample divided by 32768, frames by channels. It also reads
// what decode_wav refuses: 8-, 24- and 32-bit PCM (scaled to [-1, 1) the
// same way) and 32-bit IEEE float, in the plain and the extensible
// formats.
//
// It is written here rather than taken from a library: the usual Go one,
// github.com/go-audio/wav, reads a sample per call without checking short
// reads and decodes float files as integers.
package wav

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Audio is a decoded file: Frames × Channels samples, frame-major (the
// channels of frame 0, then of frame 1, ...).
type Audio struct {
	Samples    []float32
	Frames     int
	Channels   int
	SampleRate int
}

const (
	formatPCM        = 1
	formatFloat      = 3
	formatExtensible = 0xfffe
)

// Decode reads a WAV file's bytes.
func Decode(data []byte) (Audio, error) {
	if len(data) < 12 || string(data[0:4]) != "RIFF" || string(data[8:12]) != "WAVE" {
		return Audio{}, fmt.Errorf("not a WAV file: it does not start with a RIFF WAVE header")
	}
	var (
		format, bits, channels uint16
		rate                   uint32
		haveFormat             bool
	)
	for p := 12; p+8 <= len(data); {
		id, size := string(data[p:p+4]), int(binary.LittleEndian.Uint32(data[p+4:p+8]))
		body := data[p+8:]
		if size > len(body) {
			if id != "data" {
				return Audio{}, fmt.Errorf("the WAV file is truncated: its %q chunk says %d bytes, %d are left", id, size, len(body))
			}
			size = len(body) - len(body)%max(1, int(channels)*int(bits)/8) // a streamed file's data size is often wrong
		}
		body = body[:size]
		switch id {
		case "fmt ":
			if size < 16 {
				return Audio{}, fmt.Errorf("the WAV file's format chunk has %d bytes, fewer than 16", size)
			}
			format = binary.LittleEndian.Uint16(body[0:2])
			channels = binary.LittleEndian.Uint16(body[2:4])
			rate = binary.LittleEndian.Uint32(body[4:8])
			bits = binary.LittleEndian.Uint16(body[14:16])
			if format == formatExtensible {
				if size < 26 {
					return Audio{}, fmt.Errorf("the WAV file's extensible format chunk has %d bytes, fewer than 26", size)
				}
				format = binary.LittleEndian.Uint16(body[24:26]) // the sub-format GUID's first two bytes
			}
			haveFormat = true
		case "data":
			if !haveFormat {
				return Audio{}, fmt.Errorf("the WAV file's data chunk comes before its format chunk")
			}
			return decodeSamples(body, format, bits, int(channels), int(rate))
		}
		p += 8 + size + size%2
	}
	return Audio{}, fmt.Errorf("the WAV file has no data chunk")
}

func decodeSamples(body []byte, format, bits uint16, channels, rate int) (Audio, error) {
	if channels < 1 {
		return Audio{}, fmt.Errorf("the WAV file has %d channels", channels)
	}
	var sample func(b []byte) float32
	switch {
	case format == formatPCM && bits == 16:
		sample = func(b []byte) float32 { return float32(int16(binary.LittleEndian.Uint16(b))) / (1 << 15) }
	case format == formatPCM && bits == 8: // unsigned, 128 is silence
		sample = func(b []byte) float32 { return float32(int(b[0])-128) / (1 << 7) }
	case format == formatPCM && bits == 24:
		sample = func(b []byte) float32 {
			return float32(int32(uint32(b[0])<<8|uint32(b[1])<<16|uint32(b[2])<<24)>>8) / (1 << 23)
		}
	case format == formatPCM && bits == 32:
		sample = func(b []byte) float32 { return float32(float64(int32(binary.LittleEndian.Uint32(b))) / (1 << 31)) }
	case format == formatFloat && bits == 32:
		sample = func(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }
	default:
		return Audio{}, fmt.Errorf("the WAV file holds %d-bit samples of format %d: kerasgo reads 8-, 16-, 24- and 32-bit PCM (format 1) and 32-bit float (format 3) (Keras's loader, TensorFlow's decode_wav, reads 16-bit PCM only)", bits, format)
	}
	width := int(bits) / 8
	frames := len(body) / (width * channels)
	a := Audio{Samples: make([]float32, frames*channels), Frames: frames, Channels: channels, SampleRate: rate}
	for i := range a.Samples {
		a.Samples[i] = sample(body[i*width:])
	}
	return a, nil
}
