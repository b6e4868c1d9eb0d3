// Package bostonhousing loads the Boston housing price regression
// dataset, like keras.datasets.boston_housing: 506 samples of 13
// features and the median price (in $1000s), from Keras's
// boston_housing.npz, shuffled and split as Keras does. See package
// datasets for where the file is looked for.
package bostonhousing
