// What the linear-algebra kernels (linalg.cc, linalg_decompositions.cc) share: each
// matrix is worked on in double (or complex double) whatever the tensor's type and
// rounded once to T, and a batch of matrices runs over the runtime's pool.
#pragma once

#include <algorithm>
#include <complex>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace linalg {

template <typename T> struct WideOf { using type = double; };
template <typename R> struct WideOf<std::complex<R>> { using type = std::complex<double>; };
template <typename T> using Wide = typename WideOf<T>::type;
template <typename T> constexpr bool kIsComplex = !std::is_same_v<Wide<T>, double>;

template <typename T>
Wide<T> ToWide(T x) {
  if constexpr (kIsComplex<T>) return {static_cast<double>(x.real()), static_cast<double>(x.imag())};
  else if constexpr (kIsFloat16<T>) return static_cast<double>(static_cast<float>(x));
  else return static_cast<double>(x);
}

template <typename T>
T FromWide(Wide<T> x) {
  using R = typename std::conditional_t<kIsComplex<T>, T, std::complex<float>>::value_type;
  if constexpr (kIsComplex<T>) return T(static_cast<R>(x.real()), static_cast<R>(x.imag()));
  else if constexpr (kIsFloat16<T>) return T(static_cast<float>(x));
  else return static_cast<T>(x);
}

template <typename T>
std::vector<Wide<T>> LoadMatrix(const T* p, int64_t count) {
  std::vector<Wide<T>> m(count);
  for (int64_t i = 0; i < count; ++i) m[i] = ToWide(p[i]);
  return m;
}

// Runs fn(matrix index) over the batch; the first failure message, if any, is kept and
// reported as InvalidArgument.
template <typename Fn>
void ForEachMatrix(TF_OpKernelContext* ctx, int64_t batch, int64_t cost, Fn fn) {
  std::mutex mu;
  std::string failure;
  ParallelFor(batch, [&](int64_t begin, int64_t end) {
    for (int64_t m = begin; m < end; ++m) {
      std::string why = fn(m);
      if (why.empty()) continue;
      std::lock_guard<std::mutex> lock(mu);
      if (failure.empty()) failure = std::move(why);
    }
  }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(cost, 1)));
  if (!failure.empty()) Fail(ctx, TF_INVALID_ARGUMENT, failure);
}

}  // namespace linalg
}  // namespace cpu
}  // namespace opgen
