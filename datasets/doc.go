// Package datasets holds what kerasgo's loaders of Keras's datasets
// share (its subpackages: cifar10, cifar100, imdb, reuters,
// bostonhousing, californiahousing; mnist has its own): where the files
// are looked for, and the arrays a loader returns.
//
// A loader reads the files Keras's keras.datasets loader reads, from the
// place Keras keeps them ($KERAS_HOME/datasets, else ~/.keras/datasets),
// so a dataset Keras downloaded is found without a download, and one
// kerasgo downloads is found by Keras. Options.Dir reads from a
// directory of your own instead; Options.Download allows fetching a
// missing file from the URL Keras uses, checked against Keras's hash
// (keras/utils.GetFile). Without either, a missing file is an error that
// names it and says how to get it.
//
// The functions are safe for concurrent use on different directories.
package datasets
