// TF_NewWhile / TF_FinishWhile / TF_AbortWhile: a while loop built from two graphs, added
// to the outer graph as one functional While node whose cond and body are functions.
#include <atomic>
#include <string>

#include "graph.h"

namespace {

// The arrays TF_NewWhile hands out, freed with the two graphs.
void FreeParams(const TF_WhileParams* params) {
  delete[] params->cond_inputs;
  delete[] params->body_inputs;
  delete[] params->body_outputs;
  TF_DeleteGraph(params->cond_graph);
  TF_DeleteGraph(params->body_graph);
}

// One Placeholder per loop variable in `g`, typed as the inputs.
TF_Output* Placeholders(TF_Graph* g, const std::vector<TF_DataType>& types, TF_Status* status) {
  auto* outs = new TF_Output[types.size() ? types.size() : 1];
  for (size_t i = 0; i < types.size(); ++i) {
    const std::string name = "input_" + std::to_string(i);
    TF_OperationDescription* d = TF_NewOperation(g, "Placeholder", name.c_str());
    TF_SetAttrType(d, "dtype", types[i]);
    outs[i] = TF_Output{TF_FinishOperation(d, status), 0};
    if (TF_GetCode(status) != TF_OK) break;
  }
  return outs;
}

std::atomic<int> g_loops{0};

}  // namespace

extern "C" {

TF_WhileParams TF_NewWhile(TF_Graph* g, TF_Output* inputs, int ninputs, TF_Status* status) {
  TF_WhileParams failed{0, nullptr, nullptr, {nullptr, 0}, nullptr, nullptr, nullptr, nullptr};
  if (!opgen::CheckNotNull(status, __func__, {{"g", g}, {"inputs", opgen::ArrayArg(inputs, ninputs)}}))
    return failed;
  if (ninputs < 1) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT, "TF_NewWhile: a loop needs at least one input");
    return failed;
  }
  std::vector<TF_DataType> types;
  {
    std::lock_guard<std::mutex> lock(g->mu);
    for (int i = 0; i < ninputs; ++i) {
      const TF_Output& in = inputs[i];
      if (in.oper == nullptr || in.oper->graph != g || in.index < 0 ||
          static_cast<size_t>(in.index) >= in.oper->output_types.size()) {
        opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                         "TF_NewWhile: input " + std::to_string(i) + " is not an output of g");
        return failed;
      }
      types.push_back(in.oper->output_types[in.index]);
    }
  }
  TF_Graph* cond = TF_NewGraph();
  TF_Graph* body = TF_NewGraph();
  TF_Output* cond_inputs = Placeholders(cond, types, status);
  TF_Output* body_inputs = nullptr;
  if (TF_GetCode(status) == TF_OK) body_inputs = Placeholders(body, types, status);
  auto* body_outputs = new TF_Output[ninputs];
  for (int i = 0; i < ninputs; ++i) body_outputs[i] = TF_Output{nullptr, 0};
  cond->while_parent = g;
  cond->while_inputs.assign(inputs, inputs + ninputs);
  TF_WhileParams params{ninputs, cond, cond_inputs, {nullptr, 0}, body, body_inputs,
                        body_outputs, nullptr};
  if (TF_GetCode(status) != TF_OK) {
    FreeParams(&params);
    return failed;
  }
  return params;
}

void TF_FinishWhile(const TF_WhileParams* params, TF_Status* status, TF_Output* outputs) {
  if (!opgen::CheckNotNull(status, __func__, {{"params", params}}) ||
      !opgen::CheckNotNull(status, __func__, {{"params->cond_graph", params->cond_graph},
                                              {"outputs", outputs}}))
    return;
  TF_Graph* g = params->cond_graph->while_parent;
  const int n = params->ninputs;
  const std::vector<TF_Output> inputs = params->cond_graph->while_inputs;
  auto finish = [&]() {
    if (params->cond_output.oper == nullptr) {
      opgen::SetStatus(status, TF_INVALID_ARGUMENT, "TF_FinishWhile: cond_output is not set");
      return;
    }
    for (int i = 0; i < n; ++i) {
      if (params->body_outputs[i].oper != nullptr) continue;
      opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                       "TF_FinishWhile: body_outputs[" + std::to_string(i) + "] is not set");
      return;
    }
    // A body that changes a loop variable's dtype is refused here, as TensorFlow's
    // TF_FinishWhile refuses it, not only once the loop runs. (Graph and index are
    // TF_GraphToFunction's to check; an output it would refuse is skipped here.)
    for (int i = 0; i < n; ++i) {
      const TF_Output& o = params->body_outputs[i];
      if (o.oper->graph != params->body_graph || o.index < 0 ||
          static_cast<size_t>(o.index) >= o.oper->output_types.size())
        continue;
      const TF_DataType want = inputs[i].oper->output_types[inputs[i].index];
      const TF_DataType got = o.oper->output_types[o.index];
      if (got == want) continue;
      opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                       "TF_FinishWhile: body_outputs[" + std::to_string(i) + "] is " +
                           opgen::DataTypeName(got) + ", but loop variable " +
                           std::to_string(i) + " is " + opgen::DataTypeName(want));
      return;
    }
    // Unique function names per loop: the node name plus a counter.
    const std::string base = params->name != nullptr && *params->name ? params->name : "while";
    const std::string tag = base + "_" + std::to_string(g_loops.fetch_add(1));
    TF_Function* cond = TF_GraphToFunction(params->cond_graph, (tag + "_cond").c_str(), 0, -1,
                                           nullptr, n, params->cond_inputs, 1,
                                           &params->cond_output, nullptr, nullptr, nullptr, status);
    if (cond == nullptr) return;
    TF_Function* body = TF_GraphToFunction(params->body_graph, (tag + "_body").c_str(), 0, -1,
                                           nullptr, n, params->body_inputs, n,
                                           params->body_outputs, nullptr, nullptr, nullptr, status);
    if (body != nullptr) {
      TF_GraphCopyFunction(g, cond, nullptr, status);
      if (TF_GetCode(status) == TF_OK) TF_GraphCopyFunction(g, body, nullptr, status);
    }
    // Functions the two graphs call go along (a loop inside a loop's body, say).
    for (TF_Graph* sub : {params->cond_graph, params->body_graph}) {
      if (TF_GetCode(status) != TF_OK) break;
      opgen::FunctionLibrary library;
      {
        std::lock_guard<std::mutex> lock(sub->mu);
        library = sub->functions;
      }
      std::lock_guard<std::mutex> lock(g->mu);
      g->functions.Merge(library, status);
    }
    TF_DeleteFunction(cond);
    TF_DeleteFunction(body);
    if (TF_GetCode(status) != TF_OK) return;
    TF_OperationDescription* d = TF_NewOperation(g, "While", base.c_str());
    TF_AddInputList(d, inputs.data(), n);
    TF_SetAttrFuncName(d, "cond", (tag + "_cond").c_str(), tag.size() + 5);
    TF_SetAttrFuncName(d, "body", (tag + "_body").c_str(), tag.size() + 5);
    TF_Operation* loop = TF_FinishOperation(d, status);
    if (TF_GetCode(status) != TF_OK) return;
    for (int i = 0; i < n; ++i) outputs[i] = TF_Output{loop, i};
  };
  finish();
  FreeParams(params);
}

void TF_AbortWhile(const TF_WhileParams* params) {
  if (params != nullptr && params->cond_graph != nullptr) FreeParams(params);
}

}  // extern "C"
