// The structs behind TF_Graph and TF_Operation, and the one function that adds a node
// (used by TF_FinishOperation and the GraphDef importer alike).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core_types.h"
#include "function_library.h"
#include "op_def.h"
#include "tensorflow/c/c_api.h"
#include "wire_format.h"

// One node. Everything but `consumers`, `control_outputs` and `output_shapes` is fixed
// once the node is in the graph; those three change under the graph's mutex. The one
// exception is opgen::ExtendNodeLocked (a While given its gradient's accumulators).
struct TF_Operation {
  TF_Graph* graph = nullptr;
  std::string name;
  std::string device;
  const opgen::OpDef* op_def = nullptr;  // registry data; never freed
  opgen::AttrMap attrs;                  // complete: OpDef attrs plus any "_" attrs
  std::vector<TF_Output> inputs;         // flattened over input args
  std::vector<int> input_arg_lengths;    // tensors per input arg
  std::vector<TF_DataType> output_types; // flattened over output args
  std::vector<int> output_arg_lengths;
  std::vector<TF_Operation*> control_inputs;

  std::vector<opgen::Shape> output_shapes;
  std::vector<std::vector<TF_Input>> consumers;  // per output
  std::vector<TF_Operation*> control_outputs;

  const std::string& type() const { return op_def->name; }
};

namespace opgen {

// A node as it was before ExtendNodeLocked changed it, and where the nodes that call
// moved in front of it stood: what RollBackGraphLocked needs to put it all back.
struct NodeRewrite {
  TF_Operation* op = nullptr;
  AttrMap attrs;
  size_t num_inputs = 0;
  std::vector<int> input_arg_lengths;
  std::vector<TF_DataType> output_types;
  std::vector<int> output_arg_lengths;
  std::vector<Shape> output_shapes;
  size_t at = 0;                   // the node's index before the move
  std::vector<size_t> moved_from;  // the moved nodes' indices before it, ascending
};

}  // namespace opgen

struct TF_Graph {
  mutable std::mutex mu;
  std::vector<std::unique_ptr<TF_Operation>> ops;  // in the order they were added
  std::unordered_map<std::string, TF_Operation*> by_name;
  // TF_DeleteGraph while sessions hold the graph defers the delete to the last session.
  int sessions = 0;
  bool delete_requested = false;
  // The functions nodes may call (by op type, or through a func attr), from imported
  // GraphDefs and TF_GraphCopyFunction; written back by TF_GraphToGraphDef.
  opgen::FunctionLibrary functions;
  // A TF_NewWhile cond graph: the graph the loop goes into, and the loop's inputs there.
  TF_Graph* while_parent = nullptr;
  std::vector<TF_Output> while_inputs;
  // Nodes changed in place (ExtendNodeLocked and its roll-back), in order: a session
  // that planned before change i drops its plans and the kernels of changed_ops[i..].
  // `changes` mirrors changed_ops.size() for a lock-free check on every run.
  std::vector<TF_Operation*> changed_ops;
  std::atomic<uint64_t> changes{0};
  std::vector<opgen::NodeRewrite> rewrites;  // undo records, oldest first
};

namespace opgen {

// A node before it is checked: what TF_OperationDescription and a NodeDef both carry.
struct NodeSpec {
  std::string name;
  std::string op_type;
  std::string device;
  AttrMap attrs;
  std::vector<std::vector<TF_Output>> input_groups;  // one per input arg
  std::vector<TF_Operation*> control_inputs;
  // Imported NodeDefs may carry attrs this OpDef lacks (written by a newer producer);
  // as TensorFlow does, they are then kept unchecked instead of refused.
  bool keep_unknown_attrs = false;
};

// The OpDef of a node type in `graph`: a registered op's, or the signature of a function
// in the graph's library; nullptr for neither. The caller holds graph->mu.
const OpDef* FindOpDefLocked(const TF_Graph* graph, const std::string& type);

// Checks `spec` against its OpDef and the graph and adds it; the caller holds graph->mu.
// Returns the node or nullptr with `status` set (the graph is then unchanged).
TF_Operation* AddNodeLocked(TF_Graph* graph, NodeSpec spec, TF_Status* status);

// Removes the nodes added after the first `keep` (and the edges into older nodes);
// the caller holds graph->mu. Used to undo a failed import.
void TruncateGraphLocked(TF_Graph* graph, size_t keep);

// Makes data input `index` of `op` read `source` (same dtype, checked by the caller),
// keeping the consumer lists right; the caller holds graph->mu. A while loop's
// NextIteration -> Merge edge is added this way, after both nodes exist.
void ReplaceInputLocked(TF_Operation* op, int index, TF_Output source);

// Gives node `op` the attrs `attrs` (its OpDef's, checked as a new node's are) and appends
// `extra` to its last input arg, which must be a list: its outputs are derived again, the
// existing ones keeping their dtypes, shapes and consumers. Producers of `extra` added
// after `op` (and their own such producers) move in front of it, so the node order stays
// topological; they must not depend on `op`. Sessions of the graph plan again on their
// next run. Internal: the C API has no way to change a node. False with `status` set and
// nothing changed on failure. The caller holds graph->mu.
bool ExtendNodeLocked(TF_Operation* op, AttrMap attrs, const std::vector<TF_Output>& extra,
                      TF_Status* status);

// A point in a graph's history that RollBackGraphLocked returns to: nodes added and
// nodes changed since are undone (a failed TF_AddGradients).
struct GraphMark {
  size_t ops = 0;
  size_t rewrites = 0;
};
GraphMark MarkGraphLocked(const TF_Graph* graph);
void RollBackGraphLocked(TF_Graph* graph, const GraphMark& mark);

// The node as a NodeDef: inputs as "name", "name:i" and "^name".
NodeDefProto ToNodeDef(const TF_Operation& op);

// Adds `gd`'s nodes to `graph` as TF_GraphImportGraphDef with default options would,
// from the parsed message (the optimizer's result: no bytes written and read back, and
// tensor attrs shared, not copied). graph_def_import.cc.
bool ImportGraphDefProto(TF_Graph* graph, const GraphDefProto& gd, TF_Status* status);

// "name" for output 0, else "name:index", as NodeDef inputs spell them.
std::string OutputName(const TF_Output& output);

// Drops one session's hold on the graph (TF_DeleteSession); frees the graph when that
// was the last hold and TF_DeleteGraph was called.
void ReleaseGraphSession(TF_Graph* graph);

}  // namespace opgen
