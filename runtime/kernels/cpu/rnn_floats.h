// Float views of the fused RNN kernels' half or float tensors, and a GEMM that takes
// empty sizes: the cells compute in float (a half tensor is widened once and its results
// rounded once), so one float implementation serves both dtypes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "gemm.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {

// A T tensor's values as floats: the tensor's own data for float, a widened copy for half.
template <typename T>
class FloatIn {
 public:
  explicit FloatIn(const TF_Tensor* t) {
    const T* d = static_cast<const T*>(TF_TensorData(t));
    if constexpr (std::is_same_v<T, float>) {
      p_ = d;
    } else {
      copy_.resize(static_cast<size_t>(TF_TensorElementCount(t)));
      for (size_t i = 0; i < copy_.size(); ++i) copy_[i] = Widen(d[i]);
      p_ = copy_.data();
    }
  }
  const float* get() const { return p_; }

 private:
  const float* p_ = nullptr;
  std::vector<float> copy_;
};

// Output `i` written as floats: straight into the tensor for float, into a buffer that
// Finish() rounds into the half tensor.
template <typename T>
class FloatOut {
 public:
  bool Allocate(TF_OpKernelContext* ctx, int i, const std::vector<int64_t>& dims) {
    t_ = AllocateOutput<T>(ctx, i, dims);
    if (!t_) return false;
    const size_t n = static_cast<size_t>(TF_TensorElementCount(t_.get()));
    if constexpr (std::is_same_v<T, float>) {
      p_ = Data<float>(t_);
    } else {
      buf_.assign(n, 0.0f);
      p_ = buf_.data();
    }
    std::fill(p_, p_ + n, 0.0f);
    return true;
  }
  float* get() const { return p_; }
  void Finish() {
    if constexpr (!std::is_same_v<T, float>) {
      T* d = Data<T>(t_);
      for (size_t i = 0; i < buf_.size(); ++i) d[i] = Narrow<T>(buf_[i]);
    }
  }

 private:
  TensorPtr t_;
  float* p_ = nullptr;
  std::vector<float> buf_;
};

// C = op(A) @ op(B) ([m, n]); zeros when k is 0, nothing when C is empty.
inline void RnnGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a,
                    const float* b, float* c) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::fill(c, c + m * n, 0.0f);
    return;
  }
  Gemm(ta, tb, m, n, k, a, b, c);
}

}  // namespace cpu
}  // namespace opgen
