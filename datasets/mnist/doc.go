// Package mnist loads MNIST and Fashion-MNIST from IDX files.
//
// [Load] looks for the four IDX files (raw or gzip-compressed) in order:
// an explicit directory; the cache ($KERASGO_DATA, else ~/.kerasgo/datasets)
// under the dataset's name; for Fashion-MNIST, Debian's dataset-fashion-mnist
// package (/usr/share/datasets/fashion-mnist); and last, when allowed, a
// download from the dataset's canonical mirrors, checked against pinned
// SHA-256 sums and written atomically into the cache.
//
// [ReadIDX] validates an IDX header before allocating anything from it.
package mnist
