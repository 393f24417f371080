// TF_SessionOptions and TF_Session: a session caches one ExecutionPlan per
// (feeds, fetches, targets) signature and one kernel per node.
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "executor.h"
#include "graph.h"
#include "op_registry.h"
#include "opgen/c_api_ext.h"
#include "optimizer/session_plan.h"
#include "../kernels/cpu/thread_limit.h"
#include "resource_mgr.h"

struct TF_SessionOptions {
  std::string target;
  std::string config;  // serialized ConfigProto, kept as given
  int graph_optimizer = -1;  // OPGEN_SetGraphOptimizer: 0 off, 1 on, -1 as config/env say
};

struct TF_Session {
  TF_Graph* graph;
  std::string config;
  opgen::OptimizerOptions optimizer;
  int64_t intra_op_threads = 0;  // ConfigProto.intra_op_parallelism_threads; 0: the pool's
  opgen::OptimizedGraphs optimized;  // declared before kernels: kernels point into it
  // Variables, kept across runs (declared before kernels: kernels point to it).
  opgen::ResourceMgr resources;
  opgen::SessionKernels kernels{&resources};  // declared before plans: plans point into it
  std::mutex mu;
  std::unordered_map<std::string, std::unique_ptr<opgen::ExecutionPlan>> plans;
  // The graph's node changes the plans account for (TF_Graph::changes), and the plans
  // made before a change: kept to the end, runs in flight may still be using them.
  std::atomic<uint64_t> graph_changes{0};
  std::vector<std::unique_ptr<opgen::ExecutionPlan>> retired_plans;
  // Close and delete wait for the runs in flight: a run holds the session (its plans,
  // kernels and graph) until it returns. Both fields under run_mu.
  std::mutex run_mu;
  std::condition_variable runs_done;
  int runs_in_flight = 0;
  bool closed = false;
};

namespace {

// True when `bytes` is a sequence of well-formed protobuf fields (any message).
bool IsWellFormedMessage(const std::string& bytes) {
  size_t pos = 0;
  auto varint = [&](uint64_t* out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= bytes.size()) return false;
      uint8_t b = static_cast<uint8_t>(bytes[pos++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) {
        *out = v;
        return true;
      }
    }
    return false;
  };
  while (pos < bytes.size()) {
    uint64_t tag, value;
    if (!varint(&tag) || (tag >> 3) == 0) return false;
    switch (tag & 7) {
      case 0: if (!varint(&value)) return false; break;
      case 1: pos += 8; break;
      case 2:
        if (!varint(&value) || value > bytes.size() - pos) return false;
        pos += value;
        break;
      case 5: pos += 4; break;
      default: return false;
    }
    if (pos > bytes.size()) return false;
  }
  return true;
}

// Marks one TF_SessionRun in flight for its lifetime; refuses to start on a closed
// session (ok() is then false).
class RunGuard {
 public:
  explicit RunGuard(TF_Session* session) : session_(session) {
    std::lock_guard<std::mutex> lock(session_->run_mu);
    if (session_->closed) return;
    ++session_->runs_in_flight;
    ok_ = true;
  }
  ~RunGuard() {
    if (!ok_) return;
    std::lock_guard<std::mutex> lock(session_->run_mu);
    if (--session_->runs_in_flight == 0) session_->runs_done.notify_all();
  }
  RunGuard(const RunGuard&) = delete;
  RunGuard& operator=(const RunGuard&) = delete;
  bool ok() const { return ok_; }

 private:
  TF_Session* session_;
  bool ok_ = false;
};

// Refuses new runs, then waits until the runs in flight have returned.
void CloseAndDrain(TF_Session* session) {
  std::unique_lock<std::mutex> lock(session->run_mu);
  session->closed = true;
  session->runs_done.wait(lock, [session] { return session->runs_in_flight == 0; });
}

// After nodes of the session's graph changed in place (a While given its gradient's
// accumulators): plans and the changed nodes' kernels are made again.
void CatchUpWithGraph(TF_Session* session) {
  std::vector<TF_Operation*> changed;
  size_t changes;
  {
    std::lock_guard<std::mutex> lock(session->graph->mu);
    changes = session->graph->changed_ops.size();
    changed = session->graph->changed_ops;
  }
  std::lock_guard<std::mutex> lock(session->mu);
  const size_t seen = session->graph_changes.load();
  if (seen >= changes) return;
  for (size_t i = seen; i < changes; ++i) session->kernels.Retire(changed[i]);
  for (auto& [key, plan] : session->plans) session->retired_plans.push_back(std::move(plan));
  session->plans.clear();
  session->graph_changes.store(changes, std::memory_order_release);
}

// The plan cache key of one signature: the outputs' addresses and indices.
void AppendKey(std::string* key, const void* op, int index) {
  key->append(reinterpret_cast<const char*>(&op), sizeof(op));
  key->append(reinterpret_cast<const char*>(&index), sizeof(index));
}

}  // namespace

extern "C" {

TF_SessionOptions* TF_NewSessionOptions(void) { return new TF_SessionOptions(); }

void TF_SetTarget(TF_SessionOptions* options, const char* target) {
  options->target = target ? target : "";
}

void TF_SetConfig(TF_SessionOptions* options, const void* proto, size_t proto_len,
                  TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"options", options}}) ||
      (proto_len > 0 && !opgen::CheckNotNull(status, __func__, {{"proto", proto}})))
    return;
  std::string bytes(static_cast<const char*>(proto), proto_len);
  if (!IsWellFormedMessage(bytes)) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT, "Unparseable ConfigProto");
    return;
  }
  options->config = std::move(bytes);
  opgen::ClearStatus(status);
}

void TF_DeleteSessionOptions(TF_SessionOptions* options) { delete options; }

TF_Session* TF_NewSession(TF_Graph* graph, const TF_SessionOptions* opts, TF_Status* status) {
  if (!opgen::EnsureRuntimeInitialized(status)) return nullptr;
  if (graph == nullptr) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT, "TF_NewSession: graph is NULL");
    return nullptr;
  }
  if (opts != nullptr && !opts->target.empty() && opts->target != "local") {
    opgen::SetStatus(status, TF_UNIMPLEMENTED,
                     "Only in-process sessions are supported; target '" + opts->target + "'");
    return nullptr;
  }
  auto* session = new TF_Session();
  session->graph = graph;
  if (opts != nullptr) session->config = opts->config;
  session->optimizer = opgen::ParseOptimizerConfig(session->config);
  session->intra_op_threads = opgen::ParseIntraOpThreads(session->config);
  if (opts != nullptr && opts->graph_optimizer >= 0) session->optimizer.enabled = opts->graph_optimizer;
  {
    std::lock_guard<std::mutex> lock(graph->mu);
    ++graph->sessions;
    session->graph_changes.store(graph->changed_ops.size());
  }
  opgen::ClearStatus(status);
  return session;
}

// Closing makes later runs fail with FAILED_PRECONDITION and returns once the runs in
// flight (other threads') have finished, so deleting the session afterwards is safe.
void TF_CloseSession(TF_Session* session, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"session", session}})) return;
  CloseAndDrain(session);
  opgen::ClearStatus(status);
}

// Waits for the runs in flight as TF_CloseSession does, then frees the session (and the
// graph, where TF_DeleteGraph was called and this was its last session). Calling
// TF_SessionRun with a session already deleted remains the caller's error.
void TF_DeleteSession(TF_Session* session, TF_Status* status) {
  opgen::ClearStatus(status);
  if (session == nullptr) return;
  CloseAndDrain(session);
  TF_Graph* graph = session->graph;
  delete session;
  opgen::ReleaseGraphSession(graph);
}

void TF_SessionRun(TF_Session* session, const TF_Buffer* run_options, const TF_Output* inputs,
                   TF_Tensor* const* input_values, int ninputs, const TF_Output* outputs,
                   TF_Tensor** output_values, int noutputs,
                   const TF_Operation* const* target_opers, int ntargets,
                   TF_Buffer* run_metadata, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__,
                           {{"session", session},
                            {"inputs", opgen::ArrayArg(inputs, ninputs)},
                            {"input_values", opgen::ArrayArg(input_values, ninputs)},
                            {"outputs", opgen::ArrayArg(outputs, noutputs)},
                            {"output_values", opgen::ArrayArg(output_values, noutputs)},
                            {"target_opers", opgen::ArrayArg(target_opers, ntargets)}}))
    return;
  for (int i = 0; i < noutputs; ++i) output_values[i] = nullptr;
  RunGuard in_flight(session);
  if (!in_flight.ok()) {
    opgen::SetStatus(status, TF_FAILED_PRECONDITION, "Attempted to use a closed Session.");
    return;
  }
  try {
    thread_local std::string key;
    key.clear();
    for (int i = 0; i < ninputs; ++i) AppendKey(&key, inputs[i].oper, inputs[i].index);
    AppendKey(&key, nullptr, -1);
    for (int i = 0; i < noutputs; ++i) AppendKey(&key, outputs[i].oper, outputs[i].index);
    AppendKey(&key, nullptr, -1);
    for (int i = 0; i < ntargets; ++i) AppendKey(&key, target_opers[i], 0);

    if (session->graph->changes.load(std::memory_order_acquire) !=
        session->graph_changes.load(std::memory_order_acquire))
      CatchUpWithGraph(session);
    const opgen::ExecutionPlan* plan = nullptr;
    {
      std::lock_guard<std::mutex> lock(session->mu);
      auto it = session->plans.find(key);
      if (it != session->plans.end()) plan = it->second.get();
    }
    if (plan == nullptr) {
      std::unique_ptr<opgen::ExecutionPlan> built = opgen::BuildSessionPlan(
          session->graph, session->optimizer, inputs, ninputs, outputs, noutputs, target_opers,
          ntargets, &session->kernels, &session->optimized, status);
      if (built == nullptr) return;
      std::lock_guard<std::mutex> lock(session->mu);
      // Another thread may have built the same plan meanwhile; keep the first.
      plan = session->plans.emplace(key, std::move(built)).first->second.get();
    }
    opgen::cpu::ScopedIntraOpThreadLimit threads(session->intra_op_threads);
    plan->Run(input_values, output_values, status);
    if (status->code == TF_OK && run_metadata != nullptr) {
      // An empty RunMetadata: the runtime collects no step stats.
      if (run_metadata->data_deallocator)
        run_metadata->data_deallocator(const_cast<void*>(run_metadata->data),
                                       run_metadata->length);
      run_metadata->data = nullptr;
      run_metadata->length = 0;
      run_metadata->data_deallocator = nullptr;
    }
  } catch (const std::exception& e) {
    for (int i = 0; i < noutputs; ++i) {
      delete output_values[i];
      output_values[i] = nullptr;
    }
    opgen::SetStatus(status, TF_INTERNAL, e.what());
  }
}

void OPGEN_SetGraphOptimizer(TF_SessionOptions* options, int enabled) {
  if (options != nullptr) options->graph_optimizer = enabled ? 1 : 0;
}

void OPGEN_SessionOptimizedGraphDef(TF_Session* session, const TF_Output* inputs, int ninputs,
                                    const TF_Output* outputs, int noutputs,
                                    const TF_Operation* const* target_opers, int ntargets,
                                    TF_Buffer* output_graph_def, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__,
                           {{"session", session},
                            {"inputs", opgen::ArrayArg(inputs, ninputs)},
                            {"outputs", opgen::ArrayArg(outputs, noutputs)},
                            {"target_opers", opgen::ArrayArg(target_opers, ntargets)},
                            {"output_graph_def", output_graph_def}}))
    return;
  RunGuard in_flight(session);
  if (!in_flight.ok()) {
    opgen::SetStatus(status, TF_FAILED_PRECONDITION, "Attempted to use a closed Session.");
    return;
  }
  opgen::OptimizerReport report;
  opgen::GraphPtr copy =
      opgen::OptimizeGraph(session->graph, inputs, ninputs, outputs, noutputs, target_opers,
                           ntargets, session->optimizer, &report);
  if (copy == nullptr) {  // what the session runs then: the graph as given
    TF_GraphToGraphDef(session->graph, output_graph_def, status);
    return;
  }
  TF_GraphToGraphDef(copy.get(), output_graph_def, status);
}

}  // extern "C"
