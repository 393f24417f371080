// CPU kernel of DecodeCSV (../../ops/audio_ops.cc): TensorFlow's CSV dialect (RFC 4180
// quotes when use_quote_delim; CR / LF skipped before a field and refused inside an
// unquoted one), its select_cols and na_value rules, and its messages. Numbers parse with
// StringToNumber's grammars (string_numbers.h). Host only, as in TensorFlow.
#include <cstdint>
#include <memory>
#include <type_traits>
#include <string>
#include <string_view>
#include <vector>

#include "../../src/string_tensor.h"
#include "kernel_util.h"
#include "string_numbers.h"
#include "string_outputs.h"

namespace opgen {
namespace cpu {
namespace {

struct CsvAttrs {
  std::vector<TF_DataType> types;
  std::vector<int64_t> select_cols;
  char delim = ',';
  bool quotes = true;
  std::string na_value;
};

void* CreateCsv(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto a = std::make_unique<CsvAttrs>();
  int32_t count = 0, total = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, "OUT_TYPE", &count, &total, s.get());
  if (TF_GetCode(s.get()) == TF_OK && count > 0) {
    a->types.resize(count);
    TF_OpKernelConstruction_GetAttrTypeList(ctx, "OUT_TYPE", a->types.data(), count, s.get());
  }
  std::string delim;
  if (TF_GetCode(s.get()) == TF_OK) delim = kernels::StringAttr(ctx, "field_delim", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->quotes = kernels::BoolAttr(ctx, "use_quote_delim", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->select_cols = kernels::IntListAttr(ctx, "select_cols", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->na_value = kernels::StringAttr(ctx, "na_value", s.get());
  auto refuse = [&](const char* message) {
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, message);
  };
  const std::vector<int64_t>& cols = a->select_cols;
  if (TF_GetCode(s.get()) == TF_OK && !cols.empty() && cols.size() != a->types.size())
    refuse("select_cols should match output size");
  for (size_t i = 1; TF_GetCode(s.get()) == TF_OK && i < cols.size(); ++i)
    if (cols[i - 1] >= cols[i]) refuse("select_cols should be strictly increasing indices");
  if (TF_GetCode(s.get()) == TF_OK && !cols.empty() && cols.front() < 0)
    refuse("select_cols should be non-negative indices");
  if (TF_GetCode(s.get()) == TF_OK && delim.size() != 1)
    refuse("field_delim should be only 1 char");
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  a->delim = delim[0];
  return a.release();
}
void DeleteCsv(void* a) { delete static_cast<CsvAttrs*>(a); }

// Splits one record into the fields select_cols keeps; "" or TensorFlow's message.
std::string SplitRecord(const CsvAttrs& a, std::string_view in, std::vector<std::string>* out) {
  const bool all = a.select_cols.empty();
  const size_t n = in.size();
  size_t pos = 0, selector = 0;
  int64_t parsed = 0;
  if (n == 0) return "";
  while (pos < n) {
    if (in[pos] == '\n' || in[pos] == '\r') {
      ++pos;
      continue;
    }
    const bool keep = all || a.select_cols[selector] == parsed;
    std::string field;
    if (a.quotes && in[pos] == '"') {
      ++pos;
      // Up to a quote followed by the delimiter or the end; "" inside is one quote.
      while (pos + 1 < n && (in[pos] != '"' || in[pos + 1] != a.delim)) {
        if (in[pos] != '"') {
          if (keep) field += in[pos];
          ++pos;
          continue;
        }
        if (in[pos + 1] != '"') return "Quote inside a string has to be escaped by another quote";
        if (keep) field += '"';
        pos += 2;
      }
      if (!(pos < n && in[pos] == '"' && (pos == n - 1 || in[pos + 1] == a.delim)))
        return "Quoted field has to end with quote followed by delim or end";
      pos += 2;
    } else {
      while (pos < n && in[pos] != a.delim) {
        if ((a.quotes && in[pos] == '"') || in[pos] == '\n' || in[pos] == '\r')
          return "Unquoted fields cannot have quotes/CRLFs inside";
        if (keep) field += in[pos];
        ++pos;
      }
      ++pos;
    }
    ++parsed;
    if (keep) {
      out->push_back(std::move(field));
      if (++selector == a.select_cols.size()) return "";
    }
  }
  // A record ending in the delimiter ends in an empty field.
  if ((all || a.select_cols[selector] == parsed) && in[n - 1] == a.delim) out->emplace_back();
  return "";
}

template <typename T>
bool ParseNumber(std::string_view v, T* out) {
  if constexpr (std::is_floating_point<T>::value) return numbers::ParseFloat(v, out);
  else return numbers::ParseInteger(v, out);
}

const char* CsvTypeName(TF_DataType t) {
  switch (t) {
    case TF_FLOAT: return "float";
    case TF_DOUBLE: return "double";
    case TF_INT32: return "int32";
    default: return "int64";
  }
}

template <typename T>
bool SetNumber(TF_OpKernelContext* ctx, const std::string& field, const TF_Tensor* fallback,
               bool missing, int f, int64_t r, TF_DataType type, T* out) {
  if (missing) {
    *out = *Data<T>(fallback);
    return true;
  }
  if (ParseNumber(field, out)) return true;
  Fail(ctx, TF_INVALID_ARGUMENT, "Field " + std::to_string(f) + " in record " +
                                     std::to_string(r) + " is not a valid " + CsvTypeName(type) +
                                     ": " + field);
  return false;
}

void CsvCompute(void* state, TF_OpKernelContext* ctx) {
  const CsvAttrs& a = *static_cast<CsvAttrs*>(state);
  const TF_Tensor* records = BorrowInput(ctx, 0);
  if (records == nullptr) return;
  const int columns = static_cast<int>(a.types.size());
  std::vector<const TF_Tensor*> defaults(columns);
  for (int f = 0; f < columns; ++f) {
    defaults[f] = BorrowInput(ctx, 1 + f);
    if (defaults[f] == nullptr) return;
    if (TF_NumDims(defaults[f]) > 1)
      return Fail(ctx, TF_INVALID_ARGUMENT, "Each record default should be at most rank 1");
    if (TF_TensorElementCount(defaults[f]) >= 2)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "There should only be 1 default per field but field " + std::to_string(f) +
                      " has " + std::to_string(TF_TensorElementCount(defaults[f])));
  }
  const std::vector<int64_t> dims = Dims(records);
  std::vector<TensorPtr> outputs(columns);
  for (int f = 0; f < columns; ++f) {
    outputs[f] = a.types[f] == TF_STRING ? strings::NewStrings(ctx, dims)
                                         : kernels::AllocateOutput(ctx, f, a.types[f], dims);
    if (!outputs[f]) return;
  }
  const TF_TString* s = StringElements(records);
  const int64_t n = TF_TensorElementCount(records);
  std::vector<std::string> fields;
  for (int64_t r = 0; r < n; ++r) {
    fields.clear();
    const std::string error = SplitRecord(a, StringElement(&s[r]), &fields);
    if (!error.empty()) return Fail(ctx, TF_INVALID_ARGUMENT, error);
    if (fields.size() != static_cast<size_t>(columns))
      return Fail(ctx, TF_INVALID_ARGUMENT, "Expect " + std::to_string(columns) +
                                                " fields but have " +
                                                std::to_string(fields.size()) + " in record " +
                                                std::to_string(r));
    for (int f = 0; f < columns; ++f) {
      const bool missing = fields[f].empty() || fields[f] == a.na_value;
      if (missing && TF_TensorElementCount(defaults[f]) != 1)
        return Fail(ctx, TF_INVALID_ARGUMENT, "Field " + std::to_string(f) +
                                                  " is required but missing in record " +
                                                  std::to_string(r) + "!");
      TF_Tensor* o = outputs[f].get();
      bool ok = true;
      switch (a.types[f]) {
        case TF_INT32:
          ok = SetNumber(ctx, fields[f], defaults[f], missing, f, r, TF_INT32, Data<int32_t>(o) + r);
          break;
        case TF_INT64:
          ok = SetNumber(ctx, fields[f], defaults[f], missing, f, r, TF_INT64, Data<int64_t>(o) + r);
          break;
        case TF_FLOAT:
          ok = SetNumber(ctx, fields[f], defaults[f], missing, f, r, TF_FLOAT, Data<float>(o) + r);
          break;
        case TF_DOUBLE:
          ok = SetNumber(ctx, fields[f], defaults[f], missing, f, r, TF_DOUBLE, Data<double>(o) + r);
          break;
        case TF_STRING:
          ok = strings::Put(ctx, &MutableStringElements(o)[r],
                            missing ? StringElement(StringElements(defaults[f]))
                                    : std::string_view(fields[f]));
          break;
        default:
          return Fail(ctx, TF_INVALID_ARGUMENT, "csv: data type " + kernels::DTypeName(a.types[f]) +
                                                    " not supported in field " + std::to_string(f));
      }
      if (!ok) return;
    }
  }
  for (int f = 0; f < columns; ++f)
    if (a.types[f] == TF_STRING && !strings::SetOut(ctx, f, outputs[f])) return;
}

}  // namespace

void RegisterDecodeCsvKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"DecodeCSV", {}, {}, CsvCompute, CreateCsv, DeleteCsv}, status);
}

}  // namespace cpu
}  // namespace opgen
