// The optimizer kernels (ResourceApplyGradientDescent, ResourceApplyMomentum, ...), the
// same on every device: the checks, the inputs, and each algorithm's per-element update
// (host and device code alike, compiled by the C++ compiler and by nvcc). They update the
// variable and its slots in one OPGEN_KernelUpdateVariables step: in place when nobody
// else holds a value, else on a copy (copy-on-write). A device supplies a loop running
// an algorithm over the elements (`Loop<Algo, T>::Run`) and a copy within its memory.
#pragma once

#include <cmath>
#include <iterator>
#include <string>
#include <vector>

#include "kernel_api_util.h"
#include "kernel_registration.h"
#include "opgen/variable_updates.h"

#if defined(__CUDACC__)
#define OPGEN_TRAINING_FN __host__ __device__ inline
#else
#define OPGEN_TRAINING_FN inline
#endif

namespace opgen {
namespace kernels {
namespace training {

// ---- the algorithms: TensorFlow's documented update formulas -------------------------
// Each has kVars variables (the var and its slots, in input order), kScalars scalar
// operands (in input order), and `Prepare`, run once per step, turning the scalars into
// what `Apply` uses per element, where v[0 .. kVars) are one element of each variable,
// updated in place, and g is the gradient's. C is the compute type (float for 16-bit
// floats: one rounding per stored result).

template <typename C>
OPGEN_TRAINING_FN C Sqrt(C x);
template <>
OPGEN_TRAINING_FN float Sqrt<float>(float x) { return sqrtf(x); }
template <>
OPGEN_TRAINING_FN double Sqrt<double>(double x) { return sqrt(x); }

struct GradientDescent {  // var -= alpha * delta
  static constexpr int kVars = 1, kScalars = 1;
  template <typename C>
  OPGEN_TRAINING_FN static void Prepare(const C* s, C* p) { p[0] = s[0]; }
  template <typename C>
  OPGEN_TRAINING_FN static void Apply(C* v, C g, const C* p, bool) { v[0] -= p[0] * g; }
};

struct Momentum {  // scalars lr, momentum
  static constexpr int kVars = 2, kScalars = 2;
  template <typename C>
  OPGEN_TRAINING_FN static void Prepare(const C* s, C* p) { p[0] = s[0], p[1] = s[1]; }
  template <typename C>
  OPGEN_TRAINING_FN static void Apply(C* v, C g, const C* p, bool nesterov) {
    const C lr = p[0], momentum = p[1];
    v[1] = v[1] * momentum + g;  // accum
    v[0] -= nesterov ? g * lr + v[1] * momentum * lr : lr * v[1];
  }
};

struct KerasMomentum {  // scalars lr, momentum
  static constexpr int kVars = 2, kScalars = 2;
  template <typename C>
  OPGEN_TRAINING_FN static void Prepare(const C* s, C* p) { p[0] = s[0], p[1] = s[1]; }
  template <typename C>
  OPGEN_TRAINING_FN static void Apply(C* v, C g, const C* p, bool nesterov) {
    const C lr = p[0], momentum = p[1];
    v[1] = v[1] * momentum - g * lr;  // accum
    v[0] += nesterov ? v[1] * momentum - g * lr : v[1];
  }
};

// Scalars beta1_power, beta2_power, lr, beta1, beta2, epsilon; slots m, v.
struct Adam {
  static constexpr int kVars = 3, kScalars = 6;
  template <typename C>
  OPGEN_TRAINING_FN static void Prepare(const C* s, C* p) {
    p[0] = s[2] * Sqrt<C>(C(1) - s[1]) / (C(1) - s[0]);  // lr_t, the corrected rate
    p[1] = s[3], p[2] = s[4], p[3] = s[5];               // beta1, beta2, epsilon
    p[4] = C(1) - s[3], p[5] = C(1) - s[4];
  }
  template <typename C>
  OPGEN_TRAINING_FN static void Apply(C* v, C g, const C* p, bool nesterov) {
    const C lr_t = p[0], beta1 = p[1], epsilon = p[3], one_minus_beta1 = p[4],
            one_minus_beta2 = p[5];
    v[1] += (g - v[1]) * one_minus_beta1;      // m
    v[2] += (g * g - v[2]) * one_minus_beta2;  // v
    const C step = nesterov ? (g * one_minus_beta1 + beta1 * v[1]) : v[1];
    v[0] -= step * lr_t / (Sqrt<C>(v[2]) + epsilon);  // epsilon outside the root
  }
};

// Scalar lr; slot accum. `update_slots` false leaves accum as it is.
struct Adagrad {
  static constexpr int kVars = 2, kScalars = 1;
  template <typename C>
  OPGEN_TRAINING_FN static void Prepare(const C* s, C* p) { p[0] = s[0]; }
  template <typename C>
  OPGEN_TRAINING_FN static void Apply(C* v, C g, const C* p, bool update_slots) {
    if (update_slots) v[1] += g * g;
    v[0] -= g * p[0] * (C(1) / Sqrt<C>(v[1]));
  }
};

// Scalars lr, rho, momentum, epsilon; slots ms, mom.
struct RMSProp {
  static constexpr int kVars = 3, kScalars = 4;
  template <typename C>
  OPGEN_TRAINING_FN static void Prepare(const C* s, C* p) {
    p[0] = s[0], p[1] = C(1) - s[1], p[2] = s[2], p[3] = s[3];
  }
  template <typename C>
  OPGEN_TRAINING_FN static void Apply(C* v, C g, const C* p, bool) {
    v[1] += (g * g - v[1]) * p[1];                           // ms
    v[2] = v[2] * p[2] + (g * p[0]) / Sqrt<C>(v[1] + p[3]);  // mom
    v[0] -= v[2];
  }
};

// ---- the kernels ------------------------------------------------------------------

// Where each op keeps its inputs: the variables first, then the scalar operands and the
// gradient at the indices below (the OpDef's order), with the OpDef's names.
template <typename Algo>
struct Layout;
template <>
struct Layout<GradientDescent> {
  static constexpr const char* kVarNames[] = {"var"};
  static constexpr int kScalarIndex[] = {1};
  static constexpr const char* kScalarNames[] = {"alpha"};
  static constexpr int kGrad = 2;
  static constexpr const char* kGradName = "delta";
};
template <>
struct Layout<Momentum> {
  static constexpr const char* kVarNames[] = {"var", "accum"};
  static constexpr int kScalarIndex[] = {2, 4};
  static constexpr const char* kScalarNames[] = {"lr", "momentum"};
  static constexpr int kGrad = 3;
  static constexpr const char* kGradName = "grad";
};
template <>
struct Layout<KerasMomentum> : Layout<Momentum> {};
template <>
struct Layout<Adagrad> {
  static constexpr const char* kVarNames[] = {"var", "accum"};
  static constexpr int kScalarIndex[] = {2};
  static constexpr const char* kScalarNames[] = {"lr"};
  static constexpr int kGrad = 3;
  static constexpr const char* kGradName = "grad";
};
template <>
struct Layout<RMSProp> {
  static constexpr const char* kVarNames[] = {"var", "ms", "mom"};
  static constexpr int kScalarIndex[] = {3, 4, 5, 6};
  static constexpr const char* kScalarNames[] = {"lr", "rho", "momentum", "epsilon"};
  static constexpr int kGrad = 7;
  static constexpr const char* kGradName = "grad";
};
template <>
struct Layout<Adam> {
  static constexpr const char* kVarNames[] = {"var", "m", "v"};
  static constexpr int kScalarIndex[] = {3, 4, 5, 6, 7, 8};
  static constexpr const char* kScalarNames[] = {"beta1_power", "beta2_power", "lr",
                                                 "beta1",       "beta2",       "epsilon"};
  static constexpr int kGrad = 9;
  static constexpr const char* kGradName = "grad";
};

// The op's bool attr that steers Apply (use_nesterov, Adagrad's update_slots), read
// once per node; ops without one pass false.
template <const char* kAttr>
void* CreateFlag(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* flag = new TF_Bool(0);
  TF_OpKernelConstruction_GetAttrBool(ctx, kAttr, flag, s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete flag;
    return nullptr;
  }
  return flag;
}
inline void DeleteFlag(void* flag) { delete static_cast<TF_Bool*>(flag); }
inline constexpr char kUseNesterov[] = "use_nesterov";
inline constexpr char kUpdateSlots[] = "update_slots";

// What the update callback needs from the kernel's compute call.
template <typename T>
struct StepArgs {
  TF_OpKernelContext* ctx;
  const T* scalars[6];
  const TF_Tensor* grad;
  bool flag;  // use_nesterov, update_slots
};

// `Dev::Loop<Algo, T>::Run(ctx, vars, grad, scalars, n, flag, status)` runs Algo in
// place over vars[0 .. kVars)[0 .. n) (scalars point to the device's memory, as the
// inputs do); `Dev::Copy(ctx, dst, src, bytes, status)` copies within its memory.
template <typename Dev, typename Algo, typename T>
struct TrainingKernel {
  using L = Layout<Algo>;

  static void Update(const TF_Tensor* const* old_values, TF_Tensor* const* new_values, int,
                     void* arg, TF_Status* status) {
    const auto* a = static_cast<const StepArgs<T>*>(arg);
    // TensorFlow's checks and messages ("var and accum do not have the same shape[2] [3]"),
    // all before anything is written.
    const std::vector<int64_t> var_dims = Dims(old_values[0]);
    for (int k = 1; k < Algo::kVars; ++k) {
      const std::vector<int64_t> slot = Dims(old_values[k]);
      if (slot != var_dims) {
        const std::string m = std::string("var and ") + L::kVarNames[k] +
                              " do not have the same shape" + ShapeString(var_dims) + " " +
                              ShapeString(slot);
        TF_SetStatus(status, TF_INVALID_ARGUMENT, m.c_str());
        return;
      }
    }
    const std::vector<int64_t> grad_dims = Dims(a->grad);
    if (grad_dims != var_dims) {
      const std::string m = std::string("var and ") + L::kGradName +
                            " do not have the same shape" + ShapeString(var_dims) + " " +
                            ShapeString(grad_dims);
      TF_SetStatus(status, TF_INVALID_ARGUMENT, m.c_str());
      return;
    }
    T* vars[Algo::kVars];
    const size_t bytes = TF_TensorByteSize(old_values[0]);
    for (int k = 0; k < Algo::kVars; ++k) {
      vars[k] = static_cast<T*>(TF_TensorData(new_values[k]));
      if (new_values[k] != old_values[k] && bytes > 0) {  // copy-on-write
        Dev::Copy(a->ctx, vars[k], TF_TensorData(old_values[k]), bytes, status);
        if (TF_GetCode(status) != TF_OK) return;
      }
    }
    Dev::template Loop<Algo, T>::Run(a->ctx, vars,
                                     static_cast<const T*>(TF_TensorData(a->grad)),
                                     a->scalars, TF_TensorElementCount(old_values[0]),
                                     a->flag, status);
  }

  static void Compute(void* flag, TF_OpKernelContext* ctx) {
    StepArgs<T> args{ctx, {}, nullptr, flag != nullptr && *static_cast<TF_Bool*>(flag)};
    for (int k = 0; k < Algo::kScalars; ++k) {
      const TF_Tensor* s = BorrowInput(ctx, L::kScalarIndex[k]);
      if (s == nullptr) return;
      if (TF_NumDims(s) != 0) {
        Fail(ctx, TF_INVALID_ARGUMENT,
             std::string(L::kScalarNames[k]) + " is not a scalar: " + ShapeString(Dims(s)));
        return;
      }
      args.scalars[k] = static_cast<const T*>(TF_TensorData(s));
    }
    args.grad = BorrowInput(ctx, L::kGrad);
    if (args.grad == nullptr) return;
    int indices[Algo::kVars];
    for (int k = 0; k < Algo::kVars; ++k) indices[k] = k;
    StatusPtr s = NewStatus();
    OPGEN_KernelUpdateVariables(ctx, indices, L::kVarNames, Algo::kVars, DtypeOf<T>::value,
                                &TrainingKernel::Update, &args, s.get());
    if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelContext_Failure(ctx, s.get());
  }
};

// Registers the family's op `op` for `Dev` and each dtype of `Ts` (variables' handles in
// host memory), reading the bool attr `flag_attr` (nullptr: none) for Apply. The family
// files name every op they register (tests/python_runtime/test_kernel_twins.py reads them).
template <typename Dev, typename Algo, typename... Ts>
void RegisterTrainingKernels(const char* device_type, const char* op, CreateFn read_flag,
                             Types<Ts...>, TF_Status* status) {
  std::vector<const char*> host(std::begin(Layout<Algo>::kVarNames),
                                std::end(Layout<Algo>::kVarNames));
  (RegisterKernel(device_type,
                  {op, {{"T", DtypeOf<Ts>::value}}, host,
                   &TrainingKernel<Dev, Algo, Ts>::Compute, read_flag,
                   read_flag != nullptr ? &DeleteFlag : nullptr},
                  status),
   ...);
}

}  // namespace training
}  // namespace kernels
}  // namespace opgen
