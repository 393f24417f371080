/* An op plugin in plain C, written against TensorFlow's op and kernel C API only, so the
 * same file builds against opgen's headers or TensorFlow's.
 *
 *   WeightedSum(values: N * T, weights: list(float)) -> sum: T,   T in {float, double}
 *
 * sum = weights[0] * values[0] + ... + weights[N-1] * values[N-1]; every value must have
 * the same shape, which is also the output's. Registration happens when the library is
 * loaded, from a constructor (what TensorFlow's C++ plugins do with static initialisers). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* TensorFlow's own ops.h declares these structs without typedefs (it is written for C++),
 * so a C plugin names them itself; C11 allows the repeat where a header has them too. */
typedef struct TF_DimensionHandle TF_DimensionHandle;
typedef struct TF_OpDefinitionBuilder TF_OpDefinitionBuilder;
typedef struct TF_ShapeHandle TF_ShapeHandle;
typedef struct TF_ShapeInferenceContext TF_ShapeInferenceContext;

#include "tensorflow/c/kernels.h"
#include "tensorflow/c/ops.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

/* ---- shape function: all inputs have one shape, and so does the output ---- */

static void weighted_sum_shape(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  TF_ShapeHandle* first = TF_NewShapeHandle();
  TF_ShapeHandle* other = TF_NewShapeHandle();
  TF_ShapeInferenceContextGetInput(ctx, 0, first, status);
  const int64_t n = TF_ShapeInferenceContextNumInputs(ctx);
  for (int64_t i = 1; i < n && TF_GetCode(status) == TF_OK; ++i) {
    TF_ShapeInferenceContextGetInput(ctx, (int)i, other, status);
    if (TF_GetCode(status) != TF_OK) break;
    if (!TF_ShapeInferenceContextRankKnown(ctx, first) ||
        !TF_ShapeInferenceContextRankKnown(ctx, other))
      continue;  /* an unknown rank could be anything: check at run time */
    const int64_t rank = TF_ShapeInferenceContextRank(ctx, first);
    char message[160];
    if (TF_ShapeInferenceContextRank(ctx, other) != rank) {
      snprintf(message, sizeof message,
               "WeightedSum needs values of one shape: value %lld has rank %lld, value 0 "
               "has rank %lld",
               (long long)i, (long long)TF_ShapeInferenceContextRank(ctx, other),
               (long long)rank);
      TF_SetStatus(status, TF_INVALID_ARGUMENT, message);
      break;
    }
    for (int64_t d = 0; d < rank; ++d) {
      TF_DimensionHandle* a = TF_NewDimensionHandle();
      TF_DimensionHandle* b = TF_NewDimensionHandle();
      TF_ShapeInferenceContextDim(ctx, first, d, a);
      TF_ShapeInferenceContextDim(ctx, other, d, b);
      const int known = TF_DimensionHandleValueKnown(a) && TF_DimensionHandleValueKnown(b);
      const int64_t da = TF_DimensionHandleValue(a), db = TF_DimensionHandleValue(b);
      TF_DeleteDimensionHandle(a);
      TF_DeleteDimensionHandle(b);
      if (known && da != db) {
        snprintf(message, sizeof message,
                 "WeightedSum needs values of one shape: dimension %lld of value %lld is "
                 "%lld, of value 0 %lld",
                 (long long)d, (long long)i, (long long)db, (long long)da);
        TF_SetStatus(status, TF_INVALID_ARGUMENT, message);
        break;
      }
    }
  }
  if (TF_GetCode(status) == TF_OK) TF_ShapeInferenceContextSetOutput(ctx, 0, first, status);
  TF_DeleteShapeHandle(other);
  TF_DeleteShapeHandle(first);
}

/* ---- CPU kernel ---- */

typedef struct {
  int count;      /* N */
  float* weights; /* N weights */
} WeightedSumKernel;

static void weighted_sum_delete(void* kernel) {
  WeightedSumKernel* k = (WeightedSumKernel*)kernel;
  if (k == NULL) return;
  free(k->weights);
  free(k);
}

/* Reads N and the weights once per node; a weight count other than N is the node's
 * error, reported here rather than on every run. */
static void* weighted_sum_create(TF_OpKernelConstruction* ctx) {
  TF_Status* status = TF_NewStatus();
  WeightedSumKernel* k = (WeightedSumKernel*)calloc(1, sizeof *k);
  int64_t n = 0;
  int32_t list_size = 0, total_size = 0;
  TF_OpKernelConstruction_GetAttrInt64(ctx, "N", &n, status);
  if (TF_GetCode(status) == TF_OK)
    TF_OpKernelConstruction_GetAttrSize(ctx, "weights", &list_size, &total_size, status);
  if (TF_GetCode(status) == TF_OK && list_size != n) {
    char message[128];
    snprintf(message, sizeof message, "WeightedSum got %d weights for %lld values",
             (int)list_size, (long long)n);
    TF_SetStatus(status, TF_INVALID_ARGUMENT, message);
  }
  if (TF_GetCode(status) == TF_OK) {
    k->count = (int)n;
    k->weights = (float*)malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    TF_OpKernelConstruction_GetAttrFloatList(ctx, "weights", k->weights, (int)n, status);
  }
  if (TF_GetCode(status) != TF_OK) TF_OpKernelConstruction_Failure(ctx, status);
  TF_DeleteStatus(status);
  return k; /* freed by weighted_sum_delete even when construction failed */
}

static int same_shape(const TF_Tensor* a, const TF_Tensor* b) {
  if (TF_NumDims(a) != TF_NumDims(b)) return 0;
  for (int d = 0; d < TF_NumDims(a); ++d)
    if (TF_Dim(a, d) != TF_Dim(b, d)) return 0;
  return 1;
}

static void weighted_sum_compute(void* kernel, TF_OpKernelContext* ctx) {
  const WeightedSumKernel* k = (const WeightedSumKernel*)kernel;
  TF_Status* status = TF_NewStatus();
  TF_Tensor** values = (TF_Tensor**)calloc((size_t)k->count, sizeof(TF_Tensor*));
  TF_Tensor* out = NULL;
  int got = 0;
  for (; got < k->count && TF_GetCode(status) == TF_OK; ++got)
    TF_GetInput(ctx, got, &values[got], status);
  if (TF_GetCode(status) != TF_OK) --got; /* the failed call set nothing */
  /* Shapes are checked again here: eager execution runs no shape function. */
  for (int i = 1; i < got && TF_GetCode(status) == TF_OK; ++i) {
    if (!same_shape(values[0], values[i])) {
      char message[128];
      snprintf(message, sizeof message,
               "WeightedSum needs values of one shape: value %d differs from value 0", i);
      TF_SetStatus(status, TF_INVALID_ARGUMENT, message);
    }
  }
  if (TF_GetCode(status) == TF_OK) {
    const int rank = TF_NumDims(values[0]);
    int64_t dims[16];
    if (rank > 16) {
      TF_SetStatus(status, TF_UNIMPLEMENTED, "WeightedSum supports rank 16 at most");
    } else {
      for (int d = 0; d < rank; ++d) dims[d] = TF_Dim(values[0], d);
      out = TF_AllocateOutput(ctx, 0, TF_TensorType(values[0]), dims, rank,
                              TF_TensorByteSize(values[0]), status);
    }
  }
  if (TF_GetCode(status) == TF_OK) {
    const int64_t size = TF_TensorElementCount(out);
    if (TF_TensorType(out) == TF_FLOAT) {
      float* sum = (float*)TF_TensorData(out);
      memset(sum, 0, sizeof(float) * (size_t)size);
      for (int i = 0; i < k->count; ++i) {
        const float* x = (const float*)TF_TensorData(values[i]);
        for (int64_t j = 0; j < size; ++j) sum[j] += k->weights[i] * x[j];
      }
    } else {
      double* sum = (double*)TF_TensorData(out);
      memset(sum, 0, sizeof(double) * (size_t)size);
      for (int i = 0; i < k->count; ++i) {
        const double* x = (const double*)TF_TensorData(values[i]);
        for (int64_t j = 0; j < size; ++j) sum[j] += (double)k->weights[i] * x[j];
      }
    }
  }
  if (TF_GetCode(status) != TF_OK) TF_OpKernelContext_Failure(ctx, status);
  TF_DeleteTensor(out);
  for (int i = 0; i < got; ++i) TF_DeleteTensor(values[i]);
  free(values);
  TF_DeleteStatus(status);
}

/* ---- registration, at load time ---- */

/* Defined by my_ops_cuda.cu when the library is built with nvcc; weak, so a CPU-only
 * build (or TensorFlow's, which gives the plugin no GPU stream) leaves it out. */
extern void my_ops_register_gpu_kernels(TF_Status* status) __attribute__((weak));

static void report(const char* what, TF_Status* status) {
  if (TF_GetCode(status) != TF_OK)
    fprintf(stderr, "my_ops: registering %s failed: %s\n", what, TF_Message(status));
}

__attribute__((constructor)) static void register_my_ops(void) {
  TF_Status* status = TF_NewStatus();

  TF_OpDefinitionBuilder* op = TF_NewOpDefinitionBuilder("WeightedSum");
  TF_OpDefinitionBuilderAddInput(op, "values: N * T");
  TF_OpDefinitionBuilderAddOutput(op, "sum: T");
  TF_OpDefinitionBuilderAddAttr(op, "N: int >= 1");
  TF_OpDefinitionBuilderAddAttr(op, "T: {float, double}");
  TF_OpDefinitionBuilderAddAttr(op, "weights: list(float)");
  TF_OpDefinitionBuilderSetShapeInferenceFunction(op, &weighted_sum_shape);
  TF_RegisterOpDefinition(op, status); /* takes the builder */
  report("op WeightedSum", status);

  const TF_DataType types[] = {TF_FLOAT, TF_DOUBLE};
  for (size_t i = 0; i < sizeof types / sizeof types[0] && TF_GetCode(status) == TF_OK; ++i) {
    TF_KernelBuilder* kernel = TF_NewKernelBuilder("WeightedSum", "CPU", &weighted_sum_create,
                                                   &weighted_sum_compute, &weighted_sum_delete);
    TF_KernelBuilder_TypeConstraint(kernel, "T", types[i], status);
    if (TF_GetCode(status) != TF_OK) {
      TF_DeleteKernelBuilder(kernel);
      break;
    }
    TF_RegisterKernelBuilder("WeightedSumOp", kernel, status); /* takes the builder */
    report("the WeightedSum CPU kernel", status);
  }
  if (my_ops_register_gpu_kernels != NULL && TF_GetCode(status) == TF_OK) {
    my_ops_register_gpu_kernels(status);
    report("the WeightedSum GPU kernel", status);
  }
  TF_DeleteStatus(status);
}
