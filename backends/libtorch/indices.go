//go:build libtorch

package libtorch

import (
	"fmt"
	"unsafe"

	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"
)

// checkIndices guards a lookup (Gather, TakeAlongLastAxis) on a GPU. On
// the CPU libtorch rejects an index outside the axis with an error; on
// CUDA the same index is a device-side assert, which poisons the
// process's CUDA context: every later CUDA call of the program fails. So
// on CUDA it reads the indices' smallest and largest value (one
// synchronisation with the GPU) and returns an error naming the first
// that is out of range, before the lookup runs. idx holds the indices as
// int64, n is the axis's length, what names the lookup in the error.
func (o *eagerOps) checkIndices(idx *ts.Tensor, count, n int, what string) error {
	if !o.e.device.IsCuda() || count == 0 {
		return nil
	}
	lo, hi, err := idx.Aminmax(nil, false, false)
	if err != nil {
		return err
	}
	o.arena = append(o.arena, lo, hi)
	both, err := ts.Stack([]*ts.Tensor{lo, hi}, 0)
	if err != nil {
		return err
	}
	o.arena = append(o.arena, both)
	host, err := both.ToDevice(gotch.CPU, gotch.Int64, false, false, false)
	if err != nil {
		return err
	}
	o.arena = append(o.arena, host)
	p, err := host.DataPtr()
	if err != nil {
		return err
	}
	for _, i := range unsafe.Slice((*int64)(p), 2) {
		if i < 0 || i >= int64(n) {
			return fmt.Errorf("%s: index %d is out of range: it must be in [0, %d)", what, i, n)
		}
	}
	return nil
}
