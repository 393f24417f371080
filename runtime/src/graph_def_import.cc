// GraphDefs in and out: TF_GraphToGraphDef and TF_GraphImportGraphDef* with their
// options and results. Imported nodes may come in any order; they are added in
// dependency order, and a failed import leaves the graph as it was.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "device_name.h"
#include "opgen/c_api_ext.h"
#include "graph.h"
#include "op_registry.h"

struct TF_ImportGraphDefOptions {
  std::string prefix;
  std::string default_device;
  std::map<std::pair<std::string, int>, TF_Output> input_mapping;
  std::map<std::string, TF_Operation*> control_remapping;
  std::vector<TF_Operation*> control_dependencies;
  std::vector<std::pair<std::string, int>> return_outputs;
  std::vector<std::string> return_operations;
  bool check_devices = false;  // OPGEN_ImportGraphDefOptionsSetCheckDevices
};

struct TF_ImportGraphDefResults {
  std::vector<TF_Output> return_outputs;
  std::vector<TF_Operation*> return_operations;
  std::vector<std::string> missing_names;  // unused input mappings
  std::vector<const char*> missing_name_ptrs;
  std::vector<int> missing_indexes;
};

namespace opgen {
namespace {

// TensorFlow 2.21's GraphDef version, written into the graphs the runtime produces and
// the consumer version imported GraphDefs are checked against; the oldest producer
// TensorFlow 2.21 reads is 0.
constexpr int32_t kGraphDefProducer = 2474;
constexpr int32_t kGraphDefMinProducer = 0;

// TensorFlow's CheckVersions for a GraphDef's VersionDef: a producer older than the
// oldest supported, a min_consumer newer than this consumer, or this consumer listed
// in bad_consumers. (A producer below min_consumer is allowed, as TensorFlow does.)
bool CheckVersions(const GraphDefProto& gd, TF_Status* status) {
  std::string error;
  if (gd.producer < kGraphDefMinProducer) {
    error = "GraphDef producer version " + std::to_string(gd.producer) + " below min producer " +
            std::to_string(kGraphDefMinProducer) + " supported by this runtime (TensorFlow 2.21)";
  } else if (gd.min_consumer > kGraphDefProducer) {
    error = "GraphDef min consumer version " + std::to_string(gd.min_consumer) +
            " above current version " + std::to_string(kGraphDefProducer) +
            " of this runtime (TensorFlow 2.21)";
  } else if (std::find(gd.bad_consumers.begin(), gd.bad_consumers.end(), kGraphDefProducer) !=
             gd.bad_consumers.end()) {
    error = "GraphDef disallows consumer version " + std::to_string(kGraphDefProducer) +
            " (versions.bad_consumers), the version of this runtime";
  }
  if (error.empty()) return true;
  SetStatus(status, TF_INVALID_ARGUMENT, error);
  return false;
}

// The FunctionDefLibrary must parse and, as in TensorFlow, no function may take the
// name of an op or of a different function (in the library or already in the graph).
// On success the graph holds the merged library.
bool ImportFunctionLibrary(TF_Graph* graph, const std::string& library, TF_Status* status) {
  if (library.empty()) return true;
  FunctionLibrary parsed;
  std::string error;
  if (!ParseFunctionLibrary(library, &parsed, &error, status)) {
    if (!error.empty()) SetStatus(status, TF_INVALID_ARGUMENT, "Invalid GraphDef: " + error);
    return false;
  }
  return graph->functions.Merge(parsed, status);
}

// What TensorFlow's importer checks of one NodeDef before its inputs: every OpDef attr
// without a default present (TF_FinishOperation infers a missing type attr from the
// inputs; a GraphDef must carry it), and where asked (as tf.import_graph_def does) a
// parseable device. Attrs the OpDef lacks are kept unchecked, as TensorFlow 2.21
// ignores them (docs/architecture.md, "Bad input").
bool CheckNodeDef(const NodeDefProto& node, const OpDef& def, bool check_device, TF_Status* status) {
  std::string why;
  if (check_device && !IsValidDeviceSpec(node.device, &why)) {
    SetStatus(status, TF_INVALID_ARGUMENT,
              "Node '" + node.name + "' (" + node.op + "): malformed device '" + node.device +
                  "': " + why);
    return false;
  }
  for (const AttrDef& attr : def.attr) {
    if (attr.has_default || node.attr.count(attr.name)) continue;
    SetStatus(status, TF_INVALID_ARGUMENT,
              "Node '" + node.name + "' (" + node.op + "): NodeDef missing attr '" + attr.name +
                  "' (" + attr.type + ", no default in the OpDef)");
    return false;
  }
  return true;
}

// "x" -> (x, 0), "x:2" -> (x, 2), "^x" -> (x, -1).
bool ParseInputName(const std::string& input, std::string* node, int* index) {
  if (!input.empty() && input[0] == '^') {
    *node = input.substr(1);
    *index = -1;
    return !node->empty();
  }
  size_t colon = input.rfind(':');
  if (colon == std::string::npos) {
    *node = input;
    *index = 0;
    return !node->empty();
  }
  const std::string digits = input.substr(colon + 1);
  if (digits.empty() || digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  *node = input.substr(0, colon);
  *index = std::atoi(digits.c_str());
  return !node->empty();
}

// Tensors per input arg of `def` as the node's attrs say, or -1 with a reason.
std::vector<int> InputArgLengths(const OpDef& def, const AttrMap& attrs, std::string* error) {
  std::vector<int> lengths;
  for (const ArgDef& arg : def.input_arg) {
    if (!arg.number_attr.empty()) {
      auto it = attrs.find(arg.number_attr);
      if (it == attrs.end() || it->second.kind != AttrValue::kInt) {
        *error = "attr '" + arg.number_attr + "' (the length of input '" + arg.name +
                 "') is missing";
        return {};
      }
      // The NodeDef's own inputs bound a sane length; anything else cannot match them.
      if (it->second.i < 0 || it->second.i > std::numeric_limits<int>::max()) {
        *error = "attr '" + arg.number_attr + "' (the length of input '" + arg.name +
                 "') is " + std::to_string(it->second.i);
        return {};
      }
      lengths.push_back(static_cast<int>(it->second.i));
    } else if (!arg.type_list_attr.empty()) {
      auto it = attrs.find(arg.type_list_attr);
      if (it == attrs.end() || !it->second.IsList()) {
        *error = "attr '" + arg.type_list_attr + "' (the types of input '" + arg.name +
                 "') is missing";
        return {};
      }
      lengths.push_back(static_cast<int>(it->second.ListSize()));
    } else {
      lengths.push_back(1);
    }
  }
  return lengths;
}

struct ParsedInput {
  std::string node;
  int index;  // -1: control input
};

// Adds the nodes of `gd` to `graph` (whose mutex the caller holds). On failure removes
// what it added and returns false.
bool ImportLocked(TF_Graph* graph, const GraphDefProto& gd, const TF_ImportGraphDefOptions& opts,
                  TF_ImportGraphDefResults* results, TF_Status* status) {
  if (!CheckVersions(gd, status)) return false;
  const size_t n = gd.node.size();
  std::unordered_map<std::string, size_t> index_of;
  for (size_t i = 0; i < n; ++i) {
    if (!index_of.emplace(gd.node[i].name, i).second) {
      SetStatus(status, TF_INVALID_ARGUMENT,
                "GraphDef has two nodes named '" + gd.node[i].name + "'");
      return false;
    }
  }
  // Inputs and dependency edges (producer -> consumer within the GraphDef).
  std::vector<std::vector<ParsedInput>> inputs(n);
  std::vector<std::vector<size_t>> dependents(n);
  std::vector<int> pending(n, 0);
  std::set<std::pair<std::string, int>> used_mappings;
  for (size_t i = 0; i < n; ++i) {
    const NodeDefProto& node = gd.node[i];
    for (const std::string& input : node.input) {
      ParsedInput in;
      if (!ParseInputName(input, &in.node, &in.index)) {
        SetStatus(status, TF_INVALID_ARGUMENT,
                  "Node '" + node.name + "': malformed input '" + input + "'");
        return false;
      }
      inputs[i].push_back(in);
      bool mapped = in.index >= 0 ? opts.input_mapping.count({in.node, in.index}) > 0
                                  : opts.control_remapping.count(in.node) > 0;
      if (mapped) {
        if (in.index >= 0) used_mappings.insert({in.node, in.index});
        continue;
      }
      auto producer = index_of.find(in.node);
      if (producer == index_of.end()) {
        SetStatus(status, TF_INVALID_ARGUMENT,
                  "Node '" + node.name + "': Unknown input node '" + input + "'");
        return false;
      }
      // A while loop's back edge (NextIteration -> Merge) is the one cycle a GraphDef
      // may hold, as in TensorFlow's importer: the Merge is added first, the edge last.
      if (in.index >= 0 && node.op == "Merge" && gd.node[producer->second].op == "NextIteration")
        continue;
      dependents[producer->second].push_back(i);
      ++pending[i];
    }
  }
  // Kahn's algorithm, keeping the GraphDef's order among ready nodes.
  std::vector<size_t> order;
  std::deque<size_t> ready;
  for (size_t i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push_back(i);
  while (!ready.empty()) {
    size_t i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (size_t d : dependents[i])
      if (--pending[d] == 0) ready.push_back(d);
  }
  if (order.size() != n) {
    std::string in_cycle;
    for (size_t i = 0; i < n && in_cycle.empty(); ++i)
      if (pending[i] > 0) in_cycle = gd.node[i].name;
    SetStatus(status, TF_INVALID_ARGUMENT,
              "GraphDef has a cycle: node '" + in_cycle + "' depends on itself");
    return false;
  }

  FunctionLibrary functions_before = graph->functions;
  if (!ImportFunctionLibrary(graph, gd.library, status)) return false;
  const size_t keep = graph->ops.size();
  std::vector<TF_Operation*> created(n, nullptr);
  struct BackEdge {
    size_t merge;
    int input;  // the Merge's data input
    size_t source;
    int index;
  };
  std::vector<BackEdge> back_edges;
  auto fail = [&] {
    TruncateGraphLocked(graph, keep);
    graph->functions = functions_before;
    return false;
  };
  for (size_t i : order) {
    const NodeDefProto& node = gd.node[i];
    NodeSpec spec;
    spec.name = opts.prefix.empty() ? node.name : opts.prefix + "/" + node.name;
    spec.op_type = node.op;
    spec.device = node.device.empty() ? opts.default_device : node.device;
    spec.attrs = node.attr;
    spec.keep_unknown_attrs = true;
    std::vector<TF_Output> data;
    for (const ParsedInput& in : inputs[i]) {
      if (in.index < 0) {
        auto remap = opts.control_remapping.find(in.node);
        spec.control_inputs.push_back(remap != opts.control_remapping.end()
                                          ? remap->second
                                          : created[index_of.at(in.node)]);
        continue;
      }
      auto mapped = opts.input_mapping.find({in.node, in.index});
      const size_t source = mapped != opts.input_mapping.end() ? n : index_of.at(in.node);
      if (source < n && created[source] == nullptr) {  // a back edge: patched in below
        back_edges.push_back(BackEdge{i, static_cast<int>(data.size()), source, in.index});
        data.push_back(TF_Output{nullptr, 0});
        continue;
      }
      data.push_back(source == n ? mapped->second : TF_Output{created[source], in.index});
    }
    // Until its back edges are added, a Merge reads its first forward input there.
    if (!back_edges.empty() && back_edges.back().merge == i) {
      TF_Output stand_in{nullptr, 0};
      for (const TF_Output& d : data)
        if (d.oper != nullptr) stand_in = d;
      if (stand_in.oper == nullptr) {
        SetStatus(status, TF_INVALID_ARGUMENT,
                  "Merge node '" + node.name +
                      "' has only NextIteration inputs: no value can ever enter its loop");
        return fail();
      }
      for (TF_Output& d : data)
        if (d.oper == nullptr) d = stand_in;
    }
    if (node.input.empty())
      spec.control_inputs.insert(spec.control_inputs.end(), opts.control_dependencies.begin(),
                                 opts.control_dependencies.end());
    const OpDef* def = FindOpDefLocked(graph, node.op);
    if (def == nullptr) {
      SetStatus(status, TF_NOT_FOUND,
                OpNotRegisteredMessage(node.op, node.name));
      return fail();
    }
    if (!CheckNodeDef(node, *def, opts.check_devices, status)) return fail();
    std::string error;
    std::vector<int> lengths = InputArgLengths(*def, spec.attrs, &error);
    size_t expected = 0;
    for (int l : lengths) expected += static_cast<size_t>(l);
    if (error.empty() && expected != data.size())
      error = "expects " + std::to_string(expected) + " data inputs, the NodeDef has " +
              std::to_string(data.size());
    if (!error.empty()) {
      SetStatus(status, TF_INVALID_ARGUMENT,
                "Node '" + node.name + "' (" + node.op + "): " + error);
      return fail();
    }
    size_t next = 0;
    for (int l : lengths) {
      spec.input_groups.emplace_back(data.begin() + next, data.begin() + next + l);
      next += l;
    }
    created[i] = AddNodeLocked(graph, std::move(spec), status);
    if (created[i] == nullptr) return fail();
  }

  for (const auto& [name, index] : opts.return_outputs) {
    auto it = index_of.find(name);
    if (it == index_of.end() || index < 0 ||
        index >= static_cast<int>(created[it->second]->output_types.size())) {
      SetStatus(status, TF_INVALID_ARGUMENT,
                "Requested return output '" + name + ":" + std::to_string(index) +
                    "' is not in the GraphDef");
      return fail();
    }
    results->return_outputs.push_back(TF_Output{created[it->second], index});
  }
  for (const std::string& name : opts.return_operations) {
    auto it = index_of.find(name);
    if (it == index_of.end()) {
      SetStatus(status, TF_INVALID_ARGUMENT,
                "Requested return operation '" + name + "' is not in the GraphDef");
      return fail();
    }
    results->return_operations.push_back(created[it->second]);
  }
  for (const BackEdge& e : back_edges) {
    const TF_Operation* merge = created[e.merge];
    const TF_Operation* source = created[e.source];
    if (e.index >= static_cast<int>(source->output_types.size()) ||
        source->output_types[e.index] != merge->output_types[0]) {
      SetStatus(status, TF_INVALID_ARGUMENT,
                "Merge node '" + gd.node[e.merge].name + "': input " + std::to_string(e.input) +
                    " ('" + gd.node[e.source].name + ":" + std::to_string(e.index) +
                    "') does not exist or has another dtype than the Merge's other inputs");
      return fail();
    }
  }
  // Nothing fails past this point: a removed node must not be left as a Merge's input.
  for (const BackEdge& e : back_edges)
    ReplaceInputLocked(created[e.merge], e.input, TF_Output{created[e.source], e.index});
  for (const auto& [key, dst] : opts.input_mapping) {
    if (used_mappings.count(key)) continue;
    results->missing_names.push_back(key.first);
    results->missing_indexes.push_back(key.second);
  }
  for (const std::string& s : results->missing_names)
    results->missing_name_ptrs.push_back(s.c_str());
  ClearStatus(status);
  return true;
}

TF_ImportGraphDefResults* Import(TF_Graph* graph, const TF_Buffer* graph_def,
                                 const TF_ImportGraphDefOptions* options, TF_Status* status) {
  if (!CheckNotNull(status, "TF_GraphImportGraphDef", {{"graph", graph}, {"graph_def", graph_def}}) ||
      !EnsureRuntimeInitialized(status))
    return nullptr;
  if (graph_def->data == nullptr && graph_def->length > 0) {
    SetStatus(status, TF_INVALID_ARGUMENT, "TF_GraphImportGraphDef: graph_def->data is NULL");
    return nullptr;
  }
  GraphDefProto gd;
  std::string error;
  // Read in place: the parsed nodes copy what they keep (a model's weights once).
  const std::string_view bytes(static_cast<const char*>(graph_def->data), graph_def->length);
  if (!ParseGraphDef(bytes, &gd, &error)) {
    SetStatus(status, TF_INVALID_ARGUMENT, "Invalid GraphDef: " + error);
    return nullptr;
  }
  TF_ImportGraphDefOptions defaults;
  auto results = std::make_unique<TF_ImportGraphDefResults>();
  std::lock_guard<std::mutex> lock(graph->mu);
  if (!ImportLocked(graph, gd, options ? *options : defaults, results.get(), status))
    return nullptr;
  return results.release();
}

}  // namespace

bool ImportGraphDefProto(TF_Graph* graph, const GraphDefProto& gd, TF_Status* status) {
  if (!EnsureRuntimeInitialized(status)) return false;
  TF_ImportGraphDefOptions defaults;
  TF_ImportGraphDefResults results;
  std::lock_guard<std::mutex> lock(graph->mu);
  return ImportLocked(graph, gd, defaults, &results, status);
}

}  // namespace opgen

extern "C" {

void TF_GraphToGraphDef(TF_Graph* graph, TF_Buffer* output_graph_def, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"graph", graph}, {"output_graph_def", output_graph_def}}))
    return;
  try {
    opgen::GraphDefProto gd;
    gd.producer = opgen::kGraphDefProducer;
    {
      std::lock_guard<std::mutex> lock(graph->mu);
      for (const auto& op : graph->ops) gd.node.push_back(opgen::ToNodeDef(*op));
      if (!graph->functions.empty()) gd.library = graph->functions.Serialize();
    }
    std::string bytes = opgen::SerializeGraphDef(gd);
    if (output_graph_def->data_deallocator)
      output_graph_def->data_deallocator(const_cast<void*>(output_graph_def->data),
                                         output_graph_def->length);
    void* copy = std::malloc(bytes.size() ? bytes.size() : 1);
    std::memcpy(copy, bytes.data(), bytes.size());
    output_graph_def->data = copy;
    output_graph_def->length = bytes.size();
    output_graph_def->data_deallocator = [](void* data, size_t) { std::free(data); };
    opgen::ClearStatus(status);
  } catch (const std::exception& e) {
    opgen::SetStatus(status, TF_INTERNAL, e.what());
  }
}

TF_ImportGraphDefOptions* TF_NewImportGraphDefOptions(void) {
  return new TF_ImportGraphDefOptions();
}
void TF_DeleteImportGraphDefOptions(TF_ImportGraphDefOptions* opts) { delete opts; }

void TF_ImportGraphDefOptionsSetPrefix(TF_ImportGraphDefOptions* opts, const char* prefix) {
  opts->prefix = prefix ? prefix : "";
}

void TF_ImportGraphDefOptionsSetDefaultDevice(TF_ImportGraphDefOptions* opts, const char* device) {
  opts->default_device = device ? device : "";
}

void TF_ImportGraphDefOptionsAddInputMapping(TF_ImportGraphDefOptions* opts, const char* src_name,
                                             int src_index, TF_Output dst) {
  opts->input_mapping[{src_name ? src_name : "", src_index}] = dst;
}

void TF_ImportGraphDefOptionsRemapControlDependency(TF_ImportGraphDefOptions* opts,
                                                    const char* src_name, TF_Operation* dst) {
  opts->control_remapping[src_name ? src_name : ""] = dst;
}

void TF_ImportGraphDefOptionsAddControlDependency(TF_ImportGraphDefOptions* opts,
                                                  TF_Operation* oper) {
  opts->control_dependencies.push_back(oper);
}

void TF_ImportGraphDefOptionsAddReturnOutput(TF_ImportGraphDefOptions* opts, const char* oper_name,
                                             int index) {
  opts->return_outputs.emplace_back(oper_name ? oper_name : "", index);
}

int TF_ImportGraphDefOptionsNumReturnOutputs(const TF_ImportGraphDefOptions* opts) {
  return static_cast<int>(opts->return_outputs.size());
}

void TF_ImportGraphDefOptionsAddReturnOperation(TF_ImportGraphDefOptions* opts,
                                                const char* oper_name) {
  opts->return_operations.emplace_back(oper_name ? oper_name : "");
}

int TF_ImportGraphDefOptionsNumReturnOperations(const TF_ImportGraphDefOptions* opts) {
  return static_cast<int>(opts->return_operations.size());
}

void TF_ImportGraphDefResultsReturnOutputs(TF_ImportGraphDefResults* results, int* num_outputs,
                                           TF_Output** outputs) {
  *num_outputs = static_cast<int>(results->return_outputs.size());
  *outputs = results->return_outputs.data();
}

void TF_ImportGraphDefResultsReturnOperations(TF_ImportGraphDefResults* results, int* num_opers,
                                              TF_Operation*** opers) {
  *num_opers = static_cast<int>(results->return_operations.size());
  *opers = results->return_operations.data();
}

void TF_ImportGraphDefResultsMissingUnusedInputMappings(TF_ImportGraphDefResults* results,
                                                        int* num_missing_unused_input_mappings,
                                                        const char*** src_names,
                                                        int** src_indexes) {
  *num_missing_unused_input_mappings = static_cast<int>(results->missing_names.size());
  *src_names = results->missing_name_ptrs.data();
  *src_indexes = results->missing_indexes.data();
}

void TF_DeleteImportGraphDefResults(TF_ImportGraphDefResults* results) { delete results; }

void OPGEN_ImportGraphDefOptionsSetCheckDevices(TF_ImportGraphDefOptions* opts, unsigned char check) {
  if (opts != nullptr) opts->check_devices = check != 0;
}

TF_ImportGraphDefResults* TF_GraphImportGraphDefWithResults(TF_Graph* graph,
                                                            const TF_Buffer* graph_def,
                                                            const TF_ImportGraphDefOptions* options,
                                                            TF_Status* status) {
  try {
    return opgen::Import(graph, graph_def, options, status);
  } catch (const std::exception& e) {
    opgen::SetStatus(status, TF_INTERNAL, e.what());
    return nullptr;
  }
}

void TF_GraphImportGraphDefWithReturnOutputs(TF_Graph* graph, const TF_Buffer* graph_def,
                                             const TF_ImportGraphDefOptions* options,
                                             TF_Output* return_outputs, int num_return_outputs,
                                             TF_Status* status) {
  int expected = options ? TF_ImportGraphDefOptionsNumReturnOutputs(options) : 0;
  if (expected > 0 && !opgen::CheckNotNull(status, __func__, {{"return_outputs", return_outputs}}))
    return;
  if (num_return_outputs != expected) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     "Expected 'num_return_outputs' to be " + std::to_string(expected) +
                         ", got " + std::to_string(num_return_outputs));
    return;
  }
  TF_ImportGraphDefResults* results =
      TF_GraphImportGraphDefWithResults(graph, graph_def, options, status);
  if (results == nullptr) return;
  std::copy(results->return_outputs.begin(), results->return_outputs.end(), return_outputs);
  delete results;
}

void TF_GraphImportGraphDef(TF_Graph* graph, const TF_Buffer* graph_def,
                            const TF_ImportGraphDefOptions* options, TF_Status* status) {
  delete TF_GraphImportGraphDefWithResults(graph, graph_def, options, status);
}

}  // extern "C"
