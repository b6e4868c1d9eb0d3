// Package npy reads NumPy's .npy and .npz files and the NumPy arrays of
// Python pickles, as Keras's dataset loaders read them
// (keras/src/datasets/npz_utils.py): numeric arrays from their raw
// bytes, object arrays (IMDB's and Reuters's lists of word ids) from the
// pickle that follows their header, with only the NumPy classes Keras's
// RestrictedUnpickler allows (numpy.ndarray, numpy.dtype, and
// numpy.core.multiarray._reconstruct); any other class in a file is an
// error, as in Keras. Pickles are decoded by github.com/nlpodyssey/gopickle.
package npy
