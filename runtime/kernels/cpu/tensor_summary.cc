// Tensor summaries (tensor_summary.h). Numbers print as TensorFlow's StrCat does: floats
// with the fewest of 6 or 9 significant digits (15 or 17 for doubles) that read back
// exactly, 16-bit floats through float, bools as 1/0; complex values as "?".
#include "tensor_summary.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "../../src/string_tensor.h"
#include "dtypes.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

template <typename F>
bool IsSubnormal(F v) {
  if constexpr (std::is_same_v<F, double>) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return (bits & 0x7ff0000000000000ull) == 0 && (bits & 0x000fffffffffffffull) != 0;
  } else {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return (bits & 0x7f800000u) == 0 && (bits & 0x007fffffu) != 0;
  }
}

template <typename F>
std::string FloatText(F v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  // TensorFlow's kernels run with subnormals flushed to zero: they print as (signed) 0.
  // Read from the bits: under denormals-are-zero a comparison would call them zero.
  if (IsSubnormal(v)) v = std::signbit(v) ? F(-0.0) : F(0.0);
  constexpr bool kDouble = std::is_same_v<F, double>;
  char buf[40];
  for (int digits : {kDouble ? 15 : 6, kDouble ? 17 : 9}) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(v));
    const F back = kDouble ? static_cast<F>(std::strtod(buf, nullptr))
                           : static_cast<F>(std::strtof(buf, nullptr));
    if (back == v) break;
  }
  return buf;
}

// Element `i` of `t` as text.
std::string ElementText(const TF_Tensor* t, int64_t i, bool v2) {
  const void* data = TF_TensorData(t);
  switch (TF_TensorType(t)) {
    case TF_FLOAT: return FloatText(static_cast<const float*>(data)[i]);
    case TF_DOUBLE: return FloatText(static_cast<const double*>(data)[i]);
    case TF_HALF: return FloatText(static_cast<float>(static_cast<const Half*>(data)[i]));
    case TF_BFLOAT16: return FloatText(static_cast<float>(static_cast<const BFloat16*>(data)[i]));
    case TF_INT8: return std::to_string(static_cast<const int8_t*>(data)[i]);
    case TF_INT16: return std::to_string(static_cast<const int16_t*>(data)[i]);
    case TF_INT32: return std::to_string(static_cast<const int32_t*>(data)[i]);
    case TF_INT64: return std::to_string(static_cast<const int64_t*>(data)[i]);
    case TF_UINT8: return std::to_string(static_cast<const uint8_t*>(data)[i]);
    case TF_UINT16: return std::to_string(static_cast<const uint16_t*>(data)[i]);
    case TF_UINT32: return std::to_string(static_cast<const uint32_t*>(data)[i]);
    case TF_UINT64: return std::to_string(static_cast<const uint64_t*>(data)[i]);
    case TF_BOOL: return static_cast<const bool*>(data)[i] ? "1" : "0";
    case TF_STRING: {
      const std::string escaped = EscapeBytes(StringElement(&StringElements(t)[i]));
      return v2 ? "\"" + escaped + "\"" : escaped;
    }
    default: return "?";
  }
}

// The v1 layout: elements in row-major order up to `limit`, each dimension past the
// first in brackets; "..." where a row was cut short.
void V1Dim(const TF_Tensor* t, const std::vector<int64_t>& dims, size_t d, int64_t limit,
           int64_t* next, std::string* out) {
  if (*next >= limit) return;
  if (d + 1 == dims.size()) {
    for (int64_t i = 0; i < dims[d]; ++i) {
      if (*next >= limit) {
        if (d != 0) *out += "...";
        return;
      }
      if (i > 0) *out += ' ';
      *out += ElementText(t, (*next)++, false);
    }
    return;
  }
  for (int64_t i = 0; i < dims[d]; ++i) {
    const bool opened = *next < limit;
    if (opened) *out += '[';
    V1Dim(t, dims, d + 1, limit, next, out);
    if (opened || *next < limit) *out += ']';
  }
}

// Between two entries of dimension `d`: a space in the last dimension, else a line
// break per dimension below and an indent of d + 1 spaces.
void V2Spacing(size_t d, size_t rank, std::string* out) {
  if (d + 1 == rank) {
    *out += ' ';
    return;
  }
  out->append(rank - d - 1, '\n');
  out->append(d + 1, ' ');
}

// The v2 layout: the first and last `ends` entries of every dimension, "..." between.
void V2Dim(const TF_Tensor* t, const std::vector<int64_t>& dims, size_t d, int64_t ends,
           int64_t offset, std::string* out) {
  if (d == dims.size()) {
    *out += ElementText(t, offset, true);
    return;
  }
  const int64_t count = dims[d];
  int64_t stride = 1;
  for (size_t k = d + 1; k < dims.size(); ++k) stride *= dims[k];
  *out += '[';
  for (int64_t i = 0; i < ends && i < count; ++i) {
    if (i > 0) V2Spacing(d, dims.size(), out);
    V2Dim(t, dims, d + 1, ends, offset + i * stride, out);
  }
  if (count > 2 * ends) {
    V2Spacing(d, dims.size(), out);
    *out += "...";
  }
  for (int64_t i = std::max(ends, count - ends); i < count; ++i) {
    V2Spacing(d, dims.size(), out);
    V2Dim(t, dims, d + 1, ends, offset + i * stride, out);
  }
  *out += ']';
}

}  // namespace

std::string EscapeBytes(std::string_view bytes) {
  std::string out;
  for (const char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '"': out += "\\\""; break;
      case '\'': out += "\\'"; break;
      case '\\': out += "\\\\"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[5];
          std::snprintf(buf, sizeof buf, "\\%03o", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out;
}

std::string SummarizeTensor(const TF_Tensor* t, int64_t summarize, bool v2) {
  const std::vector<int64_t> dims = kernels::Dims(t);
  const int64_t n = TF_TensorElementCount(t);
  const int64_t limit = summarize < 0 ? n : std::min(summarize, n);
  const TF_DataType type = TF_TensorType(t);
  if (type == TF_COMPLEX64 || type == TF_COMPLEX128) {
    // TensorFlow prints no complex values: a flat run of "?".
    std::string out = v2 && !dims.empty() ? "[" : "";
    for (int64_t i = 0; i < limit; ++i) out += i ? " ?" : "?";
    if (limit < n) out += "...";
    return v2 && !dims.empty() ? out + "]" : out;
  }
  if (type == TF_BOOL && limit == 0) return "";
  if (dims.empty()) return limit > 0 ? ElementText(t, 0, v2) : "...";
  std::string out;
  if (v2) {
    V2Dim(t, dims, 0, limit, 0, &out);
    return out;
  }
  int64_t next = 0;
  V1Dim(t, dims, 0, limit, &next, &out);
  if (n > limit) out += "...";
  return out;
}

}  // namespace cpu
}  // namespace opgen
