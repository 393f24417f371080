// A tensor's values as text, the way TensorFlow's messages show them: Assert's data
// (the v1 layout, "1 2 3..." with the first `summarize` elements) and StringFormat /
// PrintV2 (the v2 layout, "[1 2 3 ... 8 9 10]" with `summarize` elements at each end of
// every dimension, rows on their own lines). Host tensors only.
#pragma once

#include <cstdint>
#include <string>

#include "tensorflow/c/tf_tensor.h"

namespace opgen {
namespace cpu {

// `summarize` < 0 shows every element.
std::string SummarizeTensor(const TF_Tensor* t, int64_t summarize, bool v2);

// C-style escapes of control characters, quotes and backslashes (bytes >= 0x80 kept, so
// UTF-8 stays readable), as TensorFlow escapes strings in summaries.
std::string EscapeBytes(std::string_view bytes);

}  // namespace cpu
}  // namespace opgen
