// CPU kernels of the element-wise everyday string ops (../../ops/string_everyday_ops.cc):
// StringLength, StringToNumber, StringToHashBucket (TensorFlow's legacy Hash64) and web-safe
// base64. Host only: string tensors are host data, as in TensorFlow.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "../../src/string_tensor.h"
#include "kernel_util.h"
#include "string_numbers.h"
#include "string_outputs.h"

namespace opgen {
namespace cpu {
namespace {

using strings::ConstructionOk;

// ---- StringLength -------------------------------------------------------------------

void* CreateLengthUnit(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  const std::string unit = kernels::StringAttr(ctx, "unit", s.get());
  if (!ConstructionOk(ctx, s.get())) return nullptr;
  return new bool(unit == "UTF8_CHAR");
}

void DeleteLengthUnit(void* a) { delete static_cast<bool*>(a); }

void LengthCompute(void* attrs, TF_OpKernelContext* ctx) {
  const bool chars = *static_cast<bool*>(attrs);
  const TF_Tensor* in = BorrowInput(ctx, 0);
  if (in == nullptr) return;
  TensorPtr out = AllocateOutput<int32_t>(ctx, 0, Dims(in));
  if (!out) return;
  const TF_TString* s = StringElements(in);
  int32_t* o = Data<int32_t>(out);
  const int64_t n = TF_TensorElementCount(in);
  for (int64_t k = 0; k < n; ++k) {
    const std::string_view v = StringElement(&s[k]);
    int64_t length = static_cast<int64_t>(v.size());
    if (chars) {  // every byte that does not continue a UTF-8 sequence starts a character
      length = 0;
      for (char c : v) length += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }
    o[k] = static_cast<int32_t>(length);
  }
}

// ---- StringToNumber -----------------------------------------------------------------

template <typename T>
void ToNumber(TF_OpKernelContext* ctx, const TF_Tensor* in) {
  TensorPtr out = AllocateOutput<T>(ctx, 0, Dims(in));
  if (!out) return;
  const TF_TString* s = StringElements(in);
  T* o = Data<T>(out);
  const int64_t n = TF_TensorElementCount(in);
  for (int64_t k = 0; k < n; ++k) {
    const std::string_view v = StringElement(&s[k]);
    bool ok;
    if constexpr (std::is_floating_point<T>::value) ok = numbers::ParseFloat(v, &o[k]);
    else ok = numbers::ParseInteger(v, &o[k]);
    if (!ok)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "StringToNumberOp could not correctly convert string: " + std::string(v));
  }
}

void* CreateOutType(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  TF_DataType type = TF_FLOAT;
  TF_OpKernelConstruction_GetAttrType(ctx, "out_type", &type, s.get());
  if (!ConstructionOk(ctx, s.get())) return nullptr;
  return new TF_DataType(type);
}

void DeleteOutType(void* a) { delete static_cast<TF_DataType*>(a); }

void ToNumberCompute(void* attrs, TF_OpKernelContext* ctx) {
  const TF_Tensor* in = BorrowInput(ctx, 0);
  if (in == nullptr) return;
  switch (*static_cast<TF_DataType*>(attrs)) {
    case TF_FLOAT: return ToNumber<float>(ctx, in);
    case TF_DOUBLE: return ToNumber<double>(ctx, in);
    case TF_INT32: return ToNumber<int32_t>(ctx, in);
    case TF_INT64: return ToNumber<int64_t>(ctx, in);
    case TF_UINT32: return ToNumber<uint32_t>(ctx, in);
    case TF_UINT64: return ToNumber<uint64_t>(ctx, in);
    default: return Fail(ctx, TF_INVALID_ARGUMENT, "StringToNumber: unsupported out_type");
  }
}

// ---- StringToHashBucket: TensorFlow's legacy Hash64 -----------------------------------

// MurmurHash64A (little-endian words, the tail's bytes highest first) with TensorFlow's seed.
uint64_t LegacyHash64(std::string_view v) {
  constexpr uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  constexpr int kShift = 47;
  const unsigned char* p = reinterpret_cast<const unsigned char*>(v.data());
  size_t n = v.size();
  uint64_t h = 0xDECAFCAFFEULL ^ (static_cast<uint64_t>(n) * kMul);
  while (n >= 8) {
    uint64_t k = 0;
    for (int b = 7; b >= 0; --b) k = (k << 8) | p[b];
    p += 8;
    n -= 8;
    k *= kMul;
    k ^= k >> kShift;
    k *= kMul;
    h ^= k;
    h *= kMul;
  }
  if (n > 0) {
    for (size_t b = n; b-- > 0;) h ^= static_cast<uint64_t>(p[b]) << (8 * b);
    h *= kMul;
  }
  h ^= h >> kShift;
  h *= kMul;
  h ^= h >> kShift;
  return h;
}

void* CreateBuckets(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  int64_t buckets = 0;
  TF_OpKernelConstruction_GetAttrInt64(ctx, "num_buckets", &buckets, s.get());
  if (TF_GetCode(s.get()) == TF_OK && buckets < 1)
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, "num_buckets must be at least 1");
  if (!ConstructionOk(ctx, s.get())) return nullptr;
  return new uint64_t(static_cast<uint64_t>(buckets));
}

void DeleteBuckets(void* a) { delete static_cast<uint64_t*>(a); }

void HashBucketCompute(void* attrs, TF_OpKernelContext* ctx) {
  const uint64_t buckets = *static_cast<uint64_t*>(attrs);
  const TF_Tensor* in = BorrowInput(ctx, 0);
  if (in == nullptr) return;
  TensorPtr out = AllocateOutput<int64_t>(ctx, 0, Dims(in));
  if (!out) return;
  const TF_TString* s = StringElements(in);
  int64_t* o = Data<int64_t>(out);
  const int64_t n = TF_TensorElementCount(in);
  for (int64_t k = 0; k < n; ++k)
    o[k] = static_cast<int64_t>(LegacyHash64(StringElement(&s[k])) % buckets);
}

// ---- EncodeBase64 / DecodeBase64: the web-safe alphabet ------------------------------

constexpr char kAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int DecodeChar(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

void* CreatePad(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  const bool pad = kernels::BoolAttr(ctx, "pad", s.get());
  if (!ConstructionOk(ctx, s.get())) return nullptr;
  return new bool(pad);
}

void DeletePad(void* a) { delete static_cast<bool*>(a); }

void EncodeCompute(void* attrs, TF_OpKernelContext* ctx) {
  const bool pad = *static_cast<bool*>(attrs);
  strings::MapStrings(ctx, [&](std::string_view v, std::string* out) {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(v.data());
    size_t k = 0;
    for (; k + 3 <= v.size(); k += 3) {
      const uint32_t w = (p[k] << 16) | (p[k + 1] << 8) | p[k + 2];
      for (int shift = 18; shift >= 0; shift -= 6) out->push_back(kAlphabet[(w >> shift) & 63]);
    }
    const size_t rest = v.size() - k;
    if (rest > 0) {
      const uint32_t w = (p[k] << 16) | (rest == 2 ? p[k + 1] << 8 : 0);
      out->push_back(kAlphabet[(w >> 18) & 63]);
      out->push_back(kAlphabet[(w >> 12) & 63]);
      if (rest == 2) out->push_back(kAlphabet[(w >> 6) & 63]);
      if (pad) out->append(3 - rest, '=');
    }
    return true;
  });
}

// Appends the 3 bytes of 4 characters (`count` of them given, the rest read as 'A') to
// `out`, `count - 1` of them; false on a character outside the alphabet.
bool DecodeGroup(std::string_view chars, size_t count, std::string* out) {
  uint32_t w = 0;
  for (size_t j = 0; j < 4; ++j) {
    const int d = j < count ? DecodeChar(chars[j]) : 0;
    if (d < 0) return false;
    w = (w << 6) | static_cast<uint32_t>(d);
  }
  for (size_t j = 0; j + 1 < count; ++j) out->push_back(static_cast<char>(w >> (16 - 8 * j)));
  return true;
}

// As TensorFlow decodes, in its order of checks: every group of 4 before the last, then
// '=' padding, allowed in the last group of 4 only, then the last group's length (1 is
// refused); the unused low bits of a partial last group are ignored.
bool Decode(std::string_view v, std::string* out, std::string* error) {
  size_t p = 0;
  for (; v.size() - p > 4; p += 4)
    if (!DecodeGroup(v.substr(p, 4), 4, out)) {
      *error = "Invalid character found in base64.";
      return false;
    }
  std::string_view last = v.substr(p);
  if (last.size() == 4 && last[3] == '=') last.remove_suffix(last[2] == '=' ? 2 : 1);
  if (last.size() == 1) {
    *error = "Base64 string length cannot be 1 modulo 4.";
    return false;
  }
  if (!last.empty() && !DecodeGroup(last, last.size(), out)) {
    *error = "Invalid character found in base64.";
    return false;
  }
  return true;
}

void DecodeCompute(void*, TF_OpKernelContext* ctx) {
  strings::MapStrings(ctx, [&](std::string_view v, std::string* out) {
    std::string error;
    if (Decode(v, out, &error)) return true;
    Fail(ctx, TF_INVALID_ARGUMENT, error);
    return false;
  });
}

}  // namespace

void RegisterStringConvertKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"StringLength", {}, {}, LengthCompute, CreateLengthUnit,
                           DeleteLengthUnit}, status);
  RegisterKernel(kDevice, {"StringToNumber", {}, {}, ToNumberCompute, CreateOutType,
                           DeleteOutType}, status);
  RegisterKernel(kDevice, {"StringToHashBucket", {}, {}, HashBucketCompute, CreateBuckets,
                           DeleteBuckets}, status);
  RegisterKernel(kDevice, {"EncodeBase64", {}, {}, EncodeCompute, CreatePad, DeletePad}, status);
  RegisterKernel(kDevice, {"DecodeBase64", {}, {}, DecodeCompute}, status);
}

}  // namespace cpu
}  // namespace opgen
