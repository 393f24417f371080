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
template <typename C>
OPGEN_TRAINING_FN C Exp(C x);
template <>
OPGEN_TRAINING_FN float Exp<float>(float x) { return expf(x); }
template <>
OPGEN_TRAINING_FN double Exp<double>(double x) { return exp(x); }
template <typename C>
OPGEN_TRAINING_FN C Pow(C x, C y);
template <>
OPGEN_TRAINING_FN float Pow<float>(float x, float y) { return powf(x, y); }
template <>
OPGEN_TRAINING_FN double Pow<double>(double x, double y) { return pow(x, y); }
template <typename C>
OPGEN_TRAINING_FN C Abs(C x) { return x < C(0) ? -x : x; }
template <typename C>
OPGEN_TRAINING_FN C Sign(C x) { return x > C(0) ? C(1) : (x < C(0) ? C(-1) : C(0)); }
template <typename C>
OPGEN_TRAINING_FN C Max(C a, C b) { return a < b ? b : a; }

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

// Adam's scalars; slots m, v, vhat: the denominator uses the largest v so far (AMSGrad).
struct AdamWithAmsgrad {
  static constexpr int kVars = 4, kScalars = 6;
  template <typename C>
  OPGEN_TRAINING_FN static void Prepare(const C* s, C* p) { Adam::Prepare(s, p); }
  template <typename C>
  OPGEN_TRAINING_FN static void Apply(C* v, C g, const C* p, bool) {
    v[1] += (g - v[1]) * p[4];      // m
    v[2] += (g * g - v[2]) * p[5];  // v
    v[3] = Max(v[3], v[2]);         // vhat
    v[0] -= v[1] * p[0] / (Sqrt<C>(v[3]) + p[3]);
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

// Scalars lr, rho, epsilon; slots accum, accum_update.
struct Adadelta {
  static constexpr int kVars = 3, kScalars = 3;
  template <typename C>
  OPGEN_TRAINING_FN static void Prepare(const C* s, C* p) {
    p[0] = s[0], p[1] = s[1], p[2] = s[2], p[3] = C(1) - s[1];
  }
  template <typename C>
  OPGEN_TRAINING_FN static void Apply(C* v, C g, const C* p, bool) {
    const C lr = p[0], rho = p[1], epsilon = p[2], one_minus_rho = p[3];
    v[1] = v[1] * rho + g * g * one_minus_rho;  // accum
    const C update = Sqrt<C>(v[2] + epsilon) / Sqrt<C>(v[1] + epsilon) * g;
    v[0] -= update * lr;
    v[2] = v[2] * rho + update * update * one_minus_rho;  // accum_update
  }
};

// Scalars lr, epsilon; slot accum. As Adagrad, epsilon outside the root.
struct AdagradV2 {
  static constexpr int kVars = 2, kScalars = 2;
  template <typename C>
  OPGEN_TRAINING_FN static void Prepare(const C* s, C* p) { p[0] = s[0], p[1] = s[1]; }
  template <typename C>
  OPGEN_TRAINING_FN static void Apply(C* v, C g, const C* p, bool update_slots) {
    if (update_slots) v[1] += g * g;
    v[0] -= g * p[0] / (Sqrt<C>(v[1]) + p[1]);
  }
};

// The proximal step both FOBOS variants end with: shrink by rate * l1 (when l1 > 0),
// scale by 1 / (1 + rate * l2).
template <typename C>
OPGEN_TRAINING_FN C Proximal(C prox, C rate, C l1, C l2) {
  const C scale = C(1) + rate * l2;
  if (l1 > C(0)) return Sign(prox) * Max(Abs(prox) - rate * l1, C(0)) / scale;
  return prox / scale;
}

// Scalars lr, l1, l2; slot accum.
struct ProximalAdagrad {
  static constexpr int kVars = 2, kScalars = 3;
  template <typename C>
  OPGEN_TRAINING_FN static void Prepare(const C* s, C* p) { p[0] = s[0], p[1] = s[1], p[2] = s[2]; }
  template <typename C>
  OPGEN_TRAINING_FN static void Apply(C* v, C g, const C* p, bool) {
    v[1] += g * g;
    const C rate = p[0] / Sqrt<C>(v[1]);
    v[0] = Proximal(v[0] - g * rate, rate, p[1], p[2]);
  }
};

// Scalars alpha, l1, l2; no slot.
struct ProximalGradientDescent {
  static constexpr int kVars = 1, kScalars = 3;
  template <typename C>
  OPGEN_TRAINING_FN static void Prepare(const C* s, C* p) { p[0] = s[0], p[1] = s[1], p[2] = s[2]; }
  template <typename C>
  OPGEN_TRAINING_FN static void Apply(C* v, C g, const C* p, bool) {
    v[0] = Proximal(v[0] - g * p[0], p[0], p[1], p[2]);
  }
};

// Scalars lr, rho, momentum, epsilon; slots mg, ms, mom.
struct CenteredRMSProp {
  static constexpr int kVars = 4, kScalars = 4;
  template <typename C>
  OPGEN_TRAINING_FN static void Prepare(const C* s, C* p) {
    p[0] = s[0], p[1] = C(1) - s[1], p[2] = s[2], p[3] = s[3];
  }
  template <typename C>
  OPGEN_TRAINING_FN static void Apply(C* v, C g, const C* p, bool) {
    v[2] += (g * g - v[2]) * p[1];  // ms
    v[1] += (g - v[1]) * p[1];      // mg
    const C denom = (v[2] - v[1] * v[1]) + p[3];
    v[3] = v[3] * p[2] + g * p[0] / Sqrt<C>(denom);  // mom
    v[0] -= v[3];
  }
};

// FTRL-proximal. Scalars lr, l1, l2, [l2_shrinkage,] lr_power; slots accum, linear.
// `multiply_linear_by_lr` keeps linear scaled by lr (so lr may be 0). lr_power -0.5 (the
// usual one) takes square roots, as TensorFlow does, other powers pow().
template <bool kShrinkage>
struct FtrlBase {
  static constexpr int kVars = 3, kScalars = kShrinkage ? 5 : 4;
  template <typename C>
  OPGEN_TRAINING_FN static void Prepare(const C* s, C* p) {
    p[0] = s[0], p[1] = s[1], p[2] = s[2];
    p[3] = kShrinkage ? s[3] : C(0);                       // l2_shrinkage
    p[4] = -s[kScalars - 1];                               // -lr_power
    p[5] = s[kScalars - 1] == C(-0.5) ? C(1) : C(0);       // take roots
  }
  template <typename C>
  OPGEN_TRAINING_FN static C Power(C x, const C* p) {
    return p[5] != C(0) ? Sqrt<C>(x) : Pow<C>(x, p[4]);
  }
  template <typename C>
  OPGEN_TRAINING_FN static void Apply(C* v, C g, const C* p, bool multiply_linear_by_lr) {
    const C lr = p[0], l1 = p[1], l2 = p[2];
    const C g_shrunk = kShrinkage ? g + C(2) * p[3] * v[0] : g;
    const C accum = v[1] + g * g;
    const C sigma = Power(accum, p) - Power(v[1], p);
    C threshold, y;
    if (multiply_linear_by_lr) {
      v[2] += g_shrunk * lr - sigma * v[0];
      threshold = l1 * lr, y = Power(accum, p) + C(2) * l2 * lr;
    } else {
      v[2] += g_shrunk - sigma / lr * v[0];
      threshold = l1, y = Power(accum, p) / lr + C(2) * l2;
    }
    const C linear = v[2];
    const C clipped = linear < -threshold ? -threshold : (linear > threshold ? threshold : linear);
    v[0] = Abs(linear) > threshold ? (clipped - linear) / y : C(0);
    v[1] = accum;
  }
};
using Ftrl = FtrlBase<false>;
using FtrlV2 = FtrlBase<true>;

// Scalars beta1_power, lr, beta1, beta2, epsilon; slots m, v.
struct AdaMax {
  static constexpr int kVars = 3, kScalars = 5;
  template <typename C>
  OPGEN_TRAINING_FN static void Prepare(const C* s, C* p) {
    p[0] = s[1] / (C(1) - s[0]);  // lr corrected for the first moment's bias
    p[1] = C(1) - s[2], p[2] = s[3], p[3] = s[4];
  }
  template <typename C>
  OPGEN_TRAINING_FN static void Apply(C* v, C g, const C* p, bool) {
    v[1] += (g - v[1]) * p[1];         // m
    v[2] = Max(p[2] * v[2], Abs(g));   // v
    v[0] -= p[0] * (v[1] / (v[2] + p[3]));
  }
};

// AddSign and PowerSign. Scalars lr, alpha | logbase, sign_decay, beta; slot m.
template <bool kPower>
struct SignRule {
  static constexpr int kVars = 2, kScalars = 4;
  template <typename C>
  OPGEN_TRAINING_FN static void Prepare(const C* s, C* p) {
    p[0] = s[0], p[1] = s[1], p[2] = s[2], p[3] = s[3], p[4] = C(1) - s[3];
  }
  template <typename C>
  OPGEN_TRAINING_FN static void Apply(C* v, C g, const C* p, bool) {
    v[1] = v[1] * p[3] + g * p[4];  // m
    const C sign_gm = Sign(g) * Sign(v[1]);
    const C factor = kPower ? Exp<C>(p[1] * p[2] * sign_gm) : p[1] + p[2] * sign_gm;
    v[0] -= p[0] * factor * g;
  }
};
using AddSign = SignRule<false>;
using PowerSign = SignRule<true>;

// ---- the kernels ------------------------------------------------------------------

// What TensorFlow's CPU kernels require of a scalar operand's value (its GPU kernels do
// not look), and the words of the message when it is not so.
enum class Check { kAny, kPositive, kNonNegative, kNonPositive, kPositiveOrZeroIfFlag };

// Where each op keeps its inputs: the variables first, then the scalar operands and the
// gradient at the indices below (the OpDef's order). kScalarNames are the words
// TensorFlow's messages use for them ("l1 regularization strength is not a scalar: [2]");
// kScalarChecks their value checks (default none); the sparse forms add kIndices.
struct LayoutBase {
  static constexpr Check kScalarChecks[6] = {};
  static constexpr int kIndices = -1;
  static constexpr bool kBracketedIndexMessage = false;  // "indices[1] = 7 is not in [0, 4)"
};
template <typename Algo>
struct Layout;
template <>
struct Layout<GradientDescent> : LayoutBase {
  static constexpr const char* kVarNames[] = {"var"};
  static constexpr int kScalarIndex[] = {1};
  static constexpr const char* kScalarNames[] = {"alpha"};
  static constexpr int kGrad = 2;
  static constexpr const char* kGradName = "delta";
};
template <>
struct Layout<Momentum> : LayoutBase {
  static constexpr const char* kVarNames[] = {"var", "accum"};
  static constexpr int kScalarIndex[] = {2, 4};
  static constexpr const char* kScalarNames[] = {"lr", "momentum"};
  static constexpr int kGrad = 3;
  static constexpr const char* kGradName = "grad";
};
template <>
struct Layout<KerasMomentum> : Layout<Momentum> {};
template <>
struct Layout<Adagrad> : LayoutBase {
  static constexpr const char* kVarNames[] = {"var", "accum"};
  static constexpr int kScalarIndex[] = {2};
  static constexpr const char* kScalarNames[] = {"lr"};
  static constexpr int kGrad = 3;
  static constexpr const char* kGradName = "grad";
};
template <>
struct Layout<AdagradV2> : LayoutBase {
  static constexpr const char* kVarNames[] = {"var", "accum"};
  static constexpr int kScalarIndex[] = {2, 3};
  static constexpr const char* kScalarNames[] = {"lr", "epsilon"};
  static constexpr int kGrad = 4;
  static constexpr const char* kGradName = "grad";
};
template <>
struct Layout<RMSProp> : LayoutBase {
  static constexpr const char* kVarNames[] = {"var", "ms", "mom"};
  static constexpr int kScalarIndex[] = {3, 4, 5, 6};
  static constexpr const char* kScalarNames[] = {"lr", "rho", "momentum", "epsilon"};
  static constexpr int kGrad = 7;
  static constexpr const char* kGradName = "grad";
};
template <>
struct Layout<CenteredRMSProp> : LayoutBase {
  static constexpr const char* kVarNames[] = {"var", "mg", "ms", "mom"};
  static constexpr int kScalarIndex[] = {4, 5, 6, 7};
  static constexpr const char* kScalarNames[] = {"lr", "rho", "momentum", "epsilon"};
  static constexpr int kGrad = 8;
  static constexpr const char* kGradName = "grad";
};
template <>
struct Layout<Adam> : LayoutBase {
  static constexpr const char* kVarNames[] = {"var", "m", "v"};
  static constexpr int kScalarIndex[] = {3, 4, 5, 6, 7, 8};
  static constexpr const char* kScalarNames[] = {"beta1_power", "beta2_power", "lr",
                                                 "beta1",       "beta2",       "epsilon"};
  static constexpr int kGrad = 9;
  static constexpr const char* kGradName = "grad";
};
template <>
struct Layout<AdamWithAmsgrad> : LayoutBase {
  static constexpr const char* kVarNames[] = {"var", "m", "v", "vhat"};
  static constexpr int kScalarIndex[] = {4, 5, 6, 7, 8, 9};
  static constexpr const char* kScalarNames[] = {"beta1_power", "beta2_power", "lr",
                                                 "beta1",       "beta2",       "epsilon"};
  static constexpr int kGrad = 10;
  static constexpr const char* kGradName = "grad";
};
template <>
struct Layout<AdaMax> : LayoutBase {
  static constexpr const char* kVarNames[] = {"var", "m", "v"};
  static constexpr int kScalarIndex[] = {3, 4, 5, 6, 7};
  static constexpr const char* kScalarNames[] = {"beta1_power", "lr", "beta1", "beta2",
                                                 "epsilon"};
  static constexpr int kGrad = 8;
  static constexpr const char* kGradName = "grad";
};
template <>
struct Layout<Adadelta> : LayoutBase {
  static constexpr const char* kVarNames[] = {"var", "accum", "accum_update"};
  static constexpr int kScalarIndex[] = {3, 4, 5};
  static constexpr const char* kScalarNames[] = {"lr", "rho", "epsilon"};
  static constexpr int kGrad = 6;
  static constexpr const char* kGradName = "grad";
};
template <>
struct Layout<ProximalAdagrad> : LayoutBase {
  static constexpr const char* kVarNames[] = {"var", "accum"};
  static constexpr int kScalarIndex[] = {2, 3, 4};
  static constexpr const char* kScalarNames[] = {"lr", "l1 regularization strength",
                                                 "l2 regularization strength"};
  static constexpr Check kScalarChecks[6] = {Check::kPositive, Check::kNonNegative,
                                             Check::kNonNegative};
  static constexpr int kGrad = 5;
  static constexpr const char* kGradName = "grad";
};
template <>
struct Layout<ProximalGradientDescent> : LayoutBase {
  static constexpr const char* kVarNames[] = {"var"};
  static constexpr int kScalarIndex[] = {1, 2, 3};
  static constexpr const char* kScalarNames[] = {"alpha", "l1 regularization strength",
                                                 "l2 regularization strength"};
  static constexpr int kGrad = 4;
  static constexpr const char* kGradName = "delta";
};
template <>
struct Layout<Ftrl> : LayoutBase {
  static constexpr const char* kVarNames[] = {"var", "accum", "linear"};
  static constexpr int kScalarIndex[] = {4, 5, 6, 7};
  static constexpr const char* kScalarNames[] = {"lr", "l1 regularization strength",
                                                 "l2 regularization strength", "lr_power"};
  static constexpr int kGrad = 3;
  static constexpr const char* kGradName = "grad";
};
template <>
struct Layout<FtrlV2> : LayoutBase {
  static constexpr const char* kVarNames[] = {"var", "accum", "linear"};
  static constexpr int kScalarIndex[] = {4, 5, 6, 7, 8};
  static constexpr const char* kScalarNames[] = {
      "lr", "l1 regularization strength", "l2 regularization strength",
      "l2 shrinkage regularization strength", "lr_power"};
  static constexpr int kGrad = 3;
  static constexpr const char* kGradName = "grad";
};
template <>
struct Layout<AddSign> : LayoutBase {
  static constexpr const char* kVarNames[] = {"var", "m"};
  static constexpr int kScalarIndex[] = {2, 3, 4, 5};
  static constexpr const char* kScalarNames[] = {"lr", "alpha", "sign_decay", "beta"};
  static constexpr int kGrad = 6;
  static constexpr const char* kGradName = "grad";
};
template <>
struct Layout<PowerSign> : LayoutBase {
  static constexpr const char* kVarNames[] = {"var", "m"};
  static constexpr int kScalarIndex[] = {2, 3, 4, 5};
  static constexpr const char* kScalarNames[] = {"lr", "logbase", "sign_decay", "beta"};
  static constexpr int kGrad = 6;
  static constexpr const char* kGradName = "grad";
};

// The sparse forms (ResourceSparseApply*): the same algorithm on the rows `indices` names.
template <typename Algo>
struct Sparse {};
template <>
struct Layout<Sparse<Adagrad>> : Layout<Adagrad> {
  static constexpr int kIndices = 4;
};
template <>
struct Layout<Sparse<AdagradV2>> : Layout<AdagradV2> {
  static constexpr int kIndices = 5;
};
template <>
struct Layout<Sparse<Momentum>> : Layout<Momentum> {
  static constexpr int kScalarIndex[] = {2, 5};
  static constexpr int kIndices = 4;
};
template <>
struct Layout<Sparse<KerasMomentum>> : Layout<Sparse<Momentum>> {
  static constexpr bool kBracketedIndexMessage = true;
};
template <>
struct Layout<Sparse<RMSProp>> : Layout<RMSProp> {
  static constexpr int kIndices = 8;
};
template <>
struct Layout<Sparse<Adadelta>> : Layout<Adadelta> {
  static constexpr int kIndices = 7;
};
template <>
struct Layout<Sparse<CenteredRMSProp>> : Layout<CenteredRMSProp> {
  static constexpr int kIndices = 9;
};
template <>
struct Layout<Sparse<ProximalAdagrad>> : Layout<ProximalAdagrad> {
  static constexpr int kIndices = 6;
};
// TensorFlow's sparse kernel calls alpha "lr" in its message, and its gradient "grad".
template <>
struct Layout<Sparse<ProximalGradientDescent>> : Layout<ProximalGradientDescent> {
  static constexpr const char* kScalarNames[] = {"lr", "l1 regularization strength",
                                                 "l2 regularization strength"};
  static constexpr const char* kGradName = "grad";
  static constexpr int kIndices = 5;
};
// TensorFlow's sparse FTRL kernels check the values (and say so in the shape message).
template <>
struct Layout<Sparse<Ftrl>> : Layout<Ftrl> {
  static constexpr int kScalarIndex[] = {5, 6, 7, 8};
  static constexpr Check kScalarChecks[6] = {Check::kPositiveOrZeroIfFlag, Check::kNonNegative,
                                             Check::kNonNegative, Check::kNonPositive};
  static constexpr int kIndices = 4;
};
template <>
struct Layout<Sparse<FtrlV2>> : Layout<FtrlV2> {
  static constexpr int kScalarIndex[] = {5, 6, 7, 8, 9};
  static constexpr Check kScalarChecks[6] = {Check::kPositiveOrZeroIfFlag, Check::kNonNegative,
                                             Check::kNonNegative, Check::kNonNegative,
                                             Check::kNonPositive};
  static constexpr int kIndices = 4;
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
inline constexpr char kMultiplyLinearByLr[] = "multiply_linear_by_lr";

// What the update callback needs from the kernel's compute call.
template <typename T>
struct StepArgs {
  TF_OpKernelContext* ctx;
  const T* scalars[6];
  const TF_Tensor* grad;
  bool flag;  // use_nesterov, update_slots, multiply_linear_by_lr
};

// TensorFlow's message for scalar operand k of layout L that is not a scalar, or (with a
// value check) not a scalar of the value its kernel requires.
template <typename L>
std::string ScalarMessage(int k, const std::vector<int64_t>& dims) {
  static constexpr const char* kWords[] = {
      "", "positive ", "non-negative ", "non-positive ",
      "positive scalar (or zero if multiply_linear_by_lr is set)"};
  const int c = static_cast<int>(L::kScalarChecks[k]);
  std::string m = std::string(L::kScalarNames[k]) + " is not a ";
  m += L::kScalarChecks[k] == Check::kPositiveOrZeroIfFlag ? std::string(kWords[c])
                                                           : std::string(kWords[c]) + "scalar";
  return m + ": " + ShapeString(dims);
}

template <typename V>
bool PassesCheck(Check check, V value, bool flag) {
  switch (check) {
    case Check::kAny: return true;
    case Check::kPositive: return value > V(0);
    case Check::kNonNegative: return value >= V(0);
    case Check::kNonPositive: return value <= V(0);
    case Check::kPositiveOrZeroIfFlag: return value > V(0) || (flag && value >= V(0));
  }
  return true;
}

// Reads layout L's scalar operands into args.scalars, with TensorFlow's shape checks and,
// where the scalars are in host memory (Dev::kHostScalars), its value checks; false
// (the kernel failed) on bad input.
template <typename Dev, typename L, int kScalars, typename T>
bool ReadScalars(TF_OpKernelContext* ctx, StepArgs<T>* args) {
  for (int k = 0; k < kScalars; ++k) {
    const TF_Tensor* s = BorrowInput(ctx, L::kScalarIndex[k]);
    if (s == nullptr) return false;
    bool ok = TF_NumDims(s) == 0;
    if constexpr (Dev::kHostScalars) {
      const auto* value = static_cast<const T*>(TF_TensorData(s));
      if (ok) ok = PassesCheck(L::kScalarChecks[k], Dev::HostValue(value), args->flag);
    }
    if (!ok) {
      Fail(ctx, TF_INVALID_ARGUMENT, ScalarMessage<L>(k, Dims(s)));
      return false;
    }
    args->scalars[k] = static_cast<const T*>(TF_TensorData(s));
  }
  return true;
}

// TensorFlow's message when variables k and 0 differ in shape, or "" when they agree.
template <typename L, int kVars>
std::string SlotShapeMismatch(const TF_Tensor* const* values) {
  const std::vector<int64_t> var_dims = Dims(values[0]);
  for (int k = 1; k < kVars; ++k) {
    const std::vector<int64_t> slot = Dims(values[k]);
    if (slot != var_dims) {
      return std::string("var and ") + L::kVarNames[k] + " do not have the same shape" +
             ShapeString(var_dims) + " " + ShapeString(slot);
    }
  }
  return "";
}

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
    const std::string mismatch = SlotShapeMismatch<L, Algo::kVars>(old_values);
    if (!mismatch.empty()) {
      TF_SetStatus(status, TF_INVALID_ARGUMENT, mismatch.c_str());
      return;
    }
    const std::vector<int64_t> var_dims = Dims(old_values[0]);
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
    if (!ReadScalars<Dev, L, Algo::kScalars>(ctx, &args)) return;
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
