//go:build ignore

// This file is compiled only as part of gotch's libtch package, where
// internal/libtorchbuild's overlay adds it (without the build constraint
// above) beside kerasgo_ops.cpp.

package libtch

// #include <stdlib.h>
// int kg_adam_update(void* p, void* g, void* m, void* v, void* alpha,
//                    void* out_p, void* out_m, void* out_v,
//                    double beta1, double beta2, double eps,
//                    void** results, char** err);
import "C"

import (
	"errors"
	"unsafe"
)

// KgAdamUpdate is Keras's Adam rule for one parameter in one call
// (kg_adam_update in kerasgo_ops.cpp): it returns new handles to p', m'
// and v', written into outP, outM and outV where they are not nil.
func KgAdamUpdate(p, g, m, v, alpha, outP, outM, outV Ctensor, beta1, beta2, eps float64) (newP, newM, newV Ctensor, err error) {
	var results [3]unsafe.Pointer
	var cerr *C.char
	if C.kg_adam_update(unsafe.Pointer(p), unsafe.Pointer(g), unsafe.Pointer(m), unsafe.Pointer(v), unsafe.Pointer(alpha),
		unsafe.Pointer(outP), unsafe.Pointer(outM), unsafe.Pointer(outV),
		C.double(beta1), C.double(beta2), C.double(eps), &results[0], &cerr) != 0 {
		defer C.free(unsafe.Pointer(cerr))
		return nil, nil, nil, errors.New(C.GoString(cerr))
	}
	return Ctensor(results[0]), Ctensor(results[1]), Ctensor(results[2]), nil
}
