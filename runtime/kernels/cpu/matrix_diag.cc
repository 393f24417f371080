// MatrixDiagV3, MatrixDiagPartV3 and MatrixSetDiagV3 on the CPU (checks and index maps:
// ../matrix_diag_spec.h, shared with the CUDA plugin), and L2Loss (sum(t^2) / 2). The
// diagonal ops move elements as raw words of the dtype's width, so one kernel per width
// serves every type.
#include <cstring>
#include <utility>
#include <vector>

#include "../matrix_diag_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

using Align = std::pair<bool, bool>;

template <size_t kWidth>
struct Word {
  unsigned char bytes[kWidth];
};

template <size_t kWidth>
void DiagPartCompute(void* state, TF_OpKernelContext* ctx) {
  using W = Word<kWidth>;
  kernels::DiagPartPlan p;
  if (!kernels::PlanDiagPart(ctx, *static_cast<Align*>(state), &p)) return;
  TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_TensorType(p.input.get()), p.out_dims);
  const int64_t per_matrix = p.band.num_diags() * p.band.max_len;
  if (!out || p.matrices * per_matrix == 0) return;
  const W* in = static_cast<const W*>(TF_TensorData(p.input.get()));
  W* o = static_cast<W*>(TF_TensorData(out.get()));
  W pad;
  std::memcpy(&pad, p.padding.data(), kWidth);
  const kernels::DiagBand b = p.band;
  ParallelFor(p.matrices * b.num_diags(), [=](int64_t begin, int64_t end) {
    for (int64_t md = begin; md < end; ++md) {
      const int64_t m = md / b.num_diags(), row = md % b.num_diags();
      for (int64_t j = 0; j < b.max_len; ++j) {
        const int64_t src = kernels::DiagSourceOf(b, m, row, j);
        o[md * b.max_len + j] = src < 0 ? pad : in[src];
      }
    }
  }, 1);
}

template <size_t kWidth>
void DiagCompute(void* state, TF_OpKernelContext* ctx) {
  using W = Word<kWidth>;
  kernels::DiagPlan p;
  if (!kernels::PlanDiag(ctx, *static_cast<Align*>(state), &p)) return;
  TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_TensorType(p.diagonal.get()), p.out_dims);
  const kernels::DiagBand b = p.band;
  if (!out || p.matrices * b.rows * b.cols == 0) return;
  const W* diag = static_cast<const W*>(TF_TensorData(p.diagonal.get()));
  W* o = static_cast<W*>(TF_TensorData(out.get()));
  W pad;
  std::memcpy(&pad, p.padding.data(), kWidth);
  ParallelFor(p.matrices * b.rows, [=](int64_t begin, int64_t end) {
    for (int64_t mr = begin; mr < end; ++mr) {
      const int64_t m = mr / b.rows, r = mr % b.rows;
      for (int64_t c = 0; c < b.cols; ++c) {
        const int64_t slot = kernels::DiagSlotOf(b, m, r, c);
        o[mr * b.cols + c] = slot < 0 ? pad : diag[slot];
      }
    }
  }, 1);
}

template <size_t kWidth>
void SetDiagCompute(void* state, TF_OpKernelContext* ctx) {
  using W = Word<kWidth>;
  kernels::SetDiagPlan p;
  if (!kernels::PlanSetDiag(ctx, *static_cast<Align*>(state), &p)) return;
  TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_TensorType(p.input.get()), p.dims);
  const kernels::DiagBand b = p.band;
  if (!out || p.matrices * b.rows * b.cols == 0) return;
  const W* in = static_cast<const W*>(TF_TensorData(p.input.get()));
  const W* diag = static_cast<const W*>(TF_TensorData(p.diagonal.get()));
  W* o = static_cast<W*>(TF_TensorData(out.get()));
  ParallelFor(p.matrices * b.rows, [=](int64_t begin, int64_t end) {
    for (int64_t mr = begin; mr < end; ++mr) {
      const int64_t m = mr / b.rows, r = mr % b.rows;
      for (int64_t c = 0; c < b.cols; ++c) {
        const int64_t slot = kernels::DiagSlotOf(b, m, r, c);
        o[mr * b.cols + c] = slot < 0 ? in[mr * b.cols + c] : diag[slot];
      }
    }
  }, 1);
}

// sum(t^2) / 2, summed in double whatever T is; the result rounded once to T.
template <typename T>
void L2LossCompute(void*, TF_OpKernelContext* ctx) {
  const TF_Tensor* t = BorrowInput(ctx, 0);
  if (!t) return;
  TensorPtr out = AllocateOutput<T>(ctx, 0, {});
  if (!out) return;
  const T* x = Data<T>(t);
  const int64_t n = TF_TensorElementCount(t);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double v = static_cast<double>(static_cast<float>(x[i]));
    sum += v * v;
  }
  *Data<T>(out) = static_cast<T>(static_cast<float>(sum / 2));
}

template <>
void L2LossCompute<double>(void*, TF_OpKernelContext* ctx) {
  const TF_Tensor* t = BorrowInput(ctx, 0);
  if (!t) return;
  TensorPtr out = AllocateOutput<double>(ctx, 0, {});
  if (!out) return;
  const double* x = Data<double>(t);
  const int64_t n = TF_TensorElementCount(t);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += x[i] * x[i];
  *Data<double>(out) = sum / 2;
}

void* CreateAlign(TF_OpKernelConstruction* ctx) { return kernels::CreateDiagAlign(ctx); }

template <typename... Ts>
void RegisterDiagonals(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"MatrixDiagV3", {{"T", DtypeOf<Ts>::value}}, {},
       &DiagCompute<sizeof(Ts)>, CreateAlign, kernels::DeleteDiagAlign}, status), ...);
  (RegisterKernel(kDevice, {"MatrixDiagPartV3", {{"T", DtypeOf<Ts>::value}}, {},
       &DiagPartCompute<sizeof(Ts)>, CreateAlign, kernels::DeleteDiagAlign}, status), ...);
  (RegisterKernel(kDevice, {"MatrixSetDiagV3", {{"T", DtypeOf<Ts>::value}}, {},
       &SetDiagCompute<sizeof(Ts)>, CreateAlign, kernels::DeleteDiagAlign}, status), ...);
  // The older forms over the same kernels: V2 always LEFT_LEFT, v1 the main diagonal.
  (RegisterKernel(kDevice, {"MatrixDiagV2", {{"T", DtypeOf<Ts>::value}}, {},
       &DiagCompute<sizeof(Ts)>, kernels::CreateDiagLeftLeft, kernels::DeleteDiagAlign}, status), ...);
  (RegisterKernel(kDevice, {"MatrixDiagPartV2", {{"T", DtypeOf<Ts>::value}}, {},
       &DiagPartCompute<sizeof(Ts)>, kernels::CreateDiagLeftLeft, kernels::DeleteDiagAlign}, status), ...);
  (RegisterKernel(kDevice, {"MatrixSetDiagV2", {{"T", DtypeOf<Ts>::value}}, {},
       &SetDiagCompute<sizeof(Ts)>, kernels::CreateDiagLeftLeft, kernels::DeleteDiagAlign}, status), ...);
  (RegisterKernel(kDevice, {"MatrixDiag", {{"T", DtypeOf<Ts>::value}}, {},
       &DiagCompute<sizeof(Ts)>, kernels::CreateDiagLeftLeft, kernels::DeleteDiagAlign}, status), ...);
  (RegisterKernel(kDevice, {"MatrixDiagPart", {{"T", DtypeOf<Ts>::value}}, {},
       &DiagPartCompute<sizeof(Ts)>, kernels::CreateDiagLeftLeft, kernels::DeleteDiagAlign}, status), ...);
  (RegisterKernel(kDevice, {"MatrixSetDiag", {{"T", DtypeOf<Ts>::value}}, {},
       &SetDiagCompute<sizeof(Ts)>, kernels::CreateDiagLeftLeft, kernels::DeleteDiagAlign}, status), ...);
}

template <typename... Ts>
void RegisterL2Loss(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"L2Loss", {{"T", DtypeOf<Ts>::value}}, {}, &L2LossCompute<Ts>},
                  status), ...);
}

}  // namespace

// TensorFlow's CPU kernels: the diagonal ops on every numeric type and bool, L2Loss on
// its OpDef's four floating-point types.
void RegisterMatrixDiagKernels(TF_Status* status) {
  RegisterDiagonals(Concat<RealAndBoolTypes, ComplexTypes>(), status);
  RegisterL2Loss(FloatTypes(), status);
}

}  // namespace cpu
}  // namespace opgen
