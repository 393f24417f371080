// AsString: each element formatted with a printf format built once from the attrs,
// "%<fill>*.*<conversion>" with width and precision passed as arguments (-1 precision is
// printf's default), which is what TensorFlow formats with. Host only: string outputs
// are host data.
#include <complex>
#include <cstdio>
#include <string>

#include "../../src/string_tensor.h"
#include "kernel_util.h"
#include "preprocessing_kernels.h"

namespace opgen {
namespace cpu {
namespace {

struct AsStringAttrs {
  std::string format;  // empty: a string input passes through unchanged
  int width, precision;
};

bool IsFloating(TF_DataType t) {
  return t == TF_FLOAT || t == TF_DOUBLE || t == TF_HALF || t == TF_BFLOAT16 ||
         t == TF_COMPLEX64 || t == TF_COMPLEX128;
}
bool IsUnsigned(TF_DataType t) {
  return t == TF_UINT8 || t == TF_UINT16 || t == TF_UINT32 || t == TF_UINT64;
}

// The attrs checked as TensorFlow checks them; the message, or "" when they are valid.
std::string Validate(TF_DataType t, int64_t precision, bool scientific, bool shortest,
                     const std::string& fill) {
  const std::string type = kernels::DTypeName(t);
  if (!IsFloating(t)) {
    if (scientific || shortest)
      return "scientific and shortest format not supported for datatype " + type;
    if (precision >= 0) return "precision not supported for datatype " + type;
  }
  if (fill.size() > 1) return "Fill string must be one or fewer characters";
  if (scientific && shortest) return "Cannot select both scientific and shortest notation";
  if (!fill.empty() && std::string(" +-0#").find(fill[0]) == std::string::npos)
    return "Fill argument not supported: \"" + fill + "\"";
  if (t == TF_VARIANT) return "AsString of variant tensors is not supported by opgen";
  return "";
}

void* CreateAsString(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  TF_DataType t = TF_FLOAT;
  int64_t precision = -1, width = -1;
  TF_Bool scientific = 0, shortest = 0;
  TF_OpKernelConstruction_GetAttrType(ctx, "T", &t, s.get());
  if (TF_GetCode(s.get()) == TF_OK)
    TF_OpKernelConstruction_GetAttrInt64(ctx, "precision", &precision, s.get());
  if (TF_GetCode(s.get()) == TF_OK)
    TF_OpKernelConstruction_GetAttrInt64(ctx, "width", &width, s.get());
  if (TF_GetCode(s.get()) == TF_OK)
    TF_OpKernelConstruction_GetAttrBool(ctx, "scientific", &scientific, s.get());
  if (TF_GetCode(s.get()) == TF_OK)
    TF_OpKernelConstruction_GetAttrBool(ctx, "shortest", &shortest, s.get());
  std::string fill;
  if (TF_GetCode(s.get()) == TF_OK) fill = kernels::StringAttr(ctx, "fill", s.get());
  if (TF_GetCode(s.get()) == TF_OK) {
    const std::string error = Validate(t, precision, scientific, shortest, fill);
    if (!error.empty()) TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, error.c_str());
    else if (width > (1 << 20) || precision > (1 << 20))
      TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, "AsString: width and precision must be at most 2^20");
  }
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  auto* a = new AsStringAttrs{"%" + fill + "*.*", static_cast<int>(width < 0 ? 0 : width),
                              static_cast<int>(precision)};
  if (t == TF_STRING) a->format = width <= 0 ? "" : a->format + "s";
  else if (IsUnsigned(t)) a->format += "llu";
  else if (IsFloating(t)) a->format += shortest ? "g" : scientific ? "e" : "f";
  else a->format += "lld";
  return a;
}

void DeleteAsString(void* a) { delete static_cast<AsStringAttrs*>(a); }

template <typename V>
std::string Format(const AsStringAttrs& a, V v) {
  const int n = std::snprintf(nullptr, 0, a.format.c_str(), a.width, a.precision, v);
  std::string out(n > 0 ? n : 0, '\0');
  std::snprintf(out.data(), out.size() + 1, a.format.c_str(), a.width, a.precision, v);
  return out;
}

// Element i of `t` formatted.
std::string FormatElement(const AsStringAttrs& a, const TF_Tensor* t, int64_t i) {
  const void* d = TF_TensorData(t);
  switch (TF_TensorType(t)) {
    case TF_INT8: return Format(a, static_cast<long long>(static_cast<const int8_t*>(d)[i]));
    case TF_INT16: return Format(a, static_cast<long long>(static_cast<const int16_t*>(d)[i]));
    case TF_INT32: return Format(a, static_cast<long long>(static_cast<const int32_t*>(d)[i]));
    case TF_INT64: return Format(a, static_cast<long long>(static_cast<const int64_t*>(d)[i]));
    case TF_UINT8: return Format(a, static_cast<unsigned long long>(static_cast<const uint8_t*>(d)[i]));
    case TF_UINT16: return Format(a, static_cast<unsigned long long>(static_cast<const uint16_t*>(d)[i]));
    case TF_UINT32: return Format(a, static_cast<unsigned long long>(static_cast<const uint32_t*>(d)[i]));
    case TF_UINT64: return Format(a, static_cast<unsigned long long>(static_cast<const uint64_t*>(d)[i]));
    case TF_FLOAT: return Format(a, static_cast<double>(static_cast<const float*>(d)[i]));
    case TF_DOUBLE: return Format(a, static_cast<const double*>(d)[i]);
    case TF_HALF: return Format(a, static_cast<double>(static_cast<float>(static_cast<const Half*>(d)[i])));
    case TF_BFLOAT16:
      return Format(a, static_cast<double>(static_cast<float>(static_cast<const BFloat16*>(d)[i])));
    case TF_COMPLEX64: {
      const std::complex<float> c = static_cast<const std::complex<float>*>(d)[i];
      return "(" + Format(a, static_cast<double>(c.real())) + "," +
             Format(a, static_cast<double>(c.imag())) + ")";
    }
    case TF_COMPLEX128: {
      const std::complex<double> c = static_cast<const std::complex<double>*>(d)[i];
      return "(" + Format(a, c.real()) + "," + Format(a, c.imag()) + ")";
    }
    case TF_BOOL: return static_cast<const bool*>(d)[i] ? "true" : "false";
    case TF_STRING: {
      const std::string v(StringElement(&StringElements(t)[i]));
      return a.format.empty() ? v : Format(a, v.c_str());
    }
    default: return "";
  }
}

void AsStringCompute(void* state, TF_OpKernelContext* ctx) {
  const AsStringAttrs& a = *static_cast<AsStringAttrs*>(state);
  TensorPtr in = Input(ctx, 0);
  if (!in) return;
  TensorPtr out(NewStringTensor(Dims(in.get())));
  if (!out) return Fail(ctx, TF_RESOURCE_EXHAUSTED, "AsString: out of memory for the strings");
  TF_TString* o = MutableStringElements(out.get());
  const int64_t n = TF_TensorElementCount(in.get());
  for (int64_t i = 0; i < n; ++i)
    if (!AssignString(&o[i], FormatElement(a, in.get(), i)))
      return Fail(ctx, TF_RESOURCE_EXHAUSTED, "AsString: out of memory for a string");
  StatusPtr s = NewStatus();
  TF_SetOutput(ctx, 0, out.get(), s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelContext_Failure(ctx, s.get());
}

}  // namespace

void RegisterAsStringKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"AsString", {}, {}, AsStringCompute, CreateAsString, DeleteAsString},
                 status);
}

}  // namespace cpu
}  // namespace opgen
