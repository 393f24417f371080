// What forward.cu, split_onehot.cu and select_v1.cu share: the fixed-size dtypes they
// register for and their elements as opaque words of the element's width. Internal to
// each including file (an unnamed namespace).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda_kernel_util.h"

namespace opgen {
namespace cuda {
namespace {

constexpr TF_DataType kDataTypes[] = {TF_FLOAT, TF_DOUBLE, TF_HALF,   TF_BFLOAT16, TF_INT8,
                                      TF_INT16, TF_INT32,  TF_INT64,  TF_UINT8,    TF_UINT16,
                                      TF_UINT32, TF_UINT64, TF_BOOL, TF_COMPLEX64, TF_COMPLEX128};

struct Word128 { uint64_t lo, hi; };

template <typename Fn>
bool WithWord(size_t width, Fn fn) {
  switch (width) {
    case 1: fn(uint8_t{}); return true;
    case 2: fn(uint16_t{}); return true;
    case 4: fn(uint32_t{}); return true;
    case 8: fn(uint64_t{}); return true;
    case 16: fn(Word128{}); return true;
    default: return false;
  }
}

}  // namespace
}  // namespace cuda
}  // namespace opgen
