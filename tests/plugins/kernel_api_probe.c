/* A test plugin that exercises the kernel C API: every attr getter, kernel labels, temp
 * allocation, forwarding, the kernel name and input dtypes. Op OpgenKernelApiProbe adds `i`
 * to its input (subtracts with the "minus" labelled kernel); when `report` is true its
 * compute fails on purpose with a summary of what the kernel read, which the test
 * checks against what it set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opgen/c_api_ext.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/ops.h"

typedef struct {
  float sign;
  int64_t i;
  TF_Bool report;
  char summary[1024];
} Probe;

static void append(Probe* p, const char* text) {
  strncat(p->summary, text, sizeof p->summary - strlen(p->summary) - 1);
}

static void* probe_create_with_sign(TF_OpKernelConstruction* ctx, float sign) {
  Probe* p = (Probe*)calloc(1, sizeof *p);
  p->sign = sign;
  TF_Status* s = TF_NewStatus();
  char buf[256];
  int32_t list_size, total_size;

  TF_StringView name = TF_OpKernelConstruction_GetName(ctx);
  snprintf(buf, sizeof buf, "name=%.*s", (int)name.len, name.data);
  append(p, buf);

  int32_t i32 = 0;
  TF_OpKernelConstruction_GetAttrInt64(ctx, "i", &p->i, s);
  TF_OpKernelConstruction_GetAttrInt32(ctx, "i", &i32, s);
  float f = 0;
  TF_OpKernelConstruction_GetAttrFloat(ctx, "f", &f, s);
  TF_Bool b = 0;
  TF_OpKernelConstruction_GetAttrBool(ctx, "b", &b, s);
  TF_OpKernelConstruction_GetAttrBool(ctx, "report", &p->report, s);
  TF_DataType ty = 0;
  TF_OpKernelConstruction_GetAttrType(ctx, "ty", &ty, s);
  char str[64] = {0};
  TF_OpKernelConstruction_GetAttrSize(ctx, "s", &list_size, &total_size, s);
  TF_OpKernelConstruction_GetAttrString(ctx, "s", str, sizeof str - 1, s);
  snprintf(buf, sizeof buf, " i=%lld i32=%d f=%g b=%d ty=%d s=%s(%d)", (long long)p->i, i32,
           f, b, ty, str, total_size);
  append(p, buf);

  int64_t li[8];
  TF_OpKernelConstruction_GetAttrSize(ctx, "li", &list_size, &total_size, s);
  TF_OpKernelConstruction_GetAttrInt64List(ctx, "li", li, 8, s);
  int32_t li32[8];
  TF_OpKernelConstruction_GetAttrInt32List(ctx, "li", li32, 8, s);
  append(p, " li=");
  for (int k = 0; k < list_size && k < 8; ++k) {
    snprintf(buf, sizeof buf, "%lld/%d,", (long long)li[k], li32[k]);
    append(p, buf);
  }
  float lf[8];
  TF_OpKernelConstruction_GetAttrSize(ctx, "lf", &list_size, &total_size, s);
  TF_OpKernelConstruction_GetAttrFloatList(ctx, "lf", lf, 8, s);
  append(p, " lf=");
  for (int k = 0; k < list_size && k < 8; ++k) {
    snprintf(buf, sizeof buf, "%g,", lf[k]);
    append(p, buf);
  }
  TF_Bool lb[8];
  TF_OpKernelConstruction_GetAttrSize(ctx, "lb", &list_size, &total_size, s);
  TF_OpKernelConstruction_GetAttrBoolList(ctx, "lb", lb, 8, s);
  append(p, " lb=");
  for (int k = 0; k < list_size && k < 8; ++k) {
    snprintf(buf, sizeof buf, "%d,", lb[k]);
    append(p, buf);
  }
  TF_DataType lt[8];
  TF_OpKernelConstruction_GetAttrSize(ctx, "lt", &list_size, &total_size, s);
  TF_OpKernelConstruction_GetAttrTypeList(ctx, "lt", lt, 8, s);
  append(p, " lt=");
  for (int k = 0; k < list_size && k < 8; ++k) {
    snprintf(buf, sizeof buf, "%d,", lt[k]);
    append(p, buf);
  }
  char* ls[8];
  size_t lengths[8];
  char storage[64];
  TF_OpKernelConstruction_GetAttrSize(ctx, "ls", &list_size, &total_size, s);
  TF_OpKernelConstruction_GetAttrStringList(ctx, "ls", ls, lengths, 8, storage, sizeof storage, s);
  snprintf(buf, sizeof buf, " ls(%d)=", total_size);
  append(p, buf);
  for (int k = 0; k < list_size && k < 8; ++k) {
    snprintf(buf, sizeof buf, "%.*s,", (int)lengths[k], ls[k]);
    append(p, buf);
  }
  /* too little storage is an error, not an overflow */
  TF_Status* small = TF_NewStatus();
  TF_OpKernelConstruction_GetAttrStringList(ctx, "ls", ls, lengths, 8, storage, 1, small);
  snprintf(buf, sizeof buf, " small_storage_code=%d", TF_GetCode(small));
  append(p, buf);
  TF_DeleteStatus(small);

  TF_Tensor* t = NULL;
  TF_OpKernelConstruction_GetAttrTensor(ctx, "t", &t, s);
  if (t != NULL) {
    const float* v = (const float*)TF_TensorData(t);
    snprintf(buf, sizeof buf, " t=%g,%g", v[0], v[1]);
    append(p, buf);
    TF_DeleteTensor(t);
  }
  TF_Tensor* tl[4] = {NULL, NULL, NULL, NULL};
  TF_OpKernelConstruction_GetAttrSize(ctx, "tl", &list_size, &total_size, s);
  TF_OpKernelConstruction_GetAttrTensorList(ctx, "tl", tl, 4, s);
  append(p, " tl=");
  for (int k = 0; k < list_size && k < 4; ++k) {
    snprintf(buf, sizeof buf, "%lld,", (long long)TF_TensorElementCount(tl[k]));
    append(p, buf);
    TF_DeleteTensor(tl[k]);
  }
  snprintf(buf, sizeof buf, " has_i=%d has_zz=%d", TF_OpKernelConstruction_HasAttr(ctx, "i", s),
           TF_OpKernelConstruction_HasAttr(ctx, "zz", s));
  append(p, buf);
  /* a getter of the wrong kind fails and leaves the value alone */
  float untouched = 42;
  TF_OpKernelConstruction_GetAttrFloat(ctx, "i", &untouched, s);
  snprintf(buf, sizeof buf, " wrong_kind_code=%d untouched=%g", TF_GetCode(s), untouched);
  append(p, buf);
  /* a func getter on an int attr, and on no attr: NULL and INVALID_ARGUMENT */
  TF_Buffer* func = TF_OpKernelConstruction_GetAttrFunction(ctx, "i", s);
  snprintf(buf, sizeof buf, " func_of_int=%d/%d", func == NULL, TF_GetCode(s));
  append(p, buf);
  func = TF_OpKernelConstruction_GetAttrFunction(ctx, "zz", s);
  snprintf(buf, sizeof buf, " func_of_none=%d/%d", func == NULL, TF_GetCode(s));
  append(p, buf);
  /* any attr as a serialized AttrValue (i: field 3, varint); none: NULL and INVALID_ARGUMENT */
  TF_Buffer* value = OPGEN_OpKernelConstructionGetAttrValue(ctx, "i", s);
  append(p, " value_of_i=");
  for (size_t k = 0; value != NULL && k < value->length; ++k) {
    snprintf(buf, sizeof buf, "%02x", ((const unsigned char*)value->data)[k]);
    append(p, buf);
  }
  TF_DeleteBuffer(value);
  value = OPGEN_OpKernelConstructionGetAttrValue(ctx, "zz", s);
  snprintf(buf, sizeof buf, " value_of_none=%d/%d", value == NULL, TF_GetCode(s));
  append(p, buf);
  TF_DeleteStatus(s);
  return p;
}

static void* probe_create(TF_OpKernelConstruction* ctx) { return probe_create_with_sign(ctx, 1); }
static void* probe_create_minus(TF_OpKernelConstruction* ctx) {
  return probe_create_with_sign(ctx, -1);
}

static void probe_delete(void* p) { free(p); }

static void probe_compute(void* kernel, TF_OpKernelContext* ctx) {
  Probe* p = (Probe*)kernel;
  TF_Status* s = TF_NewStatus();
  TF_Tensor* x = NULL;
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    TF_DeleteStatus(s);
    return;
  }
  const int rank = TF_NumDims(x);
  int64_t dims[8];
  for (int d = 0; d < rank && d < 8; ++d) dims[d] = TF_Dim(x, d);
  const int64_t n = TF_TensorElementCount(x);

  /* the scratch copy goes through a temp, the result through forwarding */
  TF_AllocatorAttributes attrs = {TF_ALLOCATOR_ATTRIBUTES_STRUCT_SIZE, 1};
  TF_Tensor* temp = TF_AllocateTemp(ctx, TF_FLOAT, dims, rank, &attrs, s);
  int forwarded = 7;
  const int candidates[] = {0};
  TF_Tensor* y = NULL;
  if (TF_GetCode(s) == TF_OK)
    y = TF_ForwardInputOrAllocateOutput(ctx, candidates, 1, 0, dims, rank, &forwarded, s);
  if (TF_GetCode(s) == TF_OK) {
    float* scratch = (float*)TF_TensorData(temp);
    memcpy(scratch, TF_TensorData(x), sizeof(float) * (size_t)n);
    float* out = (float*)TF_TensorData(y);
    for (int64_t k = 0; k < n; ++k) out[k] = scratch[k] + p->sign * (float)p->i;
  }
  if (TF_GetCode(s) == TF_OK && p->report) {
    char buf[1400];
    TF_StringView kname = TF_GetOpKernelName(ctx);
    TF_Status* probe = TF_NewStatus();
    const int host_in = TF_IsHostMemoryInput(ctx, 0, probe);
    const int bad_in = TF_IsHostMemoryInput(ctx, 5, probe);
    const int bad_code = TF_GetCode(probe);
    const int has_stream = TF_GetStream(ctx, probe) != NULL;
    const int stream_code = TF_GetCode(probe);
    /* opgen's borrowed input: the same tensor data as TF_GetInput's, no new reference */
    const TF_Tensor* borrowed = OPGEN_KernelInput(ctx, 0, probe);
    const int borrowed_same = borrowed != NULL && TF_TensorData(borrowed) == TF_TensorData(x);
    const int borrowed_bad = OPGEN_KernelInput(ctx, 5, probe) == NULL;
    const int borrowed_bad_code = TF_GetCode(probe);
    TF_DeleteStatus(probe);
    snprintf(buf, sizeof buf,
             "REPORT %s | kernel=%.*s inputs=%d outputs=%d in_dtype=%d out_dtype=%d "
             "forwarded=%d host_in=%d bad_in=%d/%d step=%d stream=%d/%d device_id=%d "
             "borrowed=%d bad_borrowed=%d/%d",
             p->summary, (int)kname.len, kname.data, TF_NumInputs(ctx), TF_NumOutputs(ctx),
             TF_InputDatatype(ctx, 0), TF_ExpectedOutputDataType(ctx, 0), forwarded, host_in,
             bad_in, bad_code, TF_StepId(ctx) > 0, has_stream, stream_code, TF_GetDeviceId(ctx),
             borrowed_same, borrowed_bad, borrowed_bad_code);
    TF_SetStatus(s, TF_CANCELLED, buf);
  }
  if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
  TF_DeleteTensor(y);
  TF_DeleteTensor(temp);
  TF_DeleteTensor(x);
  TF_DeleteStatus(s);
}

__attribute__((constructor)) static void register_probe(void) {
  TF_Status* s = TF_NewStatus();
  TF_OpDefinitionBuilder* b = TF_NewOpDefinitionBuilder("OpgenKernelApiProbe");
  TF_OpDefinitionBuilderAddInput(b, "x: float");
  TF_OpDefinitionBuilderAddOutput(b, "y: float");
  const char* attrs[] = {"i: int = 3", "f: float = 1.5", "b: bool = true", "report: bool = false",
                         "ty: type = DT_INT32", "s: string = 'hello'", "li: list(int) = [4, -5]",
                         "lf: list(float) = [0.25]", "lb: list(bool) = [true, false]",
                         "ls: list(string) = ['ab', 'cde']", "lt: list(type) = [DT_FLOAT, DT_INT64]",
                         "t: tensor", "tl: list(tensor)"};
  for (size_t k = 0; k < sizeof attrs / sizeof attrs[0]; ++k) TF_OpDefinitionBuilderAddAttr(b, attrs[k]);
  TF_RegisterOpDefinition(b, s);
  if (TF_GetCode(s) == TF_OK) {
    TF_KernelBuilder* k = TF_NewKernelBuilder("OpgenKernelApiProbe", "CPU", probe_create, probe_compute,
                                              probe_delete);
    TF_KernelBuilder_HostMemory(k, "x");
    TF_RegisterKernelBuilder("OpgenKernelApiProbePlus", k, s);
  }
  if (TF_GetCode(s) == TF_OK) {
    TF_KernelBuilder* k = TF_NewKernelBuilder("OpgenKernelApiProbe", "CPU", probe_create_minus,
                                              probe_compute, probe_delete);
    TF_KernelBuilder_Label(k, "minus");
    TF_RegisterKernelBuilder("OpgenKernelApiProbeMinus", k, s);
  }
  if (TF_GetCode(s) != TF_OK) fprintf(stderr, "probe registration: %s\n", TF_Message(s));
  TF_DeleteStatus(s);
}
