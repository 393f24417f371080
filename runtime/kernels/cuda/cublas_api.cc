// Opens cuBLAS with dlopen and hands out per-device handles (see cublas_api.h).
#include "cublas_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_kernel_util.h"

namespace opgen {
namespace cuda {
namespace {

struct Loaded {
  CublasApi api{};
  std::string error;  // empty when `api` is usable
};

template <typename Fn>
bool Resolve(void* lib, const char* name, Fn* fn, std::string* missing) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (*fn == nullptr) *missing += std::string(missing->empty() ? "" : ", ") + name;
  return *fn != nullptr;
}

Loaded Load() {
  Loaded out;
  std::vector<std::string> names;
  if (const char* path = std::getenv("OPGEN_CUBLAS_LIBRARY"); path != nullptr && *path)
    names.push_back(path);
  names.push_back("libcublas.so.13");
  names.push_back("libcublas.so.12");
  void* lib = nullptr;
  std::string tried;
  for (const std::string& name : names) {
    // RTLD_LOCAL: cuBLAS's symbols stay out of the global namespace; a copy the Python
    // package preloaded with RTLD_GLOBAL is found by its soname and reused.
    lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) break;
    const char* why = dlerror();
    tried += "\n  " + name + ": " + (why ? why : "not found");
  }
  if (lib == nullptr) {
    out.error =
        "cuBLAS not found: install the nvidia-cublas wheel (pip install opgen[cuda]) or set "
        "OPGEN_CUBLAS_LIBRARY to the path of libcublas.so; tried:" + tried;
    return out;
  }
  // The handle is never closed: kernels may use cuBLAS until the process ends.
  std::string missing;
  CublasApi& a = out.api;
  Resolve(lib, "cublasCreate_v2", &a.Create, &missing);
  Resolve(lib, "cublasDestroy_v2", &a.Destroy, &missing);
  Resolve(lib, "cublasSetStream_v2", &a.SetStream, &missing);
  Resolve(lib, "cublasSetMathMode", &a.SetMathMode, &missing);
  Resolve(lib, "cublasGemmEx", &a.GemmEx, &missing);
  Resolve(lib, "cublasGemmStridedBatchedEx", &a.GemmStridedBatchedEx, &missing);
  Resolve(lib, "cublasGemmBatchedEx", &a.GemmBatchedEx, &missing);
  std::string optional;
  Resolve(lib, "cublasGetStatusString", &a.GetStatusString, &optional);
  if (!missing.empty())
    out.error = "cuBLAS is too old (CUDA 12 or later is needed): it lacks " + missing;
  return out;
}

const Loaded& Library() {
  static const Loaded* loaded = new Loaded(Load());  // thread-safe, never destroyed
  return *loaded;
}

// A free handle and the stream it was last bound to.
struct PooledHandle {
  cublasHandle_t handle;
  cudaStream_t stream;
};

// Free handles per device ordinal. Handles are created on demand and never destroyed:
// destroying them at exit would race with the CUDA runtime's own teardown.
std::mutex g_pool_mu;
auto* g_pool = new std::map<int, std::vector<PooledHandle>>();

}  // namespace

const CublasApi* Cublas(TF_OpKernelContext* ctx) {
  const Loaded& lib = Library();
  if (!lib.error.empty()) {
    Fail(ctx, TF_FAILED_PRECONDITION, lib.error);
    return nullptr;
  }
  return &lib.api;
}

bool CheckCublas(TF_OpKernelContext* ctx, const CublasApi& api, cublasStatus_t status,
                 const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return true;
  std::string message = std::string(what) + " failed: ";
  if (api.GetStatusString != nullptr) message += api.GetStatusString(status);
  else message += "cuBLAS status " + std::to_string(static_cast<int>(status));
  Fail(ctx, TF_INTERNAL, message);
  return false;
}

CublasLease::CublasLease(TF_OpKernelContext* ctx, cudaStream_t stream) {
  api_ = Cublas(ctx);
  if (api_ == nullptr) return;
  device_ = TF_GetDeviceId(ctx);
  if (device_ < 0) device_ = 0;
  PooledHandle pooled{nullptr, nullptr};
  {
    std::lock_guard<std::mutex> lock(g_pool_mu);
    std::vector<PooledHandle>& free = (*g_pool)[device_];
    if (!free.empty()) {
      pooled = free.back();
      free.pop_back();
    }
  }
  if (pooled.handle == nullptr) {
    // Created on the current device, which GetStream made the kernel's one.
    if (!CheckCublas(ctx, *api_, api_->Create(&pooled.handle), "cublasCreate")) return;
    // Float32 GEMMs stay float32 (no TF32: the compute types in gemm.cu ask for none),
    // and half/bfloat16 GEMMs also reduce split sums in float32: the results then match
    // the CPU kernels, which round once at the end.
    const cublasStatus_t s =
        api_->SetMathMode(pooled.handle, CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
    if (!CheckCublas(ctx, *api_, s, "cublasSetMathMode")) {
      api_->Destroy(pooled.handle);
      return;
    }
  }
  // Binding a stream resets the handle's workspace: done only when the stream changes
  // (once per handle: each device has one stream).
  if (pooled.stream != stream || pooled.stream == nullptr) {
    if (!CheckCublas(ctx, *api_, api_->SetStream(pooled.handle, stream), "cublasSetStream")) {
      std::lock_guard<std::mutex> lock(g_pool_mu);
      (*g_pool)[device_].push_back(PooledHandle{pooled.handle, nullptr});
      return;
    }
  }
  handle_ = pooled.handle;
  stream_ = stream;
}

CublasLease::~CublasLease() {
  if (handle_ == nullptr) return;
  std::lock_guard<std::mutex> lock(g_pool_mu);
  (*g_pool)[device_].push_back(PooledHandle{handle_, stream_});
}

}  // namespace cuda
}  // namespace opgen
