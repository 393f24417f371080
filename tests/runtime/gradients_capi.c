/* TF_AddGradients and OPGEN_RegisterGradient from C (test_c_gradients.py builds and runs
 * it). Prints one line per check: "name value..." for the test to compare. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "opgen/gradients.h"
#include "tensorflow/c/c_api.h"

static int failures = 0;
#define CHECK(cond, what)                                  \
  do {                                                     \
    if (!(cond)) {                                         \
      printf("FAIL %s\n", what);                           \
      failures++;                                          \
    }                                                      \
  } while (0)

static TF_Operation* Placeholder(TF_Graph* g, const char* name, TF_Status* s) {
  TF_OperationDescription* d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  return TF_FinishOperation(d, s);
}

static TF_Operation* Unary(TF_Graph* g, const char* type, const char* name, TF_Output x,
                           TF_Status* s) {
  TF_OperationDescription* d = TF_NewOperation(g, type, name);
  TF_AddInput(d, x);
  return TF_FinishOperation(d, s);
}

static TF_Operation* Binary(TF_Graph* g, const char* type, const char* name, TF_Output x,
                            TF_Output y, TF_Status* s) {
  TF_OperationDescription* d = TF_NewOperation(g, type, name);
  TF_AddInput(d, x);
  TF_AddInput(d, y);
  return TF_FinishOperation(d, s);
}

/* Runs `fetch` with x fed the three values; prints them after `label`. */
static void Run(TF_Graph* g, TF_Output x, TF_Output fetch, const char* label, TF_Status* s) {
  const int64_t dims[1] = {3};
  TF_Tensor* in = TF_AllocateTensor(TF_FLOAT, dims, 1, 3 * sizeof(float));
  float* p = (float*)TF_TensorData(in);
  p[0] = 0.5f; p[1] = -1.0f; p[2] = 2.0f;
  TF_SessionOptions* o = TF_NewSessionOptions();
  TF_Session* sess = TF_NewSession(g, o, s);
  TF_Tensor* out = NULL;
  TF_SessionRun(sess, NULL, &x, &in, 1, &fetch, &out, 1, NULL, 0, NULL, s);
  if (TF_GetCode(s) == TF_OK) {
    const float* r = (const float*)TF_TensorData(out);
    printf("%s %.6f %.6f %.6f\n", label, r[0], r[1], r[2]);
    TF_DeleteTensor(out);
  } else {
    printf("FAIL run %s: %s\n", label, TF_Message(s));
    failures++;
  }
  TF_DeleteTensor(in);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
}

/* A gradient for Square that multiplies by 3 instead of 2x (to see it used). */
static void TripleGrad(OPGEN_GradientContext* ctx, void* user_data, TF_Status* s) {
  int* calls = (int*)user_data;
  ++*calls;
  CHECK(strcmp(OPGEN_GradientContextNameScope(ctx), "gradients/sq_grad/") == 0, "scope");
  TF_OperationDescription* d = OPGEN_GradientContextNewOperation(ctx, "Const", "three");
  const int64_t no_dims[1] = {0};
  TF_Tensor* t = TF_AllocateTensor(TF_FLOAT, no_dims, 0, sizeof(float));
  *(float*)TF_TensorData(t) = 3.0f;
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrTensor(d, "value", t, s);
  TF_DeleteTensor(t);
  TF_Operation* three = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) return;
  d = OPGEN_GradientContextNewOperation(ctx, "Mul", NULL);
  TF_AddInput(d, OPGEN_GradientContextOutputGrad(ctx, 0));
  TF_AddInput(d, (TF_Output){three, 0});
  TF_Operation* mul = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) return;
  OPGEN_GradientContextSetInputGrad(ctx, 0, (TF_Output){mul, 0}, s);
}

int main(void) {
  TF_Status* s = TF_NewStatus();
  TF_Graph* g = TF_NewGraph();
  TF_Operation* x = Placeholder(g, "x", s);
  TF_Operation* z = Placeholder(g, "z", s);
  TF_Output xo = {x, 0};
  TF_Operation* sq = Unary(g, "Square", "sq", xo, s);
  TF_Operation* sn = Unary(g, "Sin", "sin", xo, s);
  TF_Operation* y = Binary(g, "AddV2", "y", (TF_Output){sq, 0}, (TF_Output){sn, 0}, s);
  CHECK(TF_GetCode(s) == TF_OK, "build");

  /* dy/dx = 2x + cos(x); z is not connected */
  TF_Output ys[1] = {{y, 0}};
  TF_Output xs[2] = {{x, 0}, {z, 0}};
  TF_Output dy[2];
  TF_AddGradients(g, ys, 1, xs, 2, NULL, s, dy);
  CHECK(TF_GetCode(s) == TF_OK, TF_Message(s));
  CHECK(dy[1].oper == NULL, "unconnected x gives NULL");
  CHECK(strncmp(TF_OperationName(dy[0].oper), "gradients/", 10) == 0, "scope gradients/");
  Run(g, xo, dy[0], "grad", s);

  /* the prefix must be new */
  TF_AddGradientsWithPrefix(g, "gradients", ys, 1, xs, 1, NULL, s, dy);
  CHECK(TF_GetCode(s) == TF_INVALID_ARGUMENT, "prefix conflict refused");
  printf("prefix_error %s\n", TF_Message(s));
  TF_AddGradientsWithPrefix(g, "mine", ys, 1, xs, 1, NULL, s, dy);
  CHECK(TF_GetCode(s) == TF_OK && strncmp(TF_OperationName(dy[0].oper), "mine/", 5) == 0,
        "prefix mine/");

  /* a gradient registered from C overrides the built-in one; NULL restores it */
  TF_Graph* g2 = TF_NewGraph();
  TF_Operation* x2 = Placeholder(g2, "x", s);
  TF_Operation* sq2 = Unary(g2, "Square", "sq", (TF_Output){x2, 0}, s);
  int calls = 0;
  OPGEN_RegisterGradient("Square", TripleGrad, &calls, s);
  CHECK(TF_GetCode(s) == TF_OK, "register");
  TF_Output y2[1] = {{sq2, 0}}, x2s[1] = {{x2, 0}}, d2[1];
  TF_AddGradients(g2, y2, 1, x2s, 1, NULL, s, d2);
  CHECK(TF_GetCode(s) == TF_OK && calls == 1, "custom gradient called");
  Run(g2, (TF_Output){x2, 0}, d2[0], "custom", s);
  OPGEN_RegisterGradient("Square", NULL, NULL, s);
  TF_AddGradients(g2, y2, 1, x2s, 1, NULL, s, d2);
  CHECK(TF_GetCode(s) == TF_OK && calls == 1, "built-in again");
  Run(g2, (TF_Output){x2, 0}, d2[0], "builtin", s);

  /* no gradient for an op: an error naming it, the graph unchanged */
  OPGEN_RegisterGradient("Square", NULL, NULL, s);
  TF_Graph* g3 = TF_NewGraph();
  TF_Operation* x3 = Placeholder(g3, "x", s);
  TF_OperationDescription* d = TF_NewOperation(g3, "Enter", "enter");  /* a v1 while loop's */
  TF_AddInput(d, (TF_Output){x3, 0});
  TF_SetAttrString(d, "frame_name", "frame", 5);
  TF_Operation* enter = TF_FinishOperation(d, s);
  size_t pos = 0;
  int before = 0;
  while (TF_GraphNextOperation(g3, &pos)) before++;
  TF_Output y3[1] = {{enter, 0}}, x3s[1] = {{x3, 0}}, d3[1];
  TF_AddGradients(g3, y3, 1, x3s, 1, NULL, s, d3);
  CHECK(TF_GetCode(s) == TF_NOT_FOUND, "no gradient: NOT_FOUND");
  printf("missing_error %s\n", TF_Message(s));
  pos = 0;
  int after = 0;
  while (TF_GraphNextOperation(g3, &pos)) after++;
  CHECK(before == after, "graph unchanged after a failure");

  TF_DeleteGraph(g);
  TF_DeleteGraph(g2);
  TF_DeleteGraph(g3);
  TF_DeleteStatus(s);
  printf("failures %d\n", failures);
  return failures != 0;
}
