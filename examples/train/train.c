/* The demo in C: TensorFlow's C API (TF_AddGradients, TF_SessionRun) and the generated
 * C ops (opgen_ops.h). Variables and the SGD step are spelled out here (C has no helper
 * for them): Const + VarHandleOp + AssignVariableOp per variable, a ReadVariableOp per
 * use, one ResourceApplyGradientDescent per variable behind a NoOp. Same graph, node for
 * node, as train.py.
 *
 *   cc train.c <generated>/c/opgen_ops.c -I<generated>/c \
 *      $(opgen config --cflags) $(opgen config --libs)
 *   ./a.out DATA_DIR mlp|cnn [STEPS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opgen_ops.h"

enum { kBatch = 64, kBatches = 10, kVars = 4 };
static const float kLearningRate = 0.1f;

static TF_Status* status;

static void Check(const char* what) {
  if (TF_GetCode(status) != TF_OK) {
    fprintf(stderr, "%s failed: %s\n", what, TF_Message(status));
    exit(1);
  }
}

/* make_data.py's raw little-endian file `name` as a tensor of `dims`; the caller owns it. */
static TF_Tensor* Load(const char* dir, const char* name, TF_DataType dtype, const int64_t* dims,
                       int rank) {
  size_t count = 1;
  for (int i = 0; i < rank; ++i) count *= (size_t)dims[i];
  const size_t bytes = count * TF_DataTypeSize(dtype);
  TF_Tensor* t = TF_AllocateTensor(dtype, dims, rank, bytes);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "rb");
  if (f == NULL || fread(TF_TensorData(t), 1, bytes, f) != bytes || fgetc(f) != EOF) {
    fprintf(stderr, "cannot read %s (run make_data.py)\n", path);
    exit(1);
  }
  fclose(f);
  return t;
}

static TF_Output Int32Const(TF_Graph* g, const int32_t* values, int64_t count, int rank) {
  TF_Tensor* t = TF_AllocateTensor(TF_INT32, &count, rank, (size_t)count * sizeof(int32_t));
  memcpy(TF_TensorData(t), values, (size_t)count * sizeof(int32_t));
  TF_Output out;
  opgen_Const(g, NULL, t, TF_INT32, &out, status); /* copies the tensor */
  Check("Const");
  TF_DeleteTensor(t);
  return out;
}

/* A resource variable named `name` whose initializer assigns the file's values. */
typedef struct {
  TF_Output handle;
  TF_Operation* initializer;
} Variable;

static Variable NewVariable(TF_Graph* g, const char* dir, const char* name, const char* file,
                            const int64_t* dims, int rank) {
  Variable v;
  TF_Tensor* value = Load(dir, file, TF_FLOAT, dims, rank);
  char op_name[256];
  TF_Output initial;
  snprintf(op_name, sizeof op_name, "%s/Initializer/initial_value", name);
  opgen_Const(g, op_name, value, TF_FLOAT, &initial, status);
  Check("initial value");
  TF_DeleteTensor(value);
  opgen_VarHandleOpAttrs attrs;
  opgen_VarHandleOpAttrsInit(&attrs);
  attrs.shared_name = name; /* the value is kept under this name, as TensorFlow does */
  opgen_VarHandleOp(g, name, TF_FLOAT, dims, rank, &attrs, &v.handle, status);
  Check("VarHandleOp");
  snprintf(op_name, sizeof op_name, "%s/Assign", name);
  v.initializer = opgen_AssignVariableOp(g, op_name, v.handle, initial, NULL, status);
  Check("AssignVariableOp");
  return v;
}

static TF_Output Read(TF_Graph* g, Variable v) {
  TF_Output value;
  opgen_ReadVariableOp(g, NULL, v.handle, TF_FLOAT, &value, status);
  Check("ReadVariableOp");
  return value;
}

/* A NoOp that runs `ops`: the train op, the initializer. */
static TF_Operation* Group(TF_Graph* g, const char* name, TF_Operation* const* ops, int count) {
  TF_OperationDescription* desc = TF_NewOperation(g, "NoOp", name);
  for (int i = 0; i < count; ++i) TF_AddControlInput(desc, ops[i]);
  TF_Operation* op = TF_FinishOperation(desc, status);
  Check(name);
  return op;
}

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4 || (strcmp(argv[2], "mlp") != 0 && strcmp(argv[2], "cnn") != 0)) {
    fprintf(stderr, "usage: %s DATA_DIR mlp|cnn [STEPS]\n", argv[0]);
    return 2;
  }
  const char* dir = argv[1];
  const int mlp = strcmp(argv[2], "mlp") == 0;
  const int steps = argc == 4 ? atoi(argv[3]) : 100;
  status = TF_NewStatus();
  TF_Graph* g = TF_NewGraph();

  TF_Output x, labels;
  opgen_PlaceholderAttrs shape;
  opgen_PlaceholderAttrsInit(&shape);
  const int64_t x_dims[2] = {kBatch, 64}, label_dims[1] = {kBatch};
  shape.shape = x_dims;
  shape.shape_num_dims = 2;
  opgen_Placeholder(g, "x", TF_FLOAT, &shape, &x, status);
  Check("x");
  shape.shape = label_dims;
  shape.shape_num_dims = 1;
  opgen_Placeholder(g, "labels", TF_INT32, &shape, &labels, status);
  Check("labels");

  Variable vars[kVars];
  TF_Output logits, t1, t2, t3;
  if (mlp) {
    const int64_t w1[2] = {64, 32}, b1[1] = {32}, w2[2] = {32, 10}, b2[1] = {10};
    vars[0] = NewVariable(g, dir, "w1", "mlp_w1.f32", w1, 2);
    vars[1] = NewVariable(g, dir, "b1", "mlp_b1.f32", b1, 1);
    vars[2] = NewVariable(g, dir, "w2", "mlp_w2.f32", w2, 2);
    vars[3] = NewVariable(g, dir, "b2", "mlp_b2.f32", b2, 1);
    opgen_MatMul(g, NULL, x, Read(g, vars[0]), NULL, &t1, status);
    Check("MatMul");
    opgen_BiasAdd(g, NULL, t1, Read(g, vars[1]), NULL, &t2, status);
    Check("BiasAdd");
    opgen_Relu(g, NULL, t2, &t3, status);
    Check("Relu");
  } else {
    const int64_t k[4] = {3, 3, 1, 8}, b1[1] = {8}, w2[2] = {128, 10}, b2[1] = {10};
    vars[0] = NewVariable(g, dir, "k", "cnn_k.f32", k, 4);
    vars[1] = NewVariable(g, dir, "b1", "cnn_b1.f32", b1, 1);
    vars[2] = NewVariable(g, dir, "w2", "cnn_w2.f32", w2, 2);
    vars[3] = NewVariable(g, dir, "b2", "cnn_b2.f32", b2, 1);
    const int32_t image_shape[4] = {-1, 8, 8, 1}, flat_shape[2] = {-1, 128};
    const int64_t ones[4] = {1, 1, 1, 1}, pool[4] = {1, 2, 2, 1};
    opgen_Reshape(g, NULL, x, Int32Const(g, image_shape, 4, 1), &t1, status);
    Check("Reshape");
    opgen_Conv2D(g, NULL, t1, Read(g, vars[0]), ones, 4, "SAME", NULL, &t2, status);
    Check("Conv2D");
    opgen_BiasAdd(g, NULL, t2, Read(g, vars[1]), NULL, &t3, status);
    Check("BiasAdd");
    opgen_Relu(g, NULL, t3, &t1, status);
    Check("Relu");
    opgen_AvgPool(g, NULL, t1, pool, 4, pool, 4, "VALID", NULL, &t2, status);
    Check("AvgPool");
    opgen_Reshape(g, NULL, t2, Int32Const(g, flat_shape, 2, 1), &t3, status);
    Check("Reshape");
  }
  opgen_MatMul(g, NULL, t3, Read(g, vars[2]), NULL, &t1, status);
  Check("MatMul");
  opgen_BiasAdd(g, NULL, t1, Read(g, vars[3]), NULL, &logits, status);
  Check("BiasAdd");
  TF_Output per_example, backprop, loss;
  opgen_SparseSoftmaxCrossEntropyWithLogits(g, NULL, logits, labels, &per_example, &backprop, status);
  Check("SparseSoftmaxCrossEntropyWithLogits");
  const int32_t axis = 0;
  opgen_Mean(g, NULL, per_example, Int32Const(g, &axis, 1, 0), NULL, &loss, status);
  Check("Mean");

  /* d loss / d each variable (its handle: the gradient reaching its reads), then SGD. */
  TF_Output handles[kVars], grads[kVars], lr;
  for (int i = 0; i < kVars; ++i) handles[i] = vars[i].handle;
  TF_AddGradients(g, &loss, 1, handles, kVars, NULL, status, grads);
  Check("TF_AddGradients");
  TF_Tensor* lr_value = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof(float));
  memcpy(TF_TensorData(lr_value), &kLearningRate, sizeof(float));
  opgen_Const(g, "GradientDescent/learning_rate", lr_value, TF_FLOAT, &lr, status);
  Check("learning rate");
  TF_DeleteTensor(lr_value);
  TF_Operation* updates[kVars];
  TF_Operation* initializers[kVars];
  for (int i = 0; i < kVars; ++i) {
    updates[i] = opgen_ResourceApplyGradientDescent(g, NULL, vars[i].handle, lr, grads[i], NULL, status);
    Check("ResourceApplyGradientDescent");
    initializers[i] = vars[i].initializer;
  }
  const TF_Operation* train = Group(g, "GradientDescent", updates, kVars);
  const TF_Operation* init = Group(g, "init", initializers, kVars);

  const int64_t all_x[2] = {kBatches * kBatch, 64}, all_labels[1] = {kBatches * kBatch};
  TF_Tensor* images = Load(dir, "x.f32", TF_FLOAT, all_x, 2);
  TF_Tensor* classes = Load(dir, "labels.i32", TF_INT32, all_labels, 1);
  TF_SessionOptions* options = TF_NewSessionOptions();
  TF_Session* session = TF_NewSession(g, options, status);
  Check("TF_NewSession");
  TF_DeleteSessionOptions(options);
  TF_SessionRun(session, NULL, NULL, NULL, 0, NULL, NULL, 0, &init, 1, NULL, status);
  Check("init");
  TF_Output feeds[2] = {x, labels};
  for (int step = 0; step < steps; ++step) {
    const int64_t first = step % kBatches * kBatch;
    TF_Tensor* batch[2] = {TF_AllocateTensor(TF_FLOAT, x_dims, 2, kBatch * 64 * sizeof(float)),
                           TF_AllocateTensor(TF_INT32, label_dims, 1, kBatch * sizeof(int32_t))};
    memcpy(TF_TensorData(batch[0]), (const float*)TF_TensorData(images) + first * 64,
           kBatch * 64 * sizeof(float));
    memcpy(TF_TensorData(batch[1]), (const int32_t*)TF_TensorData(classes) + first,
           kBatch * sizeof(int32_t));
    TF_Tensor* value = NULL;
    TF_SessionRun(session, NULL, feeds, batch, 2, &loss, &value, 1, &train, 1, NULL, status);
    Check("step");
    float v;
    uint32_t bits;
    memcpy(&v, TF_TensorData(value), sizeof v);
    memcpy(&bits, &v, sizeof bits);
    printf("%d %08x %.9g\n", step, bits, (double)v);
    TF_DeleteTensor(value);
    TF_DeleteTensor(batch[0]);
    TF_DeleteTensor(batch[1]);
  }
  TF_CloseSession(session, status);
  TF_DeleteSession(session, status);
  TF_DeleteTensor(images);
  TF_DeleteTensor(classes);
  TF_DeleteGraph(g);
  TF_DeleteStatus(status);
  return 0;
}
