// Package californiahousing loads the California housing price
// regression dataset, like keras.datasets.california_housing: 20,640
// samples of 8 features and the median house value, from Keras's
// california_housing.npz, shuffled and split as Keras does. See package
// datasets for where the file is looked for.
package californiahousing
