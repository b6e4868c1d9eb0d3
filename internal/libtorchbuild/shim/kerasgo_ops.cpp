// kerasgo's own libtorch kernels' compositions, compiled into gotch's libtch
// package through the overlay (internal/libtorchbuild, KerasgoOps): one cgo
// call runs what would otherwise be several gotch wrappers, each a cgo call
// with a Go tensor to track. Every function returns 0, or -1 with *err set
// to a message the caller frees with free(). Tensors are gotch's handles
// (torch::Tensor*); results are new handles the caller owns.
//
// It does not include gotch's torch_api.h, which defines its thread-local
// error in the header: this file reports errors itself.

#include <torch/torch.h>

#include <cstdlib>
#include <cstring>
#include <exception>

namespace {

torch::Tensor& tensor_at(void* t) { return *static_cast<torch::Tensor*>(t); }

int fail(const std::exception& e, char** err) {
  *err = strdup(e.what());
  return -1;
}

}  // namespace

extern "C" {

// kg_adam_update is Keras's Adam rule for one parameter (keras/backend's
// AdamReference) in the seven kernels backends/libtorch used through gotch:
// m' = lerp(m, g, 1-beta1); v' = lerp(v, g², 1-beta2);
// p' = p + (m' / (sqrt(v') + eps))·(-alpha), the quotient computed in g²'s
// buffer. out_p, out_m and out_v are buffers to write p', m' and v' into
// (libtorch's out= forms), or NULL to allocate. results gets p', m', v'.
int kg_adam_update(void* p, void* g, void* m, void* v, void* alpha,
                   void* out_p, void* out_m, void* out_v,
                   double beta1, double beta2, double eps,
                   void** results, char** err) {
  try {
    const torch::Tensor& P = tensor_at(p);
    const torch::Tensor& G = tensor_at(g);
    const torch::Tensor& M = tensor_at(m);
    const torch::Tensor& V = tensor_at(v);
    torch::Tensor new_m = out_m ? at::lerp_out(tensor_at(out_m), M, G, 1 - beta1)
                                : at::lerp(M, G, 1 - beta1);
    torch::Tensor step = at::square(G);
    torch::Tensor new_v = out_v ? at::lerp_out(tensor_at(out_v), V, step, 1 - beta2)
                                : at::lerp(V, step, 1 - beta2);
    at::sqrt_out(step, new_v);
    step.add_(eps);
    at::div_out(step, new_m, step);
    torch::Tensor neg = at::neg(tensor_at(alpha));
    torch::Tensor new_p = out_p ? at::addcmul_out(tensor_at(out_p), P, step, neg)
                                : at::addcmul(P, step, neg);
    results[0] = new torch::Tensor(new_p);
    results[1] = new torch::Tensor(new_m);
    results[2] = new torch::Tensor(new_v);
    return 0;
  } catch (const std::exception& e) {
    return fail(e, err);
  }
}

}  // extern "C"
