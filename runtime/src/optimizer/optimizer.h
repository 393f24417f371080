// The session-time graph optimizer: for one (feeds, fetches, targets) signature it makes
// an optimized copy of what the signature runs (prune.cc), then rewrites it pass by pass
// (one file each): identities dropped (identity_removal.cc), constant subgraphs
// evaluated once (constant_folding.cc), a constant Mul/Add/BatchNorm folded into the
// preceding convolution or MatMul (arithmetic.cc), and convolution / MatMul + bias +
// activation fused into one internal op (remapper.cc). Fed and fetched outputs keep
// their names and values; results stay within float rounding of the original graph.
#pragma once

#include <memory>
#include <string>

#include "../graph.h"

namespace opgen {

// Which passes run. TensorFlow users turn Grappler off through the session's
// ConfigProto; the same settings turn these off (see ParseOptimizerConfig).
struct OptimizerOptions {
  bool enabled = true;           // false: the session runs the graph as given
  bool constant_folding = true;  // RewriterConfig.constant_folding
  bool arithmetic = true;        // RewriterConfig.arithmetic_optimization
  bool remapping = true;         // RewriterConfig.remapping
  bool identity_removal = true;  // RewriterConfig.dependency_optimization
  bool log = false;              // pass counts to stderr (OPGEN_LOG_OPTIMIZER=1)
};

// The options a session starts with: everything on unless the environment says
// OPGEN_GRAPH_OPTIMIZER=0 (off) or the serialized ConfigProto `config` turns Grappler
// off (graph_options.optimizer_options.opt_level = L0, or
// graph_options.rewrite_options.disable_meta_optimizer) or single passes off
// (rewrite_options.constant_folding / arithmetic_optimization / remapping /
// dependency_optimization = OFF).
OptimizerOptions ParseOptimizerConfig(const std::string& config);

// The serialized ConfigProto's intra_op_parallelism_threads (0 when unset or not
// positive): how many threads the session's kernels may use (../kernels/cpu/
// thread_limit.h). config.cc reads it with the optimizer's switches.
int64_t ParseIntraOpThreads(const std::string& config);

// What the passes did, for the log and the tests.
struct OptimizerReport {
  int nodes_before = 0, nodes_after = 0;
  int identities_removed = 0;
  int nodes_folded = 0;         // nodes replaced by constants
  int arithmetic_folded = 0;    // Mul/Add/BiasAdd/Sub/BatchNorm folded into a convolution
  int pads_folded = 0;          // Pads become a convolution's explicit padding
  int fused = 0;                // _OpgenFused* nodes made
  int duplicates_merged = 0;    // activations of one tensor merged into one
  std::string ToString() const;
};

// A TF_Graph the optimizer made; deleted with TF_DeleteGraph.
struct GraphDeleter {
  void operator()(TF_Graph* graph) const;
};
using GraphPtr = std::unique_ptr<TF_Graph, GraphDeleter>;

// The optimized copy of what `graph` runs for the signature, or nullptr when there is
// nothing to optimize or the signature cannot be optimized (a bad signature, a cycle,
// v1 control flow frames, a fed node with several outputs): the caller then runs the
// original graph, which reports any error itself. With `options.enabled` false the copy
// is only pruned (what optimized_graph_def shows for a session with the optimizer off).
GraphPtr OptimizeGraph(TF_Graph* graph, const TF_Output* feeds, int num_feeds,
                       const TF_Output* fetches, int num_fetches,
                       const TF_Operation* const* targets, int num_targets,
                       const OptimizerOptions& options, OptimizerReport* report);

}  // namespace opgen
