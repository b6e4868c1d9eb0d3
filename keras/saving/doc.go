// Package saving reads and writes the files a Keras model is kept in:
//
//   - the .keras archive of Keras 3 (keras/src/saving/saving_lib.py): a
//     zip of metadata.json, config.json and model.weights.h5;
//   - weights alone: Keras's .weights.h5, and .safetensors for PyTorch and
//     Hugging Face users.
//
// It knows the file formats and Keras's layout inside them (where each
// layer's variables go); package keras turns a model into these and back.
//
// Every write goes to a temporary file in the target's directory, is
// synced and then renamed over the target, so a crash leaves either the old
// file or the new one, never a broken one. Every read checks declared
// sizes before allocating, so a corrupt or hostile file is an error, not a
// panic or an unbounded allocation.
package saving
