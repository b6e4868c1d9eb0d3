// Package cifar100 loads CIFAR-100, like keras.datasets.cifar100:
// 50,000 training and 10,000 test colour images of 32×32 in 100 fine
// classes (or 20 coarse ones), from Keras's extraction of
// cifar-100-python.tar.gz. See package datasets for where the files are
// looked for.
package cifar100
