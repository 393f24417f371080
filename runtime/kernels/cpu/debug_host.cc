// Assert, PrintV2 and StringFormat: host kernels that turn tensors into text
// (tensor_summary.h). Host only, as in TensorFlow: their data is read on the host.
#include <cstdio>
#include <string>
#include <vector>

#include "../../src/string_tensor.h"
#include "kernel_util.h"
#include "tensor_summary.h"

namespace opgen {
namespace cpu {
namespace {

template <typename Attrs>
Attrs* Finish(TF_OpKernelConstruction* ctx, Attrs* attrs, TF_Status* s) {
  if (TF_GetCode(s) == TF_OK) return attrs;
  TF_OpKernelConstruction_Failure(ctx, s);
  delete attrs;
  return nullptr;
}

int64_t IntAttr(TF_OpKernelConstruction* ctx, const char* name, TF_Status* s) {
  int64_t v = 0;
  TF_OpKernelConstruction_GetAttrInt64(ctx, name, &v, s);
  return v;
}

// ---- Assert ----------------------------------------------------------------------------

void* CreateSummarize(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  return Finish(ctx, new int64_t(IntAttr(ctx, "summarize", s.get())), s.get());
}
void DeleteSummarize(void* p) { delete static_cast<int64_t*>(p); }

void AssertCompute(void* attrs, TF_OpKernelContext* ctx) {
  TensorPtr condition = Input(ctx, 0);
  if (!condition) return;
  if (TF_NumDims(condition.get()) != 0)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "In[0] should be a scalar: " + ShapeString(Dims(condition.get())));
  if (*Data<bool>(condition)) return;
  std::string message = "assertion failed: ";
  const int n = TF_NumInputs(ctx);
  for (int i = 1; i < n; ++i) {
    TensorPtr data = Input(ctx, i);
    if (!data) return;
    message += "[" + SummarizeTensor(data.get(), *static_cast<int64_t*>(attrs), false) + "]";
    if (i + 1 < n) message += " ";
  }
  Fail(ctx, TF_INVALID_ARGUMENT, message);
}

// ---- PrintV2 ---------------------------------------------------------------------------

struct PrintAttrs {
  std::string stream, end;
};

void* CreatePrint(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* attrs = new PrintAttrs{kernels::StringAttr(ctx, "output_stream", s.get()),
                               kernels::StringAttr(ctx, "end", s.get())};
  const std::string& stream = attrs->stream;
  const bool known = stream == "stdout" || stream == "stderr" || stream == "log(info)" ||
                     stream == "log(warning)" || stream == "log(error)" ||
                     stream.rfind("file://", 0) == 0;
  if (TF_GetCode(s.get()) == TF_OK && !known)
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                 ("Unknown output stream: " + stream +
                  ", Valid streams are: stdout stderr log(info) log(warning) log(error)").c_str());
  return Finish(ctx, attrs, s.get());
}
void DeletePrint(void* p) { delete static_cast<PrintAttrs*>(p); }

void PrintCompute(void* p, TF_OpKernelContext* ctx) {
  const auto& attrs = *static_cast<PrintAttrs*>(p);
  TensorPtr input = Input(ctx, 0);
  if (!input) return;
  if (TF_NumDims(input.get()) != 0)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Input is expected to be scalar, but got " +
                                              ShapeString(Dims(input.get())));
  const std::string text = std::string(StringElement(StringElements(input.get()))) + attrs.end;
  if (attrs.stream.rfind("file://", 0) == 0) {
    const std::string path = attrs.stream.substr(7);
    FILE* f = std::fopen(path.c_str(), "a");
    if (f == nullptr) return Fail(ctx, TF_NOT_FOUND, "PrintV2: cannot open " + path);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    return;
  }
  // The log streams go to stderr, where TensorFlow's logging writes too.
  FILE* out = attrs.stream == "stdout" ? stdout : stderr;
  std::fwrite(text.data(), 1, text.size(), out);
  std::fflush(out);
}

// ---- StringFormat ----------------------------------------------------------------------

struct FormatAttrs {
  std::vector<std::string> pieces;  // the template's text around the placeholders
  int64_t summarize = 3;
};

void* CreateFormat(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* attrs = new FormatAttrs;
  const std::string text = kernels::StringAttr(ctx, "template", s.get());
  const std::string placeholder = kernels::StringAttr(ctx, "placeholder", s.get());
  attrs->summarize = IntAttr(ctx, "summarize", s.get());
  int32_t num_inputs = 0, total = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, "T", &num_inputs, &total, s.get());
  if (TF_GetCode(s.get()) != TF_OK) return Finish(ctx, attrs, s.get());
  size_t start = 0;
  for (size_t at; !placeholder.empty() && (at = text.find(placeholder, start)) != std::string::npos;
       start = at + placeholder.size())
    attrs->pieces.push_back(text.substr(start, at - start));
  attrs->pieces.push_back(text.substr(start));
  const size_t placeholders = attrs->pieces.size() - 1;
  if (placeholders != static_cast<size_t>(num_inputs))
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                 ("num placeholders in template and num inputs must match: " +
                  std::to_string(placeholders) + " vs. " + std::to_string(num_inputs)).c_str());
  return Finish(ctx, attrs, s.get());
}
void DeleteFormat(void* p) { delete static_cast<FormatAttrs*>(p); }

void FormatCompute(void* p, TF_OpKernelContext* ctx) {
  const auto& attrs = *static_cast<FormatAttrs*>(p);
  std::string text = attrs.pieces[0];
  for (size_t i = 1; i < attrs.pieces.size(); ++i) {
    TensorPtr input = Input(ctx, static_cast<int>(i - 1));
    if (!input) return;
    text += SummarizeTensor(input.get(), attrs.summarize, true) + attrs.pieces[i];
  }
  TensorPtr out(NewStringTensor({}));
  if (!out || !AssignString(MutableStringElements(out.get()), text))
    return Fail(ctx, TF_RESOURCE_EXHAUSTED, "StringFormat: out of memory for the string");
  TF_Status* s = ThreadStatus();
  TF_SetOutput(ctx, 0, out.get(), s);
  if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
}

}  // namespace

void RegisterDebugHostKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"Assert", {}, {}, AssertCompute, CreateSummarize, DeleteSummarize},
                 status);
  RegisterKernel(kDevice, {"PrintV2", {}, {}, PrintCompute, CreatePrint, DeletePrint}, status);
  RegisterKernel(kDevice, {"StringFormat", {}, {}, FormatCompute, CreateFormat, DeleteFormat},
                 status);
}

}  // namespace cpu
}  // namespace opgen
