// MatrixBandPart and Bucketize on the GPU: the CPU kernels' checks and rules
// (../matrix_band_bucketize_spec.h), one thread per element. MatrixBandPart moves each
// element as an opaque word of its width; Bucketize's boundaries go to device scratch
// memory on each call.
#include <vector>

#include "../matrix_band_bucketize_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "fixed_size_words.cuh"

namespace opgen {
namespace cuda {
namespace {

template <typename W>
__global__ void BandKernel(const W* in, W* out, int64_t total, int64_t rows, int64_t cols,
                           int64_t lower, int64_t upper) {
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t j = n % cols, i = (n / cols) % rows;
    out[n] = kernels::InBand(i, j, lower, upper) ? in[n] : W{};
  }
}

void MatrixBandPartCompute(void*, TF_OpKernelContext* ctx) {
  kernels::BandPlan p;
  if (!kernels::PlanMatrixBand(ctx, &p)) return;
  const TF_DataType dtype = TF_TensorType(p.input.get());
  TensorPtr output = kernels::AllocateOutput(ctx, 0, dtype, p.dims);
  const int64_t total = NumElements(p.dims);
  if (!output || total == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  WithWord(TF_DataTypeSize(dtype), [&](auto word) {
    using W = decltype(word);
    BandKernel<W><<<BlocksFor(total), kThreads, 0, stream>>>(
        static_cast<const W*>(TF_TensorData(p.input.get())), static_cast<W*>(TF_TensorData(output.get())),
        total, p.rows, p.cols, p.lower, p.upper);
  });
  CheckLaunch(ctx, "MatrixBandPart");
}

template <typename T>
__global__ void BucketizeKernel(const T* in, int32_t* out, int64_t total, const float* bounds,
                                int64_t n_bounds) {
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[n] = kernels::BucketOf(in[n], bounds, n_bounds);
}

template <typename T>
struct BucketizeOp {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const std::vector<float>& bounds = *static_cast<std::vector<float>*>(state);
    TensorPtr input = Input(ctx, 0);
    if (!input) return;
    const std::vector<int64_t> dims = Dims(input.get());
    TensorPtr output = AllocateOutput<int32_t>(ctx, 0, dims);
    const int64_t total = NumElements(dims);
    if (!output || total == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    const int64_t n_bounds = static_cast<int64_t>(bounds.size());
    TensorPtr device_bounds = AllocateTemp(ctx, TF_FLOAT, {n_bounds > 0 ? n_bounds : 1});
    if (!device_bounds) return;
    float* b = static_cast<float*>(TF_TensorData(device_bounds.get()));
    if (n_bounds > 0 &&
        !CheckCuda(ctx, cudaMemcpyAsync(b, bounds.data(), n_bounds * sizeof(float),
                                        cudaMemcpyHostToDevice, stream), "Bucketize"))
      return;
    BucketizeKernel<T><<<BlocksFor(total), kThreads, 0, stream>>>(Data<T>(input), Data<int32_t>(output),
                                                                   total, b, n_bounds);
    CheckLaunch(ctx, "Bucketize");
  }
};

template <typename... Ts>
void RegisterBucketize(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"Bucketize", {{"T", DtypeOf<Ts>::value}}, {}, &BucketizeOp<Ts>::Compute,
       kernels::CreateBucketize, kernels::DeleteBucketize}, status), ...);
}

}  // namespace

// The CPU kernels' registrations (kernels/cpu/matrix_band_bucketize.cc).
void RegisterMatrixBandBucketizeKernels(TF_Status* status) {
  for (TF_DataType dtype : kDataTypes)
    RegisterKernel(kDevice, {"MatrixBandPart", {{"T", dtype}}, {"num_lower", "num_upper"},
                             &MatrixBandPartCompute}, status);
  RegisterBucketize(Types<int32_t, int64_t, float, double>(), status);
}

}  // namespace cuda
}  // namespace opgen
