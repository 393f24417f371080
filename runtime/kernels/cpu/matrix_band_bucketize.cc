// MatrixBandPart and Bucketize on the CPU: checks and rules are
// ../matrix_band_bucketize_spec.h, shared with the CUDA plugin; here the loops.
#include <algorithm>
#include <cstring>
#include <vector>

#include "../matrix_band_bucketize_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

// Each row copied as raw bytes between its band's first and last column, zeroes
// around: the band does not depend on the type, and a zero of every numeric type (and
// false) is all-zero bytes.
template <size_t kWidth>
struct MatrixBandPartKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    kernels::BandPlan p;
    if (!kernels::PlanMatrixBand(ctx, &p)) return;
    TensorPtr output = kernels::AllocateOutput(ctx, 0, TF_TensorType(p.input.get()), p.dims);
    if (!output || NumElements(p.dims) == 0) return;
    const char* in = static_cast<const char*>(TF_TensorData(p.input.get()));
    char* out = static_cast<char*>(TF_TensorData(output.get()));
    const int64_t rows = p.rows, cols = p.cols, lo = p.lower, up = p.upper;
    ParallelFor(NumElements(p.dims) / cols, [=](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t i = r % rows;
        const int64_t first = lo < 0 ? 0 : std::max<int64_t>(0, i - lo);
        const int64_t last = up < 0 ? cols : std::min<int64_t>(cols, i + up + 1);
        char* o = out + r * cols * kWidth;
        std::memset(o, 0, cols * kWidth);
        if (last > first)
          std::memcpy(o + first * kWidth, in + (r * cols + first) * kWidth, (last - first) * kWidth);
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(cols, 1)));
  }
};

template <typename T>
struct BucketizeKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const std::vector<float>& bounds = *static_cast<std::vector<float>*>(state);
    const TF_Tensor* x = BorrowInput(ctx, 0);
    if (!x) return;
    const std::vector<int64_t> dims = Dims(x);
    TF_Tensor* y = AllocateBorrowedOutput<int32_t>(ctx, 0, dims);
    if (!y) return;
    const T* xp = Data<T>(x);
    int32_t* yp = Data<int32_t>(y);
    const float* b = bounds.data();
    const int64_t n = static_cast<int64_t>(bounds.size());
    ParallelFor(NumElements(dims), [=](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) yp[i] = kernels::BucketOf(xp[i], b, n);
    });
  }
};

template <typename... Ts>
void RegisterBands(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"MatrixBandPart", {{"T", DtypeOf<Ts>::value}}, {},
       &MatrixBandPartKernel<sizeof(Ts)>::Compute}, status), ...);
}

template <typename... Ts>
void RegisterBucketize(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"Bucketize", {{"T", DtypeOf<Ts>::value}}, {},
       &BucketizeKernel<Ts>::Compute, kernels::CreateBucketize, kernels::DeleteBucketize},
       status), ...);
}

}  // namespace

// TensorFlow's CPU kernels: MatrixBandPart on every numeric type and bool, Bucketize on
// the four types its OpDef allows.
void RegisterMatrixBandBucketizeKernels(TF_Status* status) {
  RegisterBands(Concat<RealAndBoolTypes, ComplexTypes>(), status);
  RegisterBucketize(Types<int32_t, int64_t, float, double>(), status);
}

}  // namespace cpu
}  // namespace opgen
