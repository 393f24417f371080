// How a session plans a signature with the optimizer: the optimized copy of the graph,
// kept alive as long as the session (its kernels point into it), and the plan built on
// it; the original graph when the optimizer is off or declines.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "../executor.h"
#include "optimizer.h"

namespace opgen {

// The optimized graphs a session's plans run; declared before the session's kernels so
// it outlives them.
class OptimizedGraphs {
 public:
  TF_Graph* Keep(GraphPtr graph);

 private:
  std::mutex mu_;
  std::vector<GraphPtr> graphs_;
};

std::unique_ptr<ExecutionPlan> BuildSessionPlan(TF_Graph* graph, const OptimizerOptions& options,
                                                const TF_Output* feeds, int num_feeds,
                                                const TF_Output* fetches, int num_fetches,
                                                const TF_Operation* const* targets,
                                                int num_targets, SessionKernels* kernels,
                                                OptimizedGraphs* optimized, TF_Status* status);

}  // namespace opgen
