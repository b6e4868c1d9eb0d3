package wav

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
)

// file builds a WAV file of the given format chunk fields and raw data,
// with an extra chunk before the data (as LIST chunks often are).
func file(format, channels uint16, rate uint32, bits uint16, extensible bool, data []byte) []byte {
	fmtChunk := binary.LittleEndian.AppendUint16(nil, format)
	if extensible {
		fmtChunk = binary.LittleEndian.AppendUint16(nil, formatExtensible)
	}
	fmtChunk = binary.LittleEndian.AppendUint16(fmtChunk, channels)
	fmtChunk = binary.LittleEndian.AppendUint32(fmtChunk, rate)
	fmtChunk = binary.LittleEndian.AppendUint32(fmtChunk, rate*uint32(channels*bits/8))
	fmtChunk = binary.LittleEndian.AppendUint16(fmtChunk, channels*bits/8)
	fmtChunk = binary.LittleEndian.AppendUint16(fmtChunk, bits)
	if extensible {
		fmtChunk = binary.LittleEndian.AppendUint16(fmtChunk, 22)
		fmtChunk = binary.LittleEndian.AppendUint16(fmtChunk, bits)
		fmtChunk = binary.LittleEndian.AppendUint32(fmtChunk, 3)
		fmtChunk = binary.LittleEndian.AppendUint16(fmtChunk, format)
		fmtChunk = append(fmtChunk, "\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"...)
	}
	chunk := func(id string, body []byte) []byte {
		out := binary.LittleEndian.AppendUint32([]byte(id), uint32(len(body)))
		out = append(out, body...)
		if len(body)%2 == 1 {
			out = append(out, 0)
		}
		return out
	}
	body := []byte("WAVE")
	body = append(body, chunk("fmt ", fmtChunk)...)
	body = append(body, chunk("LIST", []byte("INFOx"))...) // odd: padded
	body = append(body, chunk("data", data)...)
	return append(binary.LittleEndian.AppendUint32([]byte("RIFF"), uint32(len(body))), body...)
}

// The sample values TensorFlow's decode_wav gives for a 16-bit file
// (printed by TF 2.20 for int16 samples [[0, 1000], [-32768, 32767],
// [5, -5]]), and the same scaling for the other widths.
func TestDecode(t *testing.T) {
	var pcm16 []byte
	for _, v := range []int16{0, 1000, -32768, 32767, 5, -5} {
		pcm16 = binary.LittleEndian.AppendUint16(pcm16, uint16(v))
	}
	want16 := "[0 0.030517578 -1 0.9999695 0.00015258789 -0.00015258789]"
	var f32 []byte
	for _, v := range []float32{0.25, -0.5} {
		f32 = binary.LittleEndian.AppendUint32(f32, math.Float32bits(v))
	}
	for _, c := range []struct {
		name     string
		data     []byte
		channels int
		want     string
	}{
		{"pcm16", file(formatPCM, 2, 8000, 16, false, pcm16), 2, want16},
		{"pcm16 extensible", file(formatPCM, 2, 8000, 16, true, pcm16), 2, want16},
		{"pcm8", file(formatPCM, 1, 8000, 8, false, []byte{128, 0, 255}), 1, "[0 -1 0.9921875]"},
		{"pcm24", file(formatPCM, 1, 8000, 24, false, []byte{0, 0, 0x80, 0xff, 0xff, 0x7f, 0, 0, 0x40}), 1, "[-1 0.9999999 0.5]"},
		{"pcm32", file(formatPCM, 1, 8000, 32, false, []byte{0, 0, 0, 0x80, 0, 0, 0, 0x40}), 1, "[-1 0.5]"},
		{"float32", file(formatFloat, 1, 8000, 32, false, f32), 1, "[0.25 -0.5]"},
	} {
		a, err := Decode(c.data)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if a.Channels != c.channels || a.SampleRate != 8000 || a.Frames*a.Channels != len(a.Samples) {
			t.Errorf("%s: %d channels, rate %d, %d frames of %d samples", c.name, a.Channels, a.SampleRate, a.Frames, len(a.Samples))
		}
		if got := fmt.Sprint(a.Samples); got != c.want {
			t.Errorf("%s: samples %s, want %s", c.name, got, c.want)
		}
	}
}

// Files Decode cannot read are errors that say why.
func TestDecodeRefuses(t *testing.T) {
	good := file(formatPCM, 1, 8000, 16, false, []byte{1, 0})
	for _, c := range []struct {
		name, want string
		data       []byte
	}{
		{"not RIFF", "RIFF WAVE header", []byte("hello world, not a wav")},
		{"12-bit", "12-bit samples of format 1", file(formatPCM, 1, 8000, 12, false, []byte{1, 0})},
		{"alaw", "of format 6", file(6, 1, 8000, 8, false, []byte{1})},
		{"no data", "no data chunk", good[:len(good)-10]},
		{"truncated fmt", "truncated", good[:30]},
	} {
		if _, err := Decode(c.data); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}
