// libFuzzer target: the GraphDef importer. The input is a GraphDef's bytes.
//
// The promise checked: `TF_GraphImportGraphDef` accepts the bytes or sets a status with
// a message, and never crashes, hangs or leaks; what it accepted, the runtime writes
// back with `TF_GraphToGraphDef` and imports again (what opgen writes it must read),
// with the same number of operations.

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/c_api.h"

static void fail(const char* what, TF_Status* status) {
  fprintf(stderr, "target_graphdef: %s: %s\n", what, status ? TF_Message(status) : "");
  abort();
}

static int count_operations(TF_Graph* graph) {
  size_t pos = 0;
  int n = 0;
  while (TF_GraphNextOperation(graph, &pos) != NULL) n++;
  return n;
}

// Every query a binding makes of an imported op, so that what import stored is read.
static void inspect(TF_Graph* graph, TF_Status* status) {
  size_t pos = 0;
  TF_Operation* op;
  while ((op = TF_GraphNextOperation(graph, &pos)) != NULL) {
    if (!TF_OperationName(op) || !TF_OperationOpType(op)) fail("an op without a name", NULL);
    (void)TF_OperationDevice(op);
    int outputs = TF_OperationNumOutputs(op);
    for (int i = 0; i < outputs; i++) {
      TF_Output out = {op, i};
      (void)TF_OperationOutputType(out);
      int rank = TF_GraphGetTensorNumDims(graph, out, status);
      if (TF_GetCode(status) == TF_OK && rank > 0 && rank <= 254) {
        int64_t dims[254];
        TF_GraphGetTensorShape(graph, out, dims, rank, status);
      }
    }
    int inputs = TF_OperationNumInputs(op);
    for (int i = 0; i < inputs; i++) (void)TF_OperationInput((TF_Input){op, i});
  }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  TF_Status* status = TF_NewStatus();
  TF_Graph* graph = TF_NewGraph();
  TF_ImportGraphDefOptions* options = TF_NewImportGraphDefOptions();
  TF_Buffer input = {data, size, NULL};
  TF_GraphImportGraphDef(graph, &input, options, status);
  if (TF_GetCode(status) != TF_OK) {
    if (TF_Message(status)[0] == '\0') fail("a refusal without a message", status);
  } else {
    inspect(graph, status);
    TF_Buffer* written = TF_NewBuffer();
    TF_GraphToGraphDef(graph, written, status);
    if (TF_GetCode(status) != TF_OK) fail("TF_GraphToGraphDef of an imported graph", status);
    TF_Graph* again = TF_NewGraph();
    TF_GraphImportGraphDef(again, written, options, status);
    if (TF_GetCode(status) != TF_OK) fail("re-importing what TF_GraphToGraphDef wrote", status);
    if (count_operations(again) != count_operations(graph))
      fail("re-import changed the number of operations", NULL);
    TF_DeleteGraph(again);
    TF_DeleteBuffer(written);
  }
  TF_DeleteImportGraphDefOptions(options);
  TF_DeleteGraph(graph);
  TF_DeleteStatus(status);
  return 0;
}
