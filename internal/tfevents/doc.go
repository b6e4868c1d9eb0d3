// Package tfevents writes TensorBoard event files: the TFRecord framing
// (length, masked CRC-32C checksums) around Event protocol buffers
// holding summaries in TensorFlow 2's form (tf.summary's tensors with a
// plugin's metadata), which TensorBoard reads. It writes scalars,
// histograms, images and text-like blobs; the protocol buffers are
// encoded with google.golang.org/protobuf's wire format from the field
// numbers of tensorflow/core/util/event.proto and
// tensorflow/core/framework/{summary,tensor,tensor_shape}.proto.
//
// A Writer is safe for use by one goroutine at a time.
package tfevents
