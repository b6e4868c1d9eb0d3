// Package boundingboxes is Keras's keras.utils.bounding_boxes: bounding
// boxes as tensors of shape (..., 4), converted between Keras's formats
// (ConvertFormat), clipped, cropped, padded and transformed with their
// images, compared (ComputeIoU, ComputeCIoU) and encoded against anchors
// (EncodeBoxToDeltas, DecodeDeltasToBoxes). Each function builds its
// computation with a keras/ops Builder, so it runs on every engine,
// inside a layer, a loss or a custom step, and is differentiable where
// Keras's is; its formulas are Keras's own, in Keras's order of
// operations, and are checked against Keras.
//
// Where kerasgo differs: image sizes, offsets and the variance are Go
// numbers (Keras also takes tensors), ClipToImageSize takes and returns
// the boxes and labels apart (Keras's dict), and DecodeDeltasToBoxes
// decodes one level (call it per level for Keras's dict of levels).
// Keras's image augmentation layers that also transform boxes, and
// MaxNumBoundingBoxes, are not written yet.
package boundingboxes
