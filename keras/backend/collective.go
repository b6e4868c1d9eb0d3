package backend

import "fmt"

// Collective is a group of processes that train one model together, data
// parallel: each sums buffers with all the others (an allreduce). Package
// keras/distribution provides one over PyTorch's c10d; engines only see
// this interface.
type Collective interface {
	// WorldSize is the number of processes in the group.
	WorldSize() int
	// AllReduceFloat32 replaces data, on every process, by the elementwise
	// sum of every process's data. All processes call it in the same order
	// with buffers of one length.
	AllReduceFloat32(data []float32) error
	// AllReduceFloat64 is AllReduceFloat32 for float64 buffers.
	AllReduceFloat64(data []float64) error
}

// CollectiveOps is an optional capability of an [Ops]: summing a value
// across the processes of a [Collective] inside a step, between the
// gradient and the optimizer's update. Both engines implement it; an
// engine without it cannot train data parallel.
type CollectiveOps interface {
	// AllReduceSum returns x (of rank 1 or more) summed elementwise over
	// every process of c.
	// Not differentiable.
	AllReduceSum(x Value, c Collective) (Value, error)
}

func (c *checked) AllReduceSum(x Value, group Collective) Value {
	s := shapeOf(x)
	if !c.ok(x) {
		return failed{shape: s, dtype: c.ops.DType()}
	}
	if len(s) == 0 {
		c.fail(s, "AllReduceSum takes a tensor, not a scalar: reshape it to (1,)")
		return failed{shape: s, dtype: c.ops.DType()}
	}
	if group == nil {
		c.fail(s, "AllReduceSum needs a process group; got nil")
		return failed{shape: s, dtype: c.ops.DType()}
	}
	ops, ok := c.ops.(CollectiveOps)
	if !ok {
		c.fail(s, "this engine (%T) cannot sum values across processes, so it cannot train data parallel", c.ops)
		return failed{shape: s, dtype: c.ops.DType()}
	}
	return c.call("AllReduceSum", s.Clone(), func() (Value, error) {
		v, err := ops.AllReduceSum(x, group)
		if err != nil {
			return nil, fmt.Errorf("allreduce over %d processes: %w", group.WorldSize(), err)
		}
		return v, nil
	})
}
