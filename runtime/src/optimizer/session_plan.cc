// Plans on the optimized graph: the signature's outputs and targets are found there by
// name (the optimizer keeps fed, fetched and target nodes' names).
#include "session_plan.h"

#include <cstdio>

namespace opgen {

TF_Graph* OptimizedGraphs::Keep(GraphPtr graph) {
  std::lock_guard<std::mutex> lock(mu_);
  graphs_.push_back(std::move(graph));
  return graphs_.back().get();
}

namespace {

bool MapOutputs(const TF_Graph* g, const TF_Output* in, int n, std::vector<TF_Output>* out) {
  for (int i = 0; i < n; ++i) {
    auto it = g->by_name.find(in[i].oper->name);
    if (it == g->by_name.end()) return false;
    out->push_back(TF_Output{it->second, in[i].index});
  }
  return true;
}

}  // namespace

std::unique_ptr<ExecutionPlan> BuildSessionPlan(TF_Graph* graph, const OptimizerOptions& options,
                                                const TF_Output* feeds, int num_feeds,
                                                const TF_Output* fetches, int num_fetches,
                                                const TF_Operation* const* targets,
                                                int num_targets, SessionKernels* kernels,
                                                OptimizedGraphs* optimized, TF_Status* status) {
  if (options.enabled) {
    OptimizerReport report;
    GraphPtr copy = OptimizeGraph(graph, feeds, num_feeds, fetches, num_fetches, targets,
                                  num_targets, options, &report);
    std::vector<TF_Output> new_feeds, new_fetches;
    std::vector<const TF_Operation*> new_targets;
    bool mapped = copy != nullptr && MapOutputs(copy.get(), feeds, num_feeds, &new_feeds) &&
                  MapOutputs(copy.get(), fetches, num_fetches, &new_fetches);
    for (int i = 0; mapped && i < num_targets; ++i) {
      auto it = copy->by_name.find(targets[i]->name);
      mapped = it != copy->by_name.end();
      if (mapped) new_targets.push_back(it->second);
    }
    if (mapped) {
      std::unique_ptr<ExecutionPlan> plan = ExecutionPlan::Build(
          copy.get(), new_feeds.data(), num_feeds, new_fetches.data(), num_fetches,
          new_targets.data(), num_targets, kernels, status);
      if (plan != nullptr) {
        if (options.log) fprintf(stderr, "%s\n", report.ToString().c_str());
        optimized->Keep(std::move(copy));
        return plan;
      }
      if (options.log)
        fprintf(stderr, "opgen graph optimizer: the optimized graph cannot run (%s); running "
                        "the graph as given\n", status->message.c_str());
    }
    // Kernels made for the copy's nodes stay cached but unused: keep the copy alive.
    if (copy != nullptr) optimized->Keep(std::move(copy));
  }
  return ExecutionPlan::Build(graph, feeds, num_feeds, fetches, num_fetches, targets, num_targets,
                              kernels, status);
}

}  // namespace opgen
