package tfevents

import (
	"encoding/binary"
	"hash/crc32"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// The checksum is CRC-32C (the standard check value of "123456789" is
// 0xe3069283), masked as TFRecord masks it.
func TestMaskedCRC(t *testing.T) {
	if c := crc32.Checksum([]byte("123456789"), castagnoli); c != 0xe3069283 {
		t.Fatalf("CRC-32C of 123456789 = %#x, want 0xe3069283", c)
	}
	c := uint32(0xe3069283)
	if got, want := masked([]byte("123456789")), ((c>>15)|(c<<17))+0xa282ead8; got != want {
		t.Fatalf("masked = %#x, want %#x", got, want)
	}
}

// A file holds TFRecords whose checksums hold, the file-version event
// first, then one event per summary, each with its step and tag.
// (keras/tensorboard_test.go reads files with TensorBoard itself.)
func TestRecordsReadBack(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(filepath.Join(dir, "train"))
	if err != nil {
		t.Fatal(err)
	}
	w.Scalar("epoch_loss", 3, 0.25)
	w.Histogram("dense/kernel/histogram", 3, []float64{1, 2, 2, 5})
	w.Histogram("same/histogram", 3, []float64{7, 7})
	w.Images("img", 3, []image.Image{image.NewGray(image.Rect(0, 0, 2, 3))})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(filepath.Base(w.Path()), "tfevents") {
		t.Errorf("file name %s: TensorBoard reads files named *tfevents*", w.Path())
	}
	data, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	var events [][]byte
	for len(data) > 0 {
		if len(data) < 12 {
			t.Fatalf("a truncated record header")
		}
		n := binary.LittleEndian.Uint64(data[:8])
		if binary.LittleEndian.Uint32(data[8:12]) != masked(data[:8]) {
			t.Fatal("the length's checksum does not hold")
		}
		body := data[12 : 12+n]
		if binary.LittleEndian.Uint32(data[12+n:16+n]) != masked(body) {
			t.Fatal("the data's checksum does not hold")
		}
		events = append(events, body)
		data = data[16+n:]
	}
	if len(events) != 5 {
		t.Fatalf("%d events, want the version and 4 summaries", len(events))
	}
	if !strings.Contains(string(events[0]), "brain.Event:2") {
		t.Errorf("first event %q is not the file version", events[0])
	}
	for i, tag := range []string{"epoch_loss", "dense/kernel/histogram", "same/histogram", "img"} {
		step, ok := field(events[i+1], 2)
		if !ok || step != 3 {
			t.Errorf("event %d: step %d, want 3", i+1, step)
		}
		if !strings.Contains(string(events[i+1]), tag) {
			t.Errorf("event %d does not hold the tag %s", i+1, tag)
		}
	}
}

// field returns the varint field num of a message.
func field(msg []byte, num protowire.Number) (uint64, bool) {
	for len(msg) > 0 {
		n, typ, l := protowire.ConsumeTag(msg)
		if l < 0 {
			return 0, false
		}
		msg = msg[l:]
		if typ == protowire.VarintType {
			v, l := protowire.ConsumeVarint(msg)
			if n == num {
				return v, true
			}
			msg = msg[l:]
			continue
		}
		l = protowire.ConsumeFieldValue(n, typ, msg)
		if l < 0 {
			return 0, false
		}
		msg = msg[l:]
	}
	return 0, false
}
