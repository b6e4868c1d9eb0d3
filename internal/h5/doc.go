// Package h5 reads and writes the part of HDF5 that Keras's weights files
// use: the classic layout h5py writes by default (superblock version 0,
// version 1 object headers, symbol-table groups), with string attributes
// on groups and contiguous datasets of float32, float64 and integers,
// scalar or n-dimensional.
//
// Both directions are written here, with strict bounds, rather than
// through a general HDF5 library. The pure-Go github.com/scigolib/hdf5
// v0.14.0 was tried first (2026-11-22): it reads Keras's files, but it
// cannot write scalar datasets (Keras stores the optimizer's iteration
// count and learning rate as scalars and refuses a (1,) array in their
// place), and on a corrupt file it allocates whatever size the file
// declares (a fuzzed local heap made it request a terabyte and the
// process died of "out of memory", which no recover can catch). This
// reader checks every structure against the file's size before it
// allocates, limits nesting and object counts, and refuses what Keras
// never writes (compression, chunking, external storage, new-style
// groups) with an error that says so.
package h5
