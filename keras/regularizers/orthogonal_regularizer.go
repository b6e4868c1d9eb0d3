package regularizers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// OrthogonalRegularizer encourages the rows (Mode "rows", the default) or
// the columns (Mode "columns") of a matrix to be orthogonal, like
// keras.regularizers.OrthogonalRegularizer: Factor * 0.5 times the mean,
// over the pairs of distinct rows, of the absolute dot products of the
// L2-normalised rows, that is
// Factor * 0.5 * sum(|N·Nᵀ - diag|) / (n(n-1)/2). A zero Factor is
// Keras's default, 0.01. It takes a matrix only (a Dense kernel).
type OrthogonalRegularizer struct {
	Factor float64
	Mode   string // "rows" (default) or "columns"
}

// ClassName returns "OrthogonalRegularizer".
func (OrthogonalRegularizer) ClassName() string { return "OrthogonalRegularizer" }

func (r OrthogonalRegularizer) mode() string {
	if r.Mode == "" {
		return "rows"
	}
	return r.Mode
}

// CheckShape refuses a tensor that is not a matrix, as Keras does; layers
// call it (through the package's CheckShape) before they use the
// regularizer.
func (OrthogonalRegularizer) CheckShape(s backend.Shape) error {
	if len(s) != 2 {
		return fmt.Errorf("regularizer OrthogonalRegularizer takes a matrix (rank 2), got shape %v", s)
	}
	return nil
}

// Penalty returns the penalty of the matrix x (see CheckShape).
func (r OrthogonalRegularizer) Penalty(b backend.Builder, x backend.Value) backend.Value {
	if r.mode() == "columns" {
		x = b.Transpose(x, 1, 0)
	}
	n := x.Shape()[0]
	// Keras's normalize: x * min(rsqrt(sum(x²)), 1/epsilon), epsilon
	// 1e-7; min(rsqrt(s), 1e7) = rsqrt(max(s, 1e-14)), whose gradient
	// stays finite for a zero row.
	sq := b.Reshape(b.Sum(b.Square(x), 1), backend.Shape{n, 1})
	unit := b.Div(x, b.Sqrt(b.Maximum(sq, b.Scalar(1e-14))))
	product := b.MatMul(unit, b.Transpose(unit, 1, 0))
	offDiagonal := make([]float64, n*n)
	for i := range offDiagonal {
		if i/n != i%n {
			offDiagonal[i] = 1
		}
	}
	product = b.Mul(product, b.Constant(offDiagonal, backend.Shape{n, n}))
	pairs := float64(n) * (float64(n) - 1) / 2
	return b.Mul(b.Scalar(orDefault(r.Factor)*0.5/pairs), b.Sum(abs(b, product)))
}

// Config returns {"factor": Factor, "mode": Mode}.
func (r OrthogonalRegularizer) Config() serialization.Config {
	return serialization.Config{"factor": orDefault(r.Factor), "mode": r.mode()}
}

// Check refuses a negative or non-finite factor and an unknown mode.
func (r OrthogonalRegularizer) Check() error {
	if m := r.mode(); m != "rows" && m != "columns" {
		return fmt.Errorf("regularizer OrthogonalRegularizer: mode %q: want \"rows\" or \"columns\"", r.Mode)
	}
	return checkFactor("OrthogonalRegularizer", "factor", r.Factor)
}
