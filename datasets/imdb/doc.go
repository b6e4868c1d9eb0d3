// Package imdb loads the IMDB movie review sentiment dataset, like
// keras.datasets.imdb: 25,000 training and 25,000 test reviews as word
// ids (by frequency) with their 0/1 labels, from Keras's imdb.npz,
// prepared as Keras's load_data prepares them. See package datasets for
// where the files are looked for.
package imdb
