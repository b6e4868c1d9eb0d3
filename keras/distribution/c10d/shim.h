// A C ABI over PyTorch's c10d (TCPStore and ProcessGroupGloo), for cgo.
// Every function that can fail returns 0 on success, or -1 and sets *err to
// a message the caller frees with free().

#ifndef KERASGO_C10D_SHIM_H
#define KERASGO_C10D_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kg_group kg_group;

// kg_torch_version returns the version of the libtorch the binding was
// compiled against ("2.9.1"), or "" when its headers do not say.
const char* kg_torch_version(void);

// kg_available returns 0 when the binding was compiled with Gloo, else -1
// with the reason.
int kg_available(char** err);

// kg_nccl_compiled returns 1 when the binding was compiled with NCCL's
// process group (a CUDA libtorch and NCCL's headers), else 0.
int kg_nccl_compiled(void);

// kg_group_new joins a job's store: rank 0 hosts the TCPStore at
// host:port (or, when agent_prefix is not empty, torchrun's agent hosts it
// and the group's keys live under agent_prefix) and every rank connects to
// it. The group has no collectives until kg_group_connect.
int kg_group_new(const char* host, int port, int rank, int world,
                 int64_t timeout_ms, const char* agent_prefix,
                 kg_group** out, char** err);
// kg_group_connect makes Gloo connect every pair of ranks through the
// store. ifname chooses the network interface; else address is the
// address Gloo binds and advertises; else (both empty) Gloo's default, the
// address this machine's hostname resolves to.
int kg_group_connect(kg_group* g, const char* ifname, const char* address, char** err);
void kg_group_free(kg_group* g);

// kg_group_uses_nccl returns 1 when the group sums CUDA tensors through
// NCCL's process group (an NCCL build, opened where a GPU was present),
// else 0.
int kg_group_uses_nccl(kg_group* g);

// Sums in place across ranks: a host buffer (dtype 0 float32, 1 float64)
// or a libtorch tensor (torch::Tensor*).
int kg_allreduce_host(kg_group* g, void* data, int64_t n, int dtype, char** err);
int kg_allreduce_tensor(kg_group* g, void* tensor, char** err);
// Copies root's buffer to every rank.
int kg_broadcast_host(kg_group* g, void* data, int64_t n, int dtype, int root, char** err);
int kg_barrier(kg_group* g, char** err);

// The store, for the liveness check after a failure: set a key, and
// check which of keys exist (found[i] = 1 or 0).
int kg_store_set(kg_group* g, const char* key, const char* value, char** err);
int kg_store_check(kg_group* g, const char** keys, int n, int* found, char** err);
// Adds delta to the counter at key and sets *value to the new count.
int kg_store_add(kg_group* g, const char* key, int64_t delta, int64_t* value, char** err);
// Reads key, waiting for it up to the store's timeout; *value is a string
// the caller frees.
int kg_store_get(kg_group* g, const char* key, char** value, char** err);

#ifdef __cplusplus
}
#endif

#endif
