//go:build libtorch && cgo

#include "shim.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#if __has_include(<torch/version.h>)
#include <torch/version.h>
#endif

// kg_torch_version: the libtorch this binding was compiled against, as
// "major.minor.patch" (torch/version.h; "" where the header is missing).
const char* kg_torch_version(void) {
#if defined(TORCH_VERSION_MAJOR) && defined(TORCH_VERSION_MINOR) && defined(TORCH_VERSION_PATCH)
#define KG_STR2(x) #x
#define KG_STR(x) KG_STR2(x)
  return KG_STR(TORCH_VERSION_MAJOR) "." KG_STR(TORCH_VERSION_MINOR) "." KG_STR(TORCH_VERSION_PATCH);
#else
  return "";
#endif
}

static int fail(char** err, const std::string& msg) {
  if (err != nullptr) {
    *err = static_cast<char*>(std::malloc(msg.size() + 1));
    if (*err != nullptr) std::memcpy(*err, msg.c_str(), msg.size() + 1);
  }
  return -1;
}

#if __has_include(<gloo/algorithm.h>) && __has_include(<torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>)

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

// With a CUDA libtorch (the overlay defines USE_C10D_NCCL) and NCCL's
// headers, CUDA tensors go through NCCL when a GPU is present. Compiled
// and linked against PyPI's CUDA torch 2.9.1 (make torch-env) and run
// there without a GPU (Gloo only); see docs/distributed.md for where it
// ran on a GPU.
#if defined(USE_C10D_NCCL) && __has_include(<nccl.h>)
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#define KG_NCCL 1
#endif

int kg_available(char** err) { return 0; }

#ifdef KG_NCCL
int kg_nccl_compiled(void) { return 1; }
#else
int kg_nccl_compiled(void) { return 0; }
#endif

struct kg_group {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> pg;
#ifdef KG_NCCL
  c10::intrusive_ptr<c10d::ProcessGroupNCCL> nccl;  // for CUDA tensors
#endif
  std::chrono::milliseconds timeout;
  int rank = 0, world = 1;
};

// guarded runs f, turning a C++ exception into an error message.
template <typename F>
static int guarded(char** err, F f) {
  try {
    f();
    return 0;
  } catch (const c10::Error& e) {
    return fail(err, e.what_without_backtrace());
  } catch (const std::exception& e) {
    return fail(err, e.what());
  } catch (...) {
    return fail(err, "unknown C++ exception in c10d");
  }
}

static at::ScalarType scalarType(int dtype) {
  return dtype == 1 ? at::kDouble : at::kFloat;
}

// c10d_what is an exception's message without libtorch's C++ backtrace.
static std::string c10d_what(const std::exception& e) {
  if (auto c = dynamic_cast<const c10::Error*>(&e)) return c->what_without_backtrace();
  return e.what();
}

// wait waits for a collective and rethrows its failure.
static void wait(kg_group* g, const c10::intrusive_ptr<c10d::Work>& work) {
  work->wait(g->timeout);
}

int kg_group_new(const char* host, int port, int rank, int world,
                 int64_t timeout_ms, const char* agent_prefix,
                 kg_group** out, char** err) {
  *out = nullptr;
  return guarded(err, [&] {
    auto g = std::make_unique<kg_group>();
    g->timeout = std::chrono::milliseconds(timeout_ms);
    g->rank = rank;
    g->world = world;
    c10d::TCPStoreOptions so;
    so.port = static_cast<std::uint16_t>(port);
    so.timeout = g->timeout;
    if (agent_prefix != nullptr && agent_prefix[0] != '\0') {
      // torchrun's agent hosts the store: every rank is a client, under
      // the restart attempt's prefix (as torch.distributed does).
      so.isServer = false;
      so.waitWorkers = false;
      auto tcp = c10::make_intrusive<c10d::TCPStore>(std::string(host), so);
      g->store = c10::make_intrusive<c10d::PrefixStore>(std::string(agent_prefix), tcp);
    } else {
      so.isServer = rank == 0;
      so.numWorkers = static_cast<std::size_t>(world);
      so.waitWorkers = true;
      // Rank 0's store waits for the others. A wait that lasted the whole
      // timeout means some never came: libtorch 2.x's store then throws
      // ("Timed out after 7 seconds waiting for clients. 1/2 clients
      // joined."), 1.13's gives up silently and the process group would
      // wait a second timeout (rank 0 took twice the timeout to fail).
      // Both are said the same way.
      const auto start = std::chrono::steady_clock::now();
      auto missing = [&](const std::string& detail) {
        if (rank == 0 && world > 1 && std::chrono::steady_clock::now() - start >= g->timeout) {
          throw std::runtime_error("not every one of the " + std::to_string(world) +
                                   " processes reached the job's store within the timeout" + detail);
        }
      };
      try {
        g->store = c10::make_intrusive<c10d::TCPStore>(std::string(host), so);
      } catch (const std::exception& e) {
        missing(" (" + c10d_what(e) + ")");
        throw;
      }
      missing("");
    }
    *out = g.release();
  });
}

int kg_group_connect(kg_group* g, const char* ifname, const char* address, char** err) {
  return guarded(err, [&] {
    auto opts = c10d::ProcessGroupGloo::Options::create(g->timeout);
    if (ifname != nullptr && ifname[0] != '\0') {
      opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
    } else if (address != nullptr && address[0] != '\0') {
      // The address the caller chose (the one that routes to the store's
      // host): Gloo binds it and advertises it to the other ranks.
      opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(address));
    } else {
      opts->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    }
    auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(g->store, g->rank, g->world, opts);
#ifdef KG_NCCL
    // Only with a GPU: ProcessGroupNCCL refuses to start without one, and
    // a CUDA build of libtorch also runs on machines that have none.
    if (torch::cuda::is_available()) {
      auto nopts = c10d::ProcessGroupNCCL::Options::create();
      nopts->timeout = g->timeout;
      auto nstore = c10::make_intrusive<c10d::PrefixStore>("nccl/", g->store);
      g->nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(nstore, g->rank, g->world, nopts);
    }
#endif
    g->pg = pg;
  });
}

void kg_group_free(kg_group* g) {
  if (g == nullptr) return;
  try {
#ifdef KG_NCCL
    // Shut NCCL's communicators down before its process group goes, as
    // torch.distributed.destroy_process_group does (without it libtorch
    // warns that they may leak).
    if (g->nccl) g->nccl->shutdown();
    g->nccl.reset();
#endif
    g->pg.reset();
    g->store.reset();
  } catch (...) {
  }
  delete g;
}

int kg_group_uses_nccl(kg_group* g) {
#ifdef KG_NCCL
  return g != nullptr && g->nccl ? 1 : 0;
#else
  return 0;
#endif
}

int kg_allreduce_host(kg_group* g, void* data, int64_t n, int dtype, char** err) {
  return guarded(err, [&] {
    std::vector<at::Tensor> ts{torch::from_blob(data, {n}, torch::TensorOptions().dtype(scalarType(dtype)))};
    wait(g, g->pg->allreduce(ts));
  });
}

int kg_allreduce_tensor(kg_group* g, void* tensor, char** err) {
  return guarded(err, [&] {
    std::vector<at::Tensor> ts{*static_cast<at::Tensor*>(tensor)};
#ifdef KG_NCCL
    if (ts[0].is_cuda() && g->nccl) {
      wait(g, g->nccl->allreduce(ts));
      return;
    }
#endif
    wait(g, g->pg->allreduce(ts));
  });
}

int kg_broadcast_host(kg_group* g, void* data, int64_t n, int dtype, int root, char** err) {
  return guarded(err, [&] {
    std::vector<at::Tensor> ts{torch::from_blob(data, {n}, torch::TensorOptions().dtype(scalarType(dtype)))};
    c10d::BroadcastOptions o;
    o.rootRank = root;
    wait(g, g->pg->broadcast(ts, o));
  });
}

int kg_barrier(kg_group* g, char** err) {
  return guarded(err, [&] { wait(g, g->pg->barrier()); });
}

int kg_store_set(kg_group* g, const char* key, const char* value, char** err) {
  return guarded(err, [&] {
    std::string v(value);
    g->store->set(key, std::vector<uint8_t>(v.begin(), v.end()));
  });
}

int kg_store_check(kg_group* g, const char** keys, int n, int* found, char** err) {
  return guarded(err, [&] {
    for (int i = 0; i < n; i++) {
      found[i] = g->store->check({std::string(keys[i])}) ? 1 : 0;
    }
  });
}

int kg_store_add(kg_group* g, const char* key, int64_t delta, int64_t* value, char** err) {
  return guarded(err, [&] { *value = g->store->add(std::string(key), delta); });
}

int kg_store_get(kg_group* g, const char* key, char** value, char** err) {
  *value = nullptr;
  return guarded(err, [&] {
    auto v = g->store->get(std::string(key));
    *value = static_cast<char*>(std::malloc(v.size() + 1));
    if (*value == nullptr) throw std::bad_alloc();
    std::memcpy(*value, v.data(), v.size());
    (*value)[v.size()] = '\0';
  });
}

#else  // no Gloo headers: every call says how to get them

static const char* kNoGloo =
    "this program's c10d binding was compiled without Gloo's headers (and libtorch's c10d headers), "
    "so it cannot train distributed: sudo apt-get install libgloo-dev, then rebuild (make libtorch; "
    "go clean -cache if the build was cached)";

int kg_available(char** err) { return fail(err, kNoGloo); }
int kg_nccl_compiled(void) { return 0; }
int kg_group_new(const char*, int, int, int, int64_t, const char*, kg_group** out, char** err) {
  *out = nullptr;
  return fail(err, kNoGloo);
}
int kg_group_connect(kg_group*, const char*, const char*, char** err) { return fail(err, kNoGloo); }
void kg_group_free(kg_group*) {}
int kg_group_uses_nccl(kg_group*) { return 0; }
int kg_allreduce_host(kg_group*, void*, int64_t, int, char** err) { return fail(err, kNoGloo); }
int kg_allreduce_tensor(kg_group*, void*, char** err) { return fail(err, kNoGloo); }
int kg_broadcast_host(kg_group*, void*, int64_t, int, int, char** err) { return fail(err, kNoGloo); }
int kg_barrier(kg_group*, char** err) { return fail(err, kNoGloo); }
int kg_store_set(kg_group*, const char*, const char*, char** err) { return fail(err, kNoGloo); }
int kg_store_check(kg_group*, const char**, int, int*, char** err) { return fail(err, kNoGloo); }
int kg_store_add(kg_group*, const char*, int64_t, int64_t*, char** err) { return fail(err, kNoGloo); }
int kg_store_get(kg_group*, const char*, char** value, char** err) {
  *value = nullptr;
  return fail(err, kNoGloo);
}

#endif
