// The CUDA plugin's entry point: registers the kernels, then finds the devices, gives
// each a stream and a caching allocator, and registers them with the runtime.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "preprocessing_kernels.h"
#include "opgen/device_plugin.h"

namespace opgen {
namespace cuda {
// pool3d_grad.cu: MaxPool3DGrad, AvgPool3DGrad, MaxPool3DGradGrad. Declared here, not
// with the other families in cuda_kernels.h, so that adding it rebuilt one file.
void RegisterPool3DGradKernels(TF_Status*);
void RegisterDebugKernels(TF_Status*);     // debug.cu: CheckNumerics(V2), EnsureShape, Snapshot
void RegisterSequenceKernels(TF_Status*);  // sequence.cu: Roll, ReverseSequence, LinSpace
void RegisterSparseToDenseKernels(TF_Status*);  // sparse_to_dense.cu: SparseToDense
// matrix_diag.cu: MatrixDiagV3, MatrixDiagPartV3, MatrixSetDiagV3, L2Loss (declared here too).
void RegisterMatrixDiagKernels(TF_Status*);
// array_family.cu: InTopK(V2), Upper/LowerBound, Diag(Part), Bitcast, Inplace*, DataFormat*.
void RegisterArrayFamilyKernels(TF_Status*);
void RegisterMathFamilyKernels(TF_Status*);  // math_family.cu: PopulationCount, ApproximateEqual, Cross
void RegisterFakeQuantKernels(TF_Status*);  // fake_quant.cu: FakeQuantWithMinMax*(Gradient)
void RegisterLrnKernels(TF_Status*);        // lrn.cu: LRN, LRNGrad
void RegisterPoolArgmaxKernels(TF_Status*);  // pool_argmax.cu: MaxPoolWithArgmax, MaxPoolGradWithArgmax
void RegisterDilationKernels(TF_Status*);     // dilation.cu: Dilation2D and its backprops
}  // namespace cuda
}  // namespace opgen

namespace opgen {
namespace cuda {
namespace {

int g_num_devices = 0;

// Device memory kept for reuse: cudaMalloc and cudaFree synchronise the device and cost
// tens of microseconds, far more than a small kernel. Freed blocks go to a free list
// keyed by size; a request takes the smallest free block that fits without wasting more
// than half of it. Reuse is safe without events because every user of the memory
// (kernels, copies) is queued on the device's one stream, in order.
class CachingAllocator {
 public:
  explicit CachingAllocator(int ordinal) : ordinal_(ordinal) {}

  void* Allocate(size_t size, TF_Status* status) {
    const size_t rounded = Round(size);
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = free_.lower_bound(rounded);
      if (it != free_.end() && it->first <= 2 * rounded) {
        void* ptr = it->second;
        in_use_[ptr] = it->first;
        free_.erase(it);
        return ptr;
      }
    }
    void* ptr = nullptr;
    if (g_num_devices > 1) cudaSetDevice(ordinal_);
    cudaError_t err = cudaMalloc(&ptr, rounded);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // clear it, then give the cache back and try once more
      ReleaseCached();
      err = cudaMalloc(&ptr, rounded);
    }
    if (err != cudaSuccess) {
      cudaGetLastError();
      const std::string msg = "GPU:" + std::to_string(ordinal_) + ": cannot allocate " +
                              std::to_string(size) + " bytes: " + cudaGetErrorString(err);
      TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, msg.c_str());
      return nullptr;
    }
    std::lock_guard<std::mutex> lock(mu_);
    in_use_[ptr] = rounded;
    return ptr;
  }

  void Deallocate(void* ptr) {
    if (ptr == nullptr) return;
    std::lock_guard<std::mutex> lock(mu_);
    auto it = in_use_.find(ptr);
    if (it == in_use_.end()) return;  // not ours: nothing safe to do
    free_.emplace(it->second, ptr);
    in_use_.erase(it);
  }

 private:
  // Small blocks in 512-byte steps, large ones in 2 MiB steps, so that tensors of
  // nearby sizes share blocks. Zero bytes still get a distinct block.
  static size_t Round(size_t size) {
    const size_t step = size <= (size_t{1} << 20) ? 512 : (size_t{2} << 20);
    return size == 0 ? step : (size + step - 1) / step * step;
  }
  void ReleaseCached() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [size, ptr] : free_) cudaFree(ptr);  // cudaFree waits for the device
    free_.clear();
  }

  int ordinal_;
  std::mutex mu_;
  std::multimap<size_t, void*> free_;
  std::map<void*, size_t> in_use_;
};

struct Device {
  int ordinal = 0;
  SP_Stream_st stream{};
  CachingAllocator* allocator = nullptr;
};

void SetCudaError(TF_Status* status, cudaError_t err, const char* what) {
  const std::string msg = std::string(what) + ": " + cudaGetErrorString(err);
  TF_SetStatus(status, TF_INTERNAL, msg.c_str());
}

void* DeviceAllocate(void* state, size_t size, TF_Status* status) {
  return static_cast<Device*>(state)->allocator->Allocate(size, status);
}
void DeviceDeallocate(void* state, void* ptr, size_t size) {
  static_cast<Device*>(state)->allocator->Deallocate(ptr);
}

void Copy(Device* d, void* dst, const void* src, size_t size, cudaMemcpyKind kind,
          bool wait, TF_Status* status) {
  if (g_num_devices > 1) cudaSetDevice(d->ordinal);
  cudaError_t err = size ? cudaMemcpyAsync(dst, src, size, kind, d->stream.stream) : cudaSuccess;
  if (err == cudaSuccess && wait) err = cudaStreamSynchronize(d->stream.stream);
  if (err != cudaSuccess) SetCudaError(status, err, "GPU copy");
}
void CopyHostToDevice(void* state, void* dst, const void* src, size_t size, TF_Status* status) {
  // From pageable memory the driver stages `src` before returning, so the caller may
  // free it at once.
  Copy(static_cast<Device*>(state), dst, src, size, cudaMemcpyHostToDevice, false, status);
}
void CopyDeviceToHost(void* state, void* dst, const void* src, size_t size, TF_Status* status) {
  Copy(static_cast<Device*>(state), dst, src, size, cudaMemcpyDeviceToHost, true, status);
}
void CopyDeviceToDevice(void* state, void* dst, const void* src, size_t size,
                        TF_Status* status) {
  Copy(static_cast<Device*>(state), dst, src, size, cudaMemcpyDeviceToDevice, false, status);
}
void Synchronize(void* state, TF_Status* status) {
  Device* d = static_cast<Device*>(state);
  if (g_num_devices > 1) cudaSetDevice(d->ordinal);
  cudaError_t err = cudaStreamSynchronize(d->stream.stream);
  if (err != cudaSuccess) SetCudaError(status, err, "GPU synchronize");
}

std::string Describe(const cudaDeviceProp& p) {
  return std::string(p.name) + ", compute capability " + std::to_string(p.major) + "." +
         std::to_string(p.minor) + ", " + std::to_string(p.multiProcessorCount) +
         " multiprocessors";
}

}  // namespace

int NumDevices() { return g_num_devices; }

}  // namespace cuda
}  // namespace opgen

// scatter.cu: GatherNd, ScatterNd, TensorScatter*; segment.cu: the segment reductions
// (declared here, not in cuda_kernels.h, which every kernel file includes).
namespace opgen::cuda {
void RegisterScatterKernels(TF_Status*);
void RegisterSegmentKernels(TF_Status*);
void RegisterResourceScatterKernels(TF_Status*);  // resource_scatter.cu
void RegisterImageTransformKernels(TF_Status*);   // image_transform.cu: ImageProjectiveTransformV2/V3
void RegisterResourceScatterNdKernels(TF_Status*);  // resource_scatter_nd.cu
void RegisterStridedSliceUpdateKernels(TF_Status*);  // strided_slice_update.cu
}  // namespace opgen::cuda

extern "C" __attribute__((visibility("default"))) void OPGEN_InitDevicePlugin(TF_Status* status) {
  using namespace opgen::cuda;
  // The kernels register first, whatever the machine has: they are this library's code,
  // as a CUDA build of TensorFlow lists its GPU kernels without a GPU. Nothing places an
  // op on device type "GPU" until a GPU device exists, and TF_GetAllRegisteredKernels
  // then shows what a GPU would run everywhere the plugin is built.
  for (auto family : {
      RegisterActivationGradKernels,
      RegisterArrayGradKernels,
      RegisterArrayKernels,
      RegisterBatchNormKernels,
      RegisterBoolReductionKernels,
      RegisterCastKernels,
      RegisterComplexKernels,
      RegisterConcatSplitKernels,
      RegisterConstKernels,
      RegisterControlFlowKernels,
      RegisterConvFamilyKernels,
      RegisterConvPoolKernels,
      RegisterEinsumKernels,
      RegisterElementwiseActivationKernels,
      RegisterElementwiseArithmeticKernels,
      RegisterElementwiseCompareKernels,
      RegisterElementwiseDivisionKernels,
      RegisterElementwiseMathKernels,
      RegisterElementwiseSpecialKernels,
      RegisterForwardKernels,
      RegisterFusedKernels,
      RegisterImageKernels,
      RegisterResizeCubicAreaKernels,
      RegisterMatrixBandBucketizeKernels,
      RegisterPool3DKernels,
      RegisterPool3DGradKernels,
      RegisterLeakyReluKernels,
      RegisterFakeQuantKernels,
      RegisterLrnKernels,
      RegisterPoolArgmaxKernels,
      RegisterDilationKernels,
      RegisterMatMulKernels,
      RegisterMathGradKernels,
      RegisterMathFamilyKernels,
      RegisterNnKernels,
      RegisterNnGradKernels,
      RegisterRandomKernels,
      RegisterReductionKernels,
      RegisterResourceVariableKernels,
      RegisterScanTopKKernels,
    RegisterSelectV1Kernels,
      RegisterResourceScatterKernels,
      RegisterResourceScatterNdKernels,
      RegisterStridedSliceUpdateKernels,
      RegisterScatterKernels,
      RegisterSegmentKernels,
      RegisterSlicingKernels,
      RegisterSpaceKernels,
      RegisterSplitOneHotKernels,
      RegisterTrainingKernels,
      RegisterBatchNormGradKernels,
      RegisterConvGradKernels,
      RegisterImageGradKernels,
      RegisterPoolGradKernels,
      RegisterDebugKernels,
      RegisterSequenceKernels,
      RegisterSparseToDenseKernels,
      RegisterBincountKernels,
      RegisterScaleTranslateKernels,
      RegisterMatrixDiagKernels,
      RegisterArrayFamilyKernels,
      RegisterCropAndResizeKernels,
      RegisterExtractPatchesKernels,
      RegisterColorKernels,
      RegisterImageTransformKernels}) {
    family(status);
    if (TF_GetCode(status) != TF_OK) return;
  }
  // Without a driver the CUDA runtime only says "insufficient driver"; name the cause.
  if (void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    dlclose(driver);
  } else {
    const char* why = dlerror();
    const std::string msg = std::string("no NVIDIA driver: libcuda.so.1 cannot be loaded (") +
                            (why ? why : "not found") + ")";
    TF_SetStatus(status, TF_UNAVAILABLE, msg.c_str());
    return;
  }
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    const std::string msg = std::string("the CUDA plugin found no usable driver or device (") +
                            cudaGetErrorName(err) + ": " + cudaGetErrorString(err) + ")";
    TF_SetStatus(status, TF_UNAVAILABLE, msg.c_str());
    return;
  }
  if (count == 0) {
    TF_SetStatus(status, TF_UNAVAILABLE, "the CUDA driver reports no device");
    return;
  }
  g_num_devices = count;
  for (int i = 0; i < count; ++i) {
    // Devices live as long as the process: kernels queued on them may outlive any owner.
    Device* d = new Device();
    d->ordinal = i;
    d->stream.ordinal = i;
    d->allocator = new CachingAllocator(i);
    cudaDeviceProp props{};
    if ((err = cudaSetDevice(i)) != cudaSuccess ||
        (err = cudaGetDeviceProperties(&props, i)) != cudaSuccess ||
        (err = cudaStreamCreateWithFlags(&d->stream.stream, cudaStreamDefault)) != cudaSuccess) {
      SetCudaError(status, err, ("setting up GPU:" + std::to_string(i)).c_str());
      return;
    }
    OPGEN_DeviceFunctions fns{};
    fns.struct_size = OPGEN_DEVICE_FUNCTIONS_STRUCT_SIZE;
    fns.state = d;
    fns.allocate = DeviceAllocate;
    fns.deallocate = DeviceDeallocate;
    fns.copy_host_to_device = CopyHostToDevice;
    fns.copy_device_to_host = CopyDeviceToHost;
    fns.copy_device_to_device = CopyDeviceToDevice;
    fns.synchronize = Synchronize;
    fns.stream = &d->stream;
    OPGEN_RegisterDevice("GPU", i, Describe(props).c_str(),
                         static_cast<int64_t>(props.totalGlobalMem), &fns, status);
    if (TF_GetCode(status) != TF_OK) return;
  }
  cudaSetDevice(0);
}
