// Package cifar10 loads CIFAR-10, like keras.datasets.cifar10: 50,000
// training and 10,000 test colour images of 32×32 in 10 classes, from
// Keras's extraction of cifar-10-python.tar.gz. See package datasets for
// where the files are looked for.
package cifar10
