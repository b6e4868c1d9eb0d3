package tfevents

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// Writer appends events to one event file of a run directory.
type Writer struct {
	f    *os.File
	w    *bufio.Writer
	path string
	err  error
}

var fileCounter atomic.Int64

// Create makes dir (and its parents) and starts a new event file in it,
// named as TensorFlow names its own (events.out.tfevents.<seconds>.
// <host>.<pid>.<n>.v2), with the file-version event first.
func Create(dir string) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	host, err := os.Hostname()
	if err != nil {
		host = "localhost"
	}
	name := fmt.Sprintf("events.out.tfevents.%d.%s.%d.%d.v2", time.Now().Unix(), host, os.Getpid(), fileCounter.Add(1))
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	w := &Writer{f: f, w: bufio.NewWriter(f), path: path}
	var ev []byte
	ev = protowire.AppendTag(ev, 1, protowire.Fixed64Type)
	ev = protowire.AppendFixed64(ev, math.Float64bits(wallTime()))
	ev = protowire.AppendTag(ev, 3, protowire.BytesType)
	ev = protowire.AppendString(ev, "brain.Event:2")
	w.record(ev)
	return w, w.Flush()
}

// Path is the event file's path.
func (w *Writer) Path() string { return w.path }

func wallTime() float64 { return float64(time.Now().UnixNano()) / 1e9 }

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// masked is TFRecord's masked CRC-32C.
func masked(b []byte) uint32 {
	c := crc32.Checksum(b, castagnoli)
	return ((c >> 15) | (c << 17)) + 0xa282ead8
}

// record writes one TFRecord: length, its checksum, data, its checksum.
func (w *Writer) record(data []byte) {
	if w.err != nil {
		return
	}
	var head [12]byte
	binary.LittleEndian.PutUint64(head[:8], uint64(len(data)))
	binary.LittleEndian.PutUint32(head[8:], masked(head[:8]))
	var tail [4]byte
	binary.LittleEndian.PutUint32(tail[:], masked(data))
	for _, b := range [][]byte{head[:], data, tail[:]} {
		if _, err := w.w.Write(b); err != nil {
			w.err = err
			return
		}
	}
}

// Data classes of SummaryMetadata (summary.proto's DataClass).
const (
	classScalar       = 1
	classTensor       = 2
	classBlobSequence = 3
)

// TensorFlow's DataType numbers.
const (
	dtFloat  = 1
	dtDouble = 2
	dtString = 7
)

// summary writes an Event at step holding one Summary.Value.
func (w *Writer) summary(step int64, tag, plugin string, content []byte, class int, tensor []byte) {
	var meta []byte
	var pd []byte
	pd = protowire.AppendTag(pd, 1, protowire.BytesType)
	pd = protowire.AppendString(pd, plugin)
	if len(content) > 0 {
		pd = protowire.AppendTag(pd, 2, protowire.BytesType)
		pd = protowire.AppendBytes(pd, content)
	}
	meta = protowire.AppendTag(meta, 1, protowire.BytesType)
	meta = protowire.AppendBytes(meta, pd)
	if class != 0 {
		meta = protowire.AppendTag(meta, 4, protowire.VarintType)
		meta = protowire.AppendVarint(meta, uint64(class))
	}
	var value []byte
	value = protowire.AppendTag(value, 1, protowire.BytesType)
	value = protowire.AppendString(value, tag)
	value = protowire.AppendTag(value, 9, protowire.BytesType)
	value = protowire.AppendBytes(value, meta)
	value = protowire.AppendTag(value, 8, protowire.BytesType)
	value = protowire.AppendBytes(value, tensor)
	var sum []byte
	sum = protowire.AppendTag(sum, 1, protowire.BytesType)
	sum = protowire.AppendBytes(sum, value)
	var ev []byte
	ev = protowire.AppendTag(ev, 1, protowire.Fixed64Type)
	ev = protowire.AppendFixed64(ev, math.Float64bits(wallTime()))
	ev = protowire.AppendTag(ev, 2, protowire.VarintType)
	ev = protowire.AppendVarint(ev, uint64(step))
	ev = protowire.AppendTag(ev, 5, protowire.BytesType)
	ev = protowire.AppendBytes(ev, sum)
	w.record(ev)
}

// tensorProto encodes a TensorProto of a dtype and shape whose values
// follow in values (already encoded fields).
func tensorProto(dtype int, shape []int, values []byte) []byte {
	var t []byte
	t = protowire.AppendTag(t, 1, protowire.VarintType)
	t = protowire.AppendVarint(t, uint64(dtype))
	var sh []byte
	for _, d := range shape {
		var dim []byte
		dim = protowire.AppendTag(dim, 1, protowire.VarintType)
		dim = protowire.AppendVarint(dim, uint64(d))
		sh = protowire.AppendTag(sh, 2, protowire.BytesType)
		sh = protowire.AppendBytes(sh, dim)
	}
	t = protowire.AppendTag(t, 2, protowire.BytesType)
	t = protowire.AppendBytes(t, sh)
	return append(t, values...)
}

// Scalar writes a scalar summary, as tf.summary.scalar: a float32 tensor
// for TensorBoard's scalars plugin.
func (w *Writer) Scalar(tag string, step int64, v float64) {
	var vals []byte
	vals = protowire.AppendTag(vals, 5, protowire.BytesType)
	vals = protowire.AppendBytes(vals, binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(v))))
	w.summary(step, tag, "scalars", nil, classScalar, tensorProto(dtFloat, nil, vals))
}

// HistogramBuckets is how many buckets Histogram makes, tf.summary's
// default.
const HistogramBuckets = 30

// Histogram writes a histogram summary, as tf.summary.histogram
// (TensorBoard's histogram summary_v2._buckets): a float64 tensor
// (HistogramBuckets, 3) of [left edge, right edge, count], buckets of
// equal width from the lowest value to the highest (a value's bucket is
// floor((v - lowest)/width), the highest in the last), or, when every
// value is the same v, buckets [v, v] with all the values in the last;
// zeros for no values.
func (w *Writer) Histogram(tag string, step int64, values []float64) {
	rows := make([][3]float64, HistogramBuckets)
	if len(values) > 0 {
		lo, hi := values[0], values[0]
		for _, v := range values {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		if lo == hi {
			for i := range rows {
				rows[i][0], rows[i][1] = hi, hi
			}
			rows[HistogramBuckets-1][2] = float64(len(values))
		} else {
			width := (hi - lo) / HistogramBuckets
			for i := range rows {
				rows[i][0] = lo + float64(i)*(hi-lo)/HistogramBuckets
				if i > 0 {
					rows[i-1][1] = rows[i][0]
				}
			}
			rows[HistogramBuckets-1][1] = hi
			for _, v := range values {
				rows[min(int(math.Floor((v-lo)/width)), HistogramBuckets-1)][2]++
			}
		}
	}
	packed := make([]byte, 0, 24*len(rows))
	for _, r := range rows {
		for _, v := range r {
			packed = binary.LittleEndian.AppendUint64(packed, math.Float64bits(v))
		}
	}
	var vals []byte
	vals = protowire.AppendTag(vals, 6, protowire.BytesType)
	vals = protowire.AppendBytes(vals, packed)
	w.summary(step, tag, "histograms", nil, classTensor, tensorProto(dtDouble, []int{len(rows), 3}, vals))
}

// Images writes an image summary, as tf.summary.image: a string tensor
// of the width, the height and each image PNG-encoded, for TensorBoard's
// images plugin.
func (w *Writer) Images(tag string, step int64, images []image.Image) {
	if len(images) == 0 {
		return
	}
	b := images[0].Bounds()
	blobs := [][]byte{[]byte(strconv.Itoa(b.Dx())), []byte(strconv.Itoa(b.Dy()))}
	for _, img := range images {
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			w.err = err
			return
		}
		blobs = append(blobs, buf.Bytes())
	}
	w.blobs(tag, step, "images", nil, blobs)
}

// String writes one string as a scalar string tensor for a plugin, with
// no data class, as tf.summary.write does (Keras's model summary: its
// JSON for the graph_keras_model plugin, content "1").
func (w *Writer) String(tag string, step int64, plugin string, content []byte, text string) {
	var vals []byte
	vals = protowire.AppendTag(vals, 8, protowire.BytesType)
	vals = protowire.AppendString(vals, text)
	w.summary(step, tag, plugin, content, 0, tensorProto(dtString, nil, vals))
}

func (w *Writer) blobs(tag string, step int64, plugin string, content []byte, blobs [][]byte) {
	var vals []byte
	for _, b := range blobs {
		vals = protowire.AppendTag(vals, 8, protowire.BytesType)
		vals = protowire.AppendBytes(vals, b)
	}
	w.summary(step, tag, plugin, content, classBlobSequence, tensorProto(dtString, []int{len(blobs)}, vals))
}

// Flush writes what is buffered to the file.
func (w *Writer) Flush() error {
	if w.err == nil {
		w.err = w.w.Flush()
	}
	return w.err
}

// Close flushes and closes the file.
func (w *Writer) Close() error {
	err := w.Flush()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}
