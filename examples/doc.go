// Package examples holds runnable programs that train the models Keras's
// own examples build, on data generated on the spot or on Fashion-MNIST
// (Debian's dataset-fashion-mnist; no download):
//
//   - examples/sentiment: Embedding + LSTM text classifier
//   - examples/forecast: LSTM time-series forecaster
//   - examples/imageclassification: Keras's "Image classification from
//     scratch" on a folder of PNG files it draws (ImageDatasetFromDirectory,
//     augmentation layers in the model, LoadImg)
//   - examples/textclassification: Keras's "Text classification from
//     scratch" on a folder of reviews it writes (TextDatasetFromDirectory,
//     a TextVectorization in the model, raw strings in after LoadModel)
//   - examples/transformer: Keras's transformer text classifier
//   - examples/gan: the GAN of Keras's "Customizing what happens in fit()",
//     trained by Fit with its own step and two optimizers
//   - examples/vae: Keras's variational autoencoder, its KL term added by
//     a layer (layers.Context.AddLoss)
//   - examples/distillation: Keras's "Knowledge Distillation", a
//     Distiller train step (written with keras/ops) that calls a teacher
//     outside the fitted student
//   - examples/siamese: Keras's "Siamese Network with a contrastive
//     loss", two towers sharing one embedding model, a distance layer and
//     the contrastive loss written with keras/ops
//   - examples/gradcam: Keras's "Grad-CAM class activation
//     visualization", the gradient of a class score with respect to a
//     convolution's output inside one compiled function (keras/ops)
//   - examples/vit: Keras's "Image classification with Vision
//     Transformer": patches by ops.ExtractPatches, a PatchEncoder layer
//     holding a Dense and an Embedding, transformer blocks
//   - examples/gpt: Keras's "Text generation with a miniature GPT": a
//     TransformerBlock layer holding its layers, causal attention, and a
//     top-k sampling loop
//   - examples/seq2seq: Keras's "Character-level recurrent
//     sequence-to-sequence model": encoder states into a decoder, then
//     encoder and one-step decoder models sharing its layers and an
//     inference loop
//   - examples/segmentation: Keras's "Image segmentation with a
//     U-Net-like architecture" on drawn shapes (separable convolutions,
//     residual projections, transposed convolutions, per-pixel softmax)
//   - examples/ner: Keras's "Named Entity Recognition using
//     Transformers": a model written as code for sentences of any length
//     (layers.AnyLength), its loss leaving the padding out, trained on
//     batches padded to their own longest sentence
//   - examples/weather: Keras's "Timeseries forecasting for weather
//     prediction" with windows of one, two and three days into one model
//     of any window length
//   - examples/charlm: Keras's "Character-level text generation with
//     LSTM": windows of several lengths, then a one-step model sharing its
//     layers that carries the LSTM's state and writes text of any length
//   - examples/trainloop: a hand-written TrainOnBatch loop, as Keras's
//     "Writing a training loop from scratch", that ends with Fit's weights
//
// Each takes -backend (gorgonia, libtorch, ...) and -epochs, prints
// Keras's progress and the time per epoch, and ends with its test score.
// Run one with `go run ./examples/sentiment`.
package examples
