// Package reuters loads the Reuters newswire topic classification
// dataset, like keras.datasets.reuters: 11,228 newswires as word ids
// (by frequency) with one of 46 topics, from Keras's reuters.npz,
// shuffled, prepared and split as Keras's load_data does. See package
// datasets for where the files are looked for.
package reuters
