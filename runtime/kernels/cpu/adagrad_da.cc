// ResourceApplyAdagradDA and ResourceSparseApplyAdagradDA on the CPU (TensorFlow's
// registers them for float and double, CPU only). Their int64 global_step operand keeps
// them out of ../training_spec.h's kernels, whose scalars are all T; the checks and
// messages are that file's (SlotShapeMismatch, ScalarMessage) and TensorFlow's.
//   gradient_accumulator += grad; gradient_squared_accumulator += grad^2;
//   var = lr * -sign(acc) * max(|acc| - global_step * l1, 0) / (sqrt(sq) + global_step * lr * l2)
//   (l1 > 0), else var = lr * acc * -1 / (sqrt(sq) + global_step * lr * l2).
#include <cmath>
#include <cstring>
#include <string>

#include "kernel_util.h"
#include "parallel.h"
#include "../training_spec.h"

namespace opgen {
namespace cpu {
namespace {

namespace t = kernels::training;

struct AdagradDALayout : t::LayoutBase {
  static constexpr const char* kVarNames[] = {"var", "accum", "accum"};
  static constexpr const char* kScalarNames[] = {"lr", "l1 regularization strength",
                                                 "l2 regularization strength", "global_step"};
};
constexpr const char* kInputNames[] = {"var", "gradient_accumulator",
                                       "gradient_squared_accumulator"};

template <typename T>
struct DAArgs {
  T lr, l1, l2;
  int64_t step;
  const TF_Tensor* grad;
  const TF_Tensor* indices;  // the sparse form's
};

template <typename T>
void Step(T* var, T* acc, T* sq, T g, const DAArgs<T>& a) {
  const T accum = *acc + g, squared = *sq + g * g;
  *acc = accum, *sq = squared;
  const T gs = static_cast<T>(a.step);
  const T denom = std::sqrt(squared) + gs * a.lr * a.l2;
  if (a.l1 > T(0)) {
    const T sign = accum > T(0) ? T(1) : (accum < T(0) ? T(-1) : T(0));
    *var = a.lr * (-sign * std::max(std::abs(accum) - gs * a.l1, T(0))) / denom;
  } else {
    *var = a.lr * accum * T(-1) / denom;
  }
}

// Copies old into new values where they differ (copy-on-write); the three data pointers.
template <typename T>
void Writable(const TF_Tensor* const* old_values, TF_Tensor* const* new_values, T** v) {
  const size_t bytes = TF_TensorByteSize(old_values[0]);
  for (int k = 0; k < 3; ++k) {
    v[k] = static_cast<T*>(TF_TensorData(new_values[k]));
    if (new_values[k] != old_values[k] && bytes > 0)
      std::memcpy(v[k], TF_TensorData(old_values[k]), bytes);
  }
}

template <typename T, typename Index, bool kSparse>
struct AdagradDAKernel {
  // TensorFlow's checks in its order and words; "" when all pass.
  static std::string Check(const TF_Tensor* const* values, const DAArgs<T>& a) {
    std::string m = t::SlotShapeMismatch<AdagradDALayout, 3>(values);
    if (!m.empty()) return m;
    const std::vector<int64_t> var = Dims(values[0]), grad = Dims(a.grad);
    if (!kSparse) {
      return grad == var ? "" : "var and grad do not have the same shape" + ShapeString(var) +
                                    " " + ShapeString(grad);
    }
    if (var.empty()) return "var must be at least 1 dimensional";
    if (grad.size() != var.size()) return "grad must have the same number of dimensions as var";
    for (size_t d = 1; d < var.size(); ++d)
      if (var[d] != grad[d]) return "var and grad must match in dimension " + std::to_string(d);
    const int64_t n = TF_TensorElementCount(a.indices);
    if (grad[0] != n) return "grad must be the same size as indices in the first dimension.";
    const auto* idx = static_cast<const Index*>(TF_TensorData(a.indices));
    for (int64_t j = 0; j < n; ++j)
      if (idx[j] < 0 || idx[j] >= var[0])
        return "Index " + std::to_string(idx[j]) + " at offset " + std::to_string(j) +
               " in indices is out of range";
    return "";
  }

  static void Update(const TF_Tensor* const* old_values, TF_Tensor* const* new_values, int,
                     void* arg, TF_Status* status) {
    const auto& a = *static_cast<const DAArgs<T>*>(arg);
    const std::string m = Check(old_values, a);
    if (!m.empty()) return TF_SetStatus(status, TF_INVALID_ARGUMENT, m.c_str());
    T* v[3];
    Writable(old_values, new_values, v);
    const T* g = static_cast<const T*>(TF_TensorData(a.grad));
    if (!kSparse) {
      ParallelFor(TF_TensorElementCount(old_values[0]), [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) Step(v[0] + i, v[1] + i, v[2] + i, g[i], a);
      });
      return;
    }
    const int64_t rows = TF_Dim(old_values[0], 0);
    const int64_t inner = rows == 0 ? 0 : TF_TensorElementCount(old_values[0]) / rows;
    const int64_t n = TF_TensorElementCount(a.indices);
    const auto* idx = static_cast<const Index*>(TF_TensorData(a.indices));
    // A repeated index updates its row again, in order, as TensorFlow's CPU kernel does.
    for (int64_t j = 0; j < n; ++j) {
      const int64_t base = static_cast<int64_t>(idx[j]) * inner;
      for (int64_t e = 0; e < inner; ++e)
        Step(v[0] + base + e, v[1] + base + e, v[2] + base + e, g[j * inner + e], a);
    }
  }

  static void Compute(void*, TF_OpKernelContext* ctx) {
    // Inputs: var, accums, grad, [indices,] lr, l1, l2, global_step.
    const int first = kSparse ? 5 : 4;
    DAArgs<T> a{};
    a.grad = BorrowInput(ctx, 3);
    a.indices = kSparse ? BorrowInput(ctx, 4) : nullptr;
    if (a.grad == nullptr || (kSparse && a.indices == nullptr)) return;
    if (kSparse && TF_NumDims(a.indices) != 1)
      return Fail(ctx, TF_INVALID_ARGUMENT, "indices must be one-dimensional");
    T* scalars[3] = {&a.lr, &a.l1, &a.l2};
    for (int k = 0; k < 4; ++k) {
      const TF_Tensor* s = BorrowInput(ctx, first + k);
      if (s == nullptr) return;
      if (TF_NumDims(s) != 0)
        return Fail(ctx, TF_INVALID_ARGUMENT, t::ScalarMessage<AdagradDALayout>(k, Dims(s)));
      if (k < 3) *scalars[k] = *static_cast<const T*>(TF_TensorData(s));
      else a.step = *static_cast<const int64_t*>(TF_TensorData(s));
    }
    const int resources[3] = {0, 1, 2};
    StatusPtr s = NewStatus();
    OPGEN_KernelUpdateVariables(ctx, resources, kInputNames, 3, DtypeOf<T>::value,
                                &AdagradDAKernel::Update, &a, s.get());
    if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelContext_Failure(ctx, s.get());
  }
};

template <typename T>
void RegisterFor(TF_Status* status) {
  const std::vector<const char*> host(std::begin(kInputNames), std::end(kInputNames));
  RegisterKernel(kDevice, {"ResourceApplyAdagradDA", {{"T", DtypeOf<T>::value}}, host,
                           &AdagradDAKernel<T, int32_t, false>::Compute}, status);
  RegisterKernel(kDevice, {"ResourceSparseApplyAdagradDA",
                           {{"T", DtypeOf<T>::value}, {"Tindices", TF_INT32}}, host,
                           &AdagradDAKernel<T, int32_t, true>::Compute}, status);
  RegisterKernel(kDevice, {"ResourceSparseApplyAdagradDA",
                           {{"T", DtypeOf<T>::value}, {"Tindices", TF_INT64}}, host,
                           &AdagradDAKernel<T, int64_t, true>::Compute}, status);
}

}  // namespace

void RegisterAdagradDAKernels(TF_Status* status) {
  RegisterFor<float>(status);
  RegisterFor<double>(status);
}

}  // namespace cpu
}  // namespace opgen
