// Package utils is Keras's keras.utils: what turns files and plain data
// into what Fit takes. ImageDatasetFromDirectory and
// TextDatasetFromDirectory read a folder of files as a Dataset, batch by
// batch; TimeseriesDatasetFromArray makes sliding windows; LoadImg,
// ImgToArray and SaveImg read and write one image; PadSequences and
// ToCategorical shape sequences and labels; FeatureSpace preprocesses and
// encodes structured data (a column per feature); GetFile fetches a file into
// Keras's cache (~/.keras), which it shares with Keras.
//
// Each follows its Keras function's arguments and defaults (the options'
// doc comments name where kerasgo differs). The datasets are safe for the
// concurrent Batch calls of Fit's loader goroutines; the functions keep
// no state (GetFile's downloads go to a temporary file renamed into place,
// so concurrent calls for one file each leave a whole file).
package utils
