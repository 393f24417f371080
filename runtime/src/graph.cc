// Graph building (TF_NewOperation ... TF_FinishOperation), node checks against the
// OpDef, and the queries on operations and graphs.
#include "graph.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#include "kernel_registry.h"
#include "node_attrs.h"
#include "op_registry.h"
#include "shape_check.h"
#include "shape_inference.h"

struct TF_OperationDescription {
  TF_Graph* graph;
  opgen::NodeSpec spec;
  std::vector<std::string> colocate_with;
  std::string error;  // the first malformed attr value, reported by TF_FinishOperation
};

namespace opgen {
namespace {

// The most elements of a constant input whose value shape inference gets.
constexpr int64_t kMaxConstantForShapes = int64_t{1} << 16;

bool IsPrivateAttr(const std::string& name) { return !name.empty() && name[0] == '_'; }

// Tensors per arg of `args` once attrs are complete.
std::vector<int> ArgLengths(const std::vector<ArgDef>& args, const AttrMap& attrs) {
  std::vector<int> lengths;
  for (const ArgDef& arg : args) {
    if (!arg.type_list_attr.empty())
      lengths.push_back(static_cast<int>(attrs.at(arg.type_list_attr).list_type.size()));
    else if (!arg.number_attr.empty())
      lengths.push_back(static_cast<int>(attrs.at(arg.number_attr).i));
    else
      lengths.push_back(1);
  }
  return lengths;
}

bool CheckOutputRef(const TF_Graph* graph, const TF_Output& out, const std::string& node,
                    TF_Status* status) {
  if (out.oper == nullptr || out.oper->graph != graph) {
    SetStatus(status, TF_INVALID_ARGUMENT,
              "Node '" + node + "': an input is not an operation of this graph");
    return false;
  }
  if (out.index < 0 || out.index >= static_cast<int>(out.oper->output_types.size())) {
    SetStatus(status, TF_OUT_OF_RANGE,
              "Node '" + node + "': input '" + out.oper->name + ":" +
                  std::to_string(out.index) + "' does not exist; '" + out.oper->name +
                  "' has " + std::to_string(out.oper->output_types.size()) + " outputs");
    return false;
  }
  return true;
}

// Tensor attrs are checked once the node is complete, before anything reads them: a
// TensorProto whose dtype or shape no tensor can have is refused while the graph is
// built, not when a kernel or a getter first parses it. A Const's value must also have
// the dtype its `dtype` attr gives the output (TensorFlow checks that when it makes
// the Const kernel; graph building is the earliest point the node is complete).
bool CheckTensorAttrs(const OpDef& def, const std::string& node, const AttrMap& attrs,
                      TF_Status* status) {
  for (const auto& [name, value] : attrs) {
    const bool is_list = value.kind == AttrValue::kListTensor;
    if (value.kind != AttrValue::kTensor && !is_list) continue;
    const size_t n = is_list ? value.list_s.size() : 1;
    for (size_t i = 0; i < n; ++i) {
      TF_DataType dtype;
      std::vector<int64_t> dims;
      std::string error;
      if (!(is_list ? ParseTensorProtoHeader(value.list_s[i], &dtype, &dims, &error)
                    : value.tensor_proto.Header(&dtype, &dims, &error, /*full=*/false))) {
        SetStatus(status, TF_INVALID_ARGUMENT,
                  "Node '" + node + "' (" + def.name + "): attr '" + name + "'" +
                      (is_list ? " element " + std::to_string(i) : std::string()) + ": " + error);
        return false;
      }
      if ((def.name == "Const" || def.name == "HostConst") && name == "value") {
        auto declared = attrs.find("dtype");
        if (declared != attrs.end() && declared->second.kind == AttrValue::kType &&
            declared->second.type != dtype) {
          SetStatus(status, TF_INVALID_ARGUMENT,
                    "Node '" + node + "' (" + def.name + "): type mismatch between value (" +
                        DataTypeName(dtype) + ") and attr 'dtype' (" +
                        DataTypeName(declared->second.type) + ")");
          return false;
        }
      }
    }
  }
  return true;
}

// Shape inference's view of `inputs`: their known shapes, and the values of constant
// inputs (parsed into `constants`, which must outlive the result).
std::vector<ShapeInferenceInput> ShapeInputs(const std::vector<TF_Output>& inputs,
                                             std::vector<std::unique_ptr<TF_Tensor>>* constants) {
  std::vector<ShapeInferenceInput> shape_inputs(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TF_Output& in = inputs[i];
    shape_inputs[i].shape = in.oper->output_shapes[in.index];
    // Shape functions read small constants (shapes, axes, paddings). A large one stays
    // unread: a TensorProto of a few bytes can describe a splat of gigabytes.
    const int64_t elements = shape_inputs[i].shape.unknown_rank
                                 ? -1 : NumElements(shape_inputs[i].shape.dims);
    if (in.oper->type() == "Const" && elements >= 0 && elements <= kMaxConstantForShapes) {
      auto value = in.oper->attrs.find("value");
      std::string ignored;
      if (value != in.oper->attrs.end() && value->second.kind == AttrValue::kTensor) {
        constants->emplace_back(value->second.tensor_proto.NewCopy(&ignored));
        shape_inputs[i].value = constants->back().get();
      }
    }
  }
  return shape_inputs;
}

void RecordChangeLocked(TF_Graph* graph, TF_Operation* op) {
  graph->changed_ops.push_back(op);
  graph->changes.store(graph->changed_ops.size(), std::memory_order_release);
}

}  // namespace

std::string OutputName(const TF_Output& output) {
  return output.index == 0 ? output.oper->name
                           : output.oper->name + ":" + std::to_string(output.index);
}

const OpDef* FindOpDefLocked(const TF_Graph* graph, const std::string& type) {
  if (const OpDef* def = OpRegistry::Global().Find(type)) return def;
  const FunctionDefProto* function = graph->functions.Find(type);
  return function != nullptr ? &function->signature : nullptr;
}

TF_Operation* AddNodeLocked(TF_Graph* graph, NodeSpec spec, TF_Status* status) {
  if (!EnsureRuntimeInitialized(status)) return nullptr;
  const OpDef* def = FindOpDefLocked(graph, spec.op_type);
  // TF_NOT_FOUND, as TFE_NewOp, TF_GraphImportGraphDef and every binding say it
  // (TensorFlow's own TF_FinishOperation folds it into INVALID_ARGUMENT; one code for
  // one condition in every language matters more here).
  if (def == nullptr) {
    SetStatus(status, TF_NOT_FOUND,
              OpNotRegisteredMessage(spec.op_type, spec.name));
    return nullptr;
  }
  if (spec.name.empty()) {
    SetStatus(status, TF_INVALID_ARGUMENT, "A node of op " + spec.op_type + " has no name");
    return nullptr;
  }
  if (graph->by_name.count(spec.name)) {
    SetStatus(status, TF_INVALID_ARGUMENT, "Duplicate node name in graph: '" + spec.name + "'");
    return nullptr;
  }
  InputDtypes input_dtypes;
  for (const auto& group : spec.input_groups) {
    input_dtypes.emplace_back();
    for (const TF_Output& in : group) {
      if (!CheckOutputRef(graph, in, spec.name, status)) return nullptr;
      input_dtypes.back().push_back(in.oper->output_types[in.index]);
    }
  }
  for (TF_Operation* control : spec.control_inputs) {
    if (control == nullptr || control->graph != graph) {
      SetStatus(status, TF_INVALID_ARGUMENT,
                "Node '" + spec.name + "': a control input is not an operation of this graph");
      return nullptr;
    }
  }
  // Attrs whose names start with '_' belong to the runtime and tools, not the OpDef.
  AttrMap attrs, private_attrs;
  for (auto& [name, value] : spec.attrs) {
    bool unchecked = IsPrivateAttr(name) || (spec.keep_unknown_attrs && !def->FindAttr(name));
    (unchecked ? private_attrs : attrs).emplace(name, std::move(value));
  }
  CompleteAttrs(*def, input_dtypes, &attrs, status);
  if (status->code != TF_OK) {
    status->message += " (node '" + spec.name + "')";
    return nullptr;
  }
  if (!CheckTensorAttrs(*def, spec.name, attrs, status)) return nullptr;

  auto op = std::make_unique<TF_Operation>();
  op->graph = graph;
  op->name = std::move(spec.name);
  op->device = std::move(spec.device);
  op->op_def = def;
  op->output_types = OutputDtypes(*def, attrs);
  op->output_arg_lengths = ArgLengths(def->output_arg, attrs);
  for (const auto& group : spec.input_groups) {
    op->input_arg_lengths.push_back(static_cast<int>(group.size()));
    op->inputs.insert(op->inputs.end(), group.begin(), group.end());
  }

  std::vector<std::unique_ptr<TF_Tensor>> constants;
  const std::vector<ShapeInferenceInput> shape_inputs = ShapeInputs(op->inputs, &constants);
  InferOutputShapes(*def, op->name, attrs, shape_inputs, op->output_types.size(),
                    &op->output_shapes, status);
  if (status->code != TF_OK) return nullptr;
  op->output_shapes.resize(op->output_types.size());

  for (auto& [name, value] : private_attrs) attrs.emplace(name, std::move(value));
  op->attrs = std::move(attrs);
  op->consumers.resize(op->output_types.size());
  for (TF_Operation* control : spec.control_inputs)
    if (std::find(op->control_inputs.begin(), op->control_inputs.end(), control) ==
        op->control_inputs.end())
      op->control_inputs.push_back(control);

  TF_Operation* added = op.get();
  for (size_t i = 0; i < added->inputs.size(); ++i) {
    const TF_Output& in = added->inputs[i];
    in.oper->consumers[in.index].push_back(TF_Input{added, static_cast<int>(i)});
  }
  for (TF_Operation* control : added->control_inputs) control->control_outputs.push_back(added);
  graph->by_name.emplace(added->name, added);
  graph->ops.push_back(std::move(op));
  ClearStatus(status);
  return added;
}

void TruncateGraphLocked(TF_Graph* graph, size_t keep) {
  while (graph->ops.size() > keep) {
    TF_Operation* op = graph->ops.back().get();
    for (const TF_Output& in : op->inputs) {
      auto& list = in.oper->consumers[in.index];
      list.erase(std::remove_if(list.begin(), list.end(),
                                [op](const TF_Input& c) { return c.oper == op; }),
                 list.end());
    }
    for (TF_Operation* control : op->control_inputs) {
      auto& list = control->control_outputs;
      list.erase(std::remove(list.begin(), list.end(), op), list.end());
    }
    graph->by_name.erase(op->name);
    graph->ops.pop_back();
  }
}

void ReplaceInputLocked(TF_Operation* op, int index, TF_Output source) {
  TF_Output& in = op->inputs[index];
  auto& old_list = in.oper->consumers[in.index];
  for (auto it = old_list.begin(); it != old_list.end(); ++it) {
    if (it->oper == op && it->index == index) {
      old_list.erase(it);
      break;
    }
  }
  in = source;
  source.oper->consumers[source.index].push_back(TF_Input{op, index});
}

bool ExtendNodeLocked(TF_Operation* op, AttrMap attrs, const std::vector<TF_Output>& extra,
                      TF_Status* status) {
  TF_Graph* graph = op->graph;
  const OpDef& def = *op->op_def;
  const auto fail = [&](const std::string& why) {
    SetStatus(status, TF_INVALID_ARGUMENT, "Node '" + op->name + "' cannot be extended: " + why);
    return false;
  };
  if (def.input_arg.empty() || (def.input_arg.back().type_list_attr.empty() &&
                                def.input_arg.back().number_attr.empty()))
    return fail("its last input is not a list");
  for (const TF_Output& in : extra)
    if (!CheckOutputRef(graph, in, op->name, status)) return false;

  // Where the node stands, and which producers of `extra` stand after it.
  size_t at = 0;
  while (at < graph->ops.size() && graph->ops[at].get() != op) ++at;
  if (at == graph->ops.size()) return fail("it is not in its graph");
  std::unordered_map<const TF_Operation*, size_t> position;
  for (size_t i = 0; i < graph->ops.size(); ++i) position[graph->ops[i].get()] = i;
  std::vector<bool> move(graph->ops.size(), false);
  std::vector<TF_Operation*> pending;
  for (const TF_Output& in : extra) pending.push_back(in.oper);
  while (!pending.empty()) {
    TF_Operation* p = pending.back();
    pending.pop_back();
    const size_t pos = position[p];
    if (pos < at || move[pos]) continue;
    if (p == op) return fail("an extra input depends on it");
    move[pos] = true;
    for (const TF_Output& in : p->inputs) pending.push_back(in.oper);
    for (TF_Operation* c : p->control_inputs) pending.push_back(c);
  }

  // The node as it will be, checked as a new node is.
  InputDtypes input_dtypes;
  std::vector<TF_Output> inputs = op->inputs;
  inputs.insert(inputs.end(), extra.begin(), extra.end());
  size_t next = 0;
  std::vector<int> arg_lengths = op->input_arg_lengths;
  arg_lengths.back() += static_cast<int>(extra.size());
  for (int length : arg_lengths) {
    input_dtypes.emplace_back();
    for (int j = 0; j < length; ++j, ++next)
      input_dtypes.back().push_back(inputs[next].oper->output_types[inputs[next].index]);
  }
  AttrMap checked, private_attrs;
  for (auto& [name, value] : attrs)
    (IsPrivateAttr(name) || !def.FindAttr(name) ? private_attrs : checked).emplace(name, value);
  CompleteAttrs(def, input_dtypes, &checked, status);
  if (status->code != TF_OK) return fail(status->message);
  if (!CheckTensorAttrs(def, op->name, checked, status)) return false;
  std::vector<TF_DataType> output_types = OutputDtypes(def, checked);
  if (output_types.size() < op->output_types.size() ||
      !std::equal(op->output_types.begin(), op->output_types.end(), output_types.begin()))
    return fail("its existing outputs would change");
  std::vector<std::unique_ptr<TF_Tensor>> constants;
  std::vector<Shape> shapes;
  InferOutputShapes(def, op->name, checked, ShapeInputs(inputs, &constants), output_types.size(),
                    &shapes, status);
  if (status->code != TF_OK) return false;
  shapes.resize(output_types.size());
  std::copy(op->output_shapes.begin(), op->output_shapes.end(), shapes.begin());

  NodeRewrite undo;
  undo.op = op;
  undo.attrs = op->attrs;
  undo.num_inputs = op->inputs.size();
  undo.input_arg_lengths = op->input_arg_lengths;
  undo.output_types = op->output_types;
  undo.output_arg_lengths = op->output_arg_lengths;
  undo.output_shapes = op->output_shapes;
  // The moved nodes go just in front of the node, in their order.
  std::vector<std::unique_ptr<TF_Operation>> moved;
  undo.at = at;
  for (size_t i = at; i < graph->ops.size(); ++i)
    if (move[i]) {
      undo.moved_from.push_back(i);
      moved.push_back(std::move(graph->ops[i]));
    }
  graph->ops.erase(std::remove(graph->ops.begin() + at, graph->ops.end(), nullptr),
                   graph->ops.end());
  graph->ops.insert(graph->ops.begin() + at, std::make_move_iterator(moved.begin()),
                    std::make_move_iterator(moved.end()));

  for (auto& [name, value] : private_attrs) checked.emplace(name, std::move(value));
  op->attrs = std::move(checked);
  for (size_t i = op->inputs.size(); i < inputs.size(); ++i)
    inputs[i].oper->consumers[inputs[i].index].push_back(TF_Input{op, static_cast<int>(i)});
  op->inputs = std::move(inputs);
  op->input_arg_lengths = std::move(arg_lengths);
  op->output_types = std::move(output_types);
  op->output_arg_lengths = ArgLengths(def.output_arg, op->attrs);
  op->output_shapes = std::move(shapes);
  op->consumers.resize(op->output_types.size());
  graph->rewrites.push_back(std::move(undo));
  RecordChangeLocked(graph, op);
  ClearStatus(status);
  return true;
}

GraphMark MarkGraphLocked(const TF_Graph* graph) {
  return GraphMark{graph->ops.size(), graph->rewrites.size()};
}

void RollBackGraphLocked(TF_Graph* graph, const GraphMark& mark) {
  // Newest first: the appended inputs let go of their producers, and the nodes moved in
  // front of the changed node go back where they were (later nodes were appended, later
  // changes are undone already: the moved block still stands just before the node).
  for (size_t r = graph->rewrites.size(); r-- > mark.rewrites;) {
    NodeRewrite& undo = graph->rewrites[r];
    TF_Operation* op = undo.op;
    for (size_t i = undo.num_inputs; i < op->inputs.size(); ++i) {
      auto& list = op->inputs[i].oper->consumers[op->inputs[i].index];
      list.erase(std::remove_if(list.begin(), list.end(),
                                [&](const TF_Input& c) {
                                  return c.oper == op && c.index == static_cast<int>(i);
                                }),
                 list.end());
    }
    const auto block = graph->ops.begin() + undo.at;
    std::vector<std::unique_ptr<TF_Operation>> moved(
        std::make_move_iterator(block), std::make_move_iterator(block + undo.moved_from.size()));
    graph->ops.erase(block, block + undo.moved_from.size());
    for (size_t j = 0; j < moved.size(); ++j)
      graph->ops.insert(graph->ops.begin() + undo.moved_from[j], std::move(moved[j]));
  }
  TruncateGraphLocked(graph, mark.ops);
  // The nodes that read the changed nodes' new outputs are gone: the outputs can go.
  for (size_t r = graph->rewrites.size(); r-- > mark.rewrites;) {
    NodeRewrite& undo = graph->rewrites[r];
    TF_Operation* op = undo.op;
    op->attrs = std::move(undo.attrs);
    op->inputs.resize(undo.num_inputs);
    op->input_arg_lengths = std::move(undo.input_arg_lengths);
    op->output_types = std::move(undo.output_types);
    op->output_arg_lengths = std::move(undo.output_arg_lengths);
    op->output_shapes = std::move(undo.output_shapes);
    op->consumers.resize(op->output_types.size());
    RecordChangeLocked(graph, op);
  }
  graph->rewrites.resize(mark.rewrites);
}

NodeDefProto ToNodeDef(const TF_Operation& op) {
  NodeDefProto node;
  node.name = op.name;
  node.op = op.type();
  node.device = op.device;
  node.attr = op.attrs;
  for (const TF_Output& in : op.inputs) node.input.push_back(OutputName(in));
  for (const TF_Operation* control : op.control_inputs) node.input.push_back("^" + control->name);
  return node;
}

void ReleaseGraphSession(TF_Graph* graph) {
  bool free_it;
  {
    // Decided under the same lock TF_DeleteGraph decides under: of a session's delete
    // and the graph's, racing, exactly one sees the last reference go.
    std::lock_guard<std::mutex> lock(graph->mu);
    free_it = --graph->sessions == 0 && graph->delete_requested;
  }
  if (free_it) delete graph;
}

}  // namespace opgen

// ---- Helpers of the C functions below ----------------------------------------------------

namespace {

using opgen::AttrValue;

AttrValue& NewAttr(TF_OperationDescription* desc, const char* name, AttrValue::Kind kind) {
  AttrValue& v = desc->spec.attrs[name ? name : ""];
  v = AttrValue();
  v.kind = kind;
  return v;
}

// Setters have no status: a value that is not a TF_DataType is remembered in
// desc->error, which TF_FinishOperation reports.
bool CheckDataTypes(TF_OperationDescription* desc, const char* attr_name,
                    const TF_DataType* values, int num_values) {
  for (int i = 0; i < num_values; ++i) {
    if (opgen::IsDataType(values[i])) continue;
    if (desc->error.empty())
      desc->error = "attr '" + std::string(attr_name ? attr_name : "") + "': dtype value " +
                    std::to_string(opgen::DataTypeBits(values[i])) + " is not a TF_DataType";
    return false;
  }
  return true;
}

// A shape given as (dims, num_dims), checked as TensorFlow documents it (dims >= -1,
// -1: unknown). The setters have no status: a bad one is remembered for
// TF_FinishOperation.
bool CheckShapeArg(TF_OperationDescription* desc, const char* attr_name, const int64_t* dims,
                   int num_dims) {
  std::string error;
  if (opgen::CheckPartialDims(dims, num_dims, &error)) return true;
  if (desc->error.empty())
    desc->error = "attr '" + std::string(attr_name ? attr_name : "") + "': " + error;
  return false;
}

opgen::Shape MakeShape(const int64_t* dims, int num_dims) {
  opgen::Shape s;
  s.unknown_rank = num_dims < 0;
  if (num_dims > 0) s.dims.assign(dims, dims + num_dims);
  return s;
}

// The AttrValue bytes of a message held in AttrValue field `field` (length-delimited).
std::string WrapInAttrValue(int field, const void* bytes, size_t len) {
  std::string out(1, static_cast<char>((field << 3) | 2));
  uint64_t n = len;
  do {
    uint8_t b = n & 0x7f;
    n >>= 7;
    out.push_back(static_cast<char>(n ? b | 0x80 : b));
  } while (n);
  out.append(static_cast<const char*>(bytes), len);
  return out;
}

opgen::ParseOutcome ParseShapeProto(const void* proto, size_t len, opgen::Shape* shape,
                                    std::string* error) {
  AttrValue v;
  if (proto == nullptr && len > 0) {
    *error = "proto is NULL";
    return opgen::ParseOutcome::kUnparseable;
  }
  const opgen::ParseOutcome outcome =
      opgen::ReadAttrValue(WrapInAttrValue(7, proto, len), &v, error);
  if (outcome != opgen::ParseOutcome::kOk) return outcome;
  if (v.kind != AttrValue::kShape) {
    if (v.kind == AttrValue::kNone) {  // an empty TensorShapeProto: a scalar
      *shape = opgen::Shape{false, {}};
      return outcome;
    }
    *error = "not a TensorShapeProto";
    return opgen::ParseOutcome::kUnparseable;
  }
  *shape = v.shape;
  return outcome;
}

// "Unparseable <what>" for bytes that are not the message, "Invalid <what>" for a
// message whose value breaks a rule (a dim below -1).
std::string ProtoErrorPrefix(opgen::ParseOutcome outcome, const char* what) {
  return std::string(outcome == opgen::ParseOutcome::kInvalid ? "Invalid " : "Unparseable ") +
         what;
}

// TensorShapeProto bytes: the AttrValue of the shape without its field header.
std::string SerializeShapeProto(const opgen::Shape& shape) {
  AttrValue v;
  v.kind = AttrValue::kShape;
  v.shape = shape;
  std::string bytes = opgen::SerializeAttrValue(v);
  size_t i = 1;
  while (i < bytes.size() && (static_cast<uint8_t>(bytes[i]) & 0x80)) ++i;
  return bytes.substr(std::min(bytes.size(), i + 1));
}

void FillBuffer(TF_Buffer* buffer, const std::string& bytes) {
  if (buffer->data_deallocator) buffer->data_deallocator(const_cast<void*>(buffer->data), buffer->length);
  void* copy = std::malloc(bytes.size() ? bytes.size() : 1);
  std::memcpy(copy, bytes.data(), bytes.size());
  buffer->data = copy;
  buffer->length = bytes.size();
  buffer->data_deallocator = [](void* data, size_t) { std::free(data); };
}

// A non-null stand-in for an output that need not be given.
const void* const kNoOutput = &kNoOutput;
const void* OutArray(const void* values, int64_t count) { return opgen::ArrayArg(values, count); }

// The attr getters' common checks: the operation, the name and where the value goes
// (`out`) must not be NULL.
const AttrValue* FindAttr(const char* function, TF_Operation* oper, const char* name,
                          TF_Status* status, const void* out = kNoOutput) {
  if (!opgen::CheckNotNull(status, function,
                           {{"oper", oper}, {"attr_name", name}, {"value", out}}))
    return nullptr;
  auto it = oper->attrs.find(name);
  if (it == oper->attrs.end()) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     "Operation '" + oper->name + "' has no attr named '" +
                         (name ? name : "") + "'.");
    return nullptr;
  }
  opgen::ClearStatus(status);
  return &it->second;
}

const AttrValue* FindAttrOfKind(const char* function, TF_Operation* oper, const char* name,
                                AttrValue::Kind kind, const char* kind_name, TF_Status* status,
                                const void* out) {
  const AttrValue* v = FindAttr(function, oper, name, status, out);
  if (v == nullptr) return nullptr;
  bool empty_list = v->IsList() && v->ListSize() == 0 && kind >= AttrValue::kListString;
  if (v->kind != kind && !empty_list) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     "Attr '" + std::string(name) + "' of '" + oper->name + "' is not a " +
                         kind_name);
    return nullptr;
  }
  return v;
}

template <typename Out, typename In>
void CopyOut(const std::vector<In>& from, Out* to, int max_values) {
  int n = std::min<int>(max_values, static_cast<int>(from.size()));
  for (int i = 0; i < n; ++i) to[i] = static_cast<Out>(from[i]);
}

int ArgLength(const std::vector<opgen::ArgDef>& args, const std::vector<int>& lengths,
              const TF_Operation* oper, const char* arg_name, TF_Status* status) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].name == (arg_name ? arg_name : "")) {
      opgen::ClearStatus(status);
      return lengths[i];
    }
  }
  opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                   "Operation '" + oper->name + "' (" + oper->type() + ") has no arg named '" +
                       (arg_name ? arg_name : "") + "'");
  return -1;
}

bool CheckOutput(const char* function, TF_Graph* graph, TF_Output output, TF_Status* status) {
  if (!opgen::CheckNotNull(status, function, {{"graph", graph}})) return false;
  if (output.oper == nullptr || output.oper->graph != graph) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT, "The operation is not in this graph");
    return false;
  }
  if (output.index < 0 || output.index >= static_cast<int>(output.oper->output_types.size())) {
    opgen::SetStatus(status, TF_OUT_OF_RANGE,
                     "Output index " + std::to_string(output.index) + " out of range for '" +
                         output.oper->name + "', which has " +
                         std::to_string(output.oper->output_types.size()) + " outputs");
    return false;
  }
  return true;
}

}  // namespace

extern "C" {

// ---- Building ----------------------------------------------------------------------------

TF_Graph* TF_NewGraph(void) { return new TF_Graph(); }

void TF_DeleteGraph(TF_Graph* graph) {
  if (graph == nullptr) return;
  bool free_it;
  {
    std::lock_guard<std::mutex> lock(graph->mu);
    graph->delete_requested = true;
    free_it = graph->sessions == 0;  // else the last session's delete frees it
  }
  if (free_it) delete graph;
}

TF_OperationDescription* TF_NewOperation(TF_Graph* graph, const char* op_type,
                                         const char* oper_name) {
  auto* desc = new TF_OperationDescription();
  desc->graph = graph;
  desc->spec.op_type = op_type ? op_type : "";
  desc->spec.name = oper_name ? oper_name : "";
  return desc;
}

void TF_SetDevice(TF_OperationDescription* desc, const char* device) {
  desc->spec.device = device ? device : "";
}

void TF_AddInput(TF_OperationDescription* desc, TF_Output input) {
  desc->spec.input_groups.push_back({input});
}

void TF_AddInputList(TF_OperationDescription* desc, const TF_Output* inputs, int num_inputs) {
  desc->spec.input_groups.emplace_back(inputs, inputs + std::max(num_inputs, 0));
}

void TF_AddControlInput(TF_OperationDescription* desc, TF_Operation* input) {
  desc->spec.control_inputs.push_back(input);
}

void TF_ColocateWith(TF_OperationDescription* desc, TF_Operation* op) {
  desc->colocate_with.push_back("loc:@" + op->name);
}

void TF_SetAttrString(TF_OperationDescription* desc, const char* attr_name, const void* value,
                      size_t length) {
  NewAttr(desc, attr_name, AttrValue::kString).s.assign(static_cast<const char*>(value), length);
}

void TF_SetAttrStringList(TF_OperationDescription* desc, const char* attr_name,
                          const void* const* values, const size_t* lengths, int num_values) {
  AttrValue& v = NewAttr(desc, attr_name, AttrValue::kListString);
  for (int i = 0; i < num_values; ++i)
    v.list_s.emplace_back(static_cast<const char*>(values[i]), lengths[i]);
}

void TF_SetAttrInt(TF_OperationDescription* desc, const char* attr_name, int64_t value) {
  NewAttr(desc, attr_name, AttrValue::kInt).i = value;
}

void TF_SetAttrIntList(TF_OperationDescription* desc, const char* attr_name,
                       const int64_t* values, int num_values) {
  NewAttr(desc, attr_name, AttrValue::kListInt).list_i.assign(values, values + num_values);
}

void TF_SetAttrFloat(TF_OperationDescription* desc, const char* attr_name, float value) {
  NewAttr(desc, attr_name, AttrValue::kFloat).f = value;
}

void TF_SetAttrFloatList(TF_OperationDescription* desc, const char* attr_name,
                         const float* values, int num_values) {
  NewAttr(desc, attr_name, AttrValue::kListFloat).list_f.assign(values, values + num_values);
}

void TF_SetAttrBool(TF_OperationDescription* desc, const char* attr_name, unsigned char value) {
  NewAttr(desc, attr_name, AttrValue::kBool).b = value != 0;
}

void TF_SetAttrBoolList(TF_OperationDescription* desc, const char* attr_name,
                        const unsigned char* values, int num_values) {
  AttrValue& v = NewAttr(desc, attr_name, AttrValue::kListBool);
  for (int i = 0; i < num_values; ++i) v.list_b.push_back(values[i] != 0);
}

void TF_SetAttrType(TF_OperationDescription* desc, const char* attr_name, TF_DataType value) {
  if (!CheckDataTypes(desc, attr_name, &value, 1)) return;
  NewAttr(desc, attr_name, AttrValue::kType).type = value;
}

void TF_SetAttrTypeList(TF_OperationDescription* desc, const char* attr_name,
                        const TF_DataType* values, int num_values) {
  if (!CheckDataTypes(desc, attr_name, values, num_values)) return;
  NewAttr(desc, attr_name, AttrValue::kListType).list_type.assign(values, values + num_values);
}

void TF_SetAttrPlaceholder(TF_OperationDescription* desc, const char* attr_name,
                           const char* placeholder) {
  NewAttr(desc, attr_name, AttrValue::kPlaceholder).s = placeholder ? placeholder : "";
}

void TF_SetAttrFuncName(TF_OperationDescription* desc, const char* attr_name, const char* value,
                        size_t length) {
  NewAttr(desc, attr_name, AttrValue::kFunc).s.assign(value, length);
}

void TF_SetAttrShape(TF_OperationDescription* desc, const char* attr_name, const int64_t* dims,
                     int num_dims) {
  if (!CheckShapeArg(desc, attr_name, dims, num_dims)) return;
  NewAttr(desc, attr_name, AttrValue::kShape).shape = MakeShape(dims, num_dims);
}

void TF_SetAttrShapeList(TF_OperationDescription* desc, const char* attr_name,
                         const int64_t* const* dims, const int* num_dims, int num_shapes) {
  if (num_shapes > 0 && (dims == nullptr || num_dims == nullptr)) {
    if (desc->error.empty())
      desc->error = "attr '" + std::string(attr_name ? attr_name : "") + "': dims or num_dims is NULL";
    return;
  }
  for (int i = 0; i < num_shapes; ++i)
    if (!CheckShapeArg(desc, attr_name, dims[i], num_dims[i])) return;
  AttrValue& v = NewAttr(desc, attr_name, AttrValue::kListShape);
  for (int i = 0; i < num_shapes; ++i) v.list_shape.push_back(MakeShape(dims[i], num_dims[i]));
}

void TF_SetAttrTensorShapeProto(TF_OperationDescription* desc, const char* attr_name,
                                const void* proto, size_t proto_len, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"desc", desc}, {"attr_name", attr_name}})) return;
  opgen::Shape shape;
  std::string error;
  const opgen::ParseOutcome outcome = ParseShapeProto(proto, proto_len, &shape, &error);
  if (outcome != opgen::ParseOutcome::kOk) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     ProtoErrorPrefix(outcome, "TensorShapeProto") + " for attr '" +
                         std::string(attr_name) + "': " + error);
    return;
  }
  NewAttr(desc, attr_name, AttrValue::kShape).shape = std::move(shape);
  opgen::ClearStatus(status);
}

void TF_SetAttrTensorShapeProtoList(TF_OperationDescription* desc, const char* attr_name,
                                    const void* const* protos, const size_t* proto_lens,
                                    int num_shapes, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__,
                           {{"desc", desc}, {"attr_name", attr_name},
                            {"protos", OutArray(protos, num_shapes)},
                            {"proto_lens", OutArray(proto_lens, num_shapes)}}))
    return;
  std::vector<opgen::Shape> shapes(std::max(num_shapes, 0));
  for (int i = 0; i < num_shapes; ++i) {
    std::string error;
    const opgen::ParseOutcome outcome =
        ParseShapeProto(protos[i], proto_lens[i], &shapes[i], &error);
    if (outcome != opgen::ParseOutcome::kOk) {
      opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                       ProtoErrorPrefix(outcome, "TensorShapeProto") + " " + std::to_string(i) +
                           " for attr '" + std::string(attr_name) + "': " + error);
      return;
    }
  }
  NewAttr(desc, attr_name, AttrValue::kListShape).list_shape = std::move(shapes);
  opgen::ClearStatus(status);
}

void TF_SetAttrTensor(TF_OperationDescription* desc, const char* attr_name, TF_Tensor* value,
                      TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__,
                           {{"desc", desc}, {"attr_name", attr_name}, {"value", value}}))
    return;
  std::string bytes;
  if (!opgen::SerializeTensorProto(value, &bytes)) {
    opgen::SetStatus(status, TF_UNIMPLEMENTED,
                     "Attr '" + std::string(attr_name) +
                         "': only tensors of fixed-size dtypes can be attr values");
    return;
  }
  NewAttr(desc, attr_name, AttrValue::kTensor).tensor_proto = std::move(bytes);
  opgen::ClearStatus(status);
}

void TF_SetAttrTensorList(TF_OperationDescription* desc, const char* attr_name,
                          TF_Tensor* const* values, int num_values, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__,
                           {{"desc", desc}, {"attr_name", attr_name},
                            {"values", OutArray(values, num_values)}}))
    return;
  std::vector<std::string> protos;
  for (int i = 0; i < num_values; ++i) {
    std::string bytes;
    if (values[i] == nullptr) {
      opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                       std::string(__func__) + ": values[" + std::to_string(i) + "] is NULL");
      return;
    }
    if (!opgen::SerializeTensorProto(values[i], &bytes)) {
      opgen::SetStatus(status, TF_UNIMPLEMENTED,
                       "Attr '" + std::string(attr_name) +
                           "': only tensors of fixed-size dtypes can be attr values");
      return;
    }
    protos.push_back(std::move(bytes));
  }
  NewAttr(desc, attr_name, AttrValue::kListTensor).list_s = std::move(protos);
  opgen::ClearStatus(status);
}

void TF_SetAttrValueProto(TF_OperationDescription* desc, const char* attr_name,
                          const void* proto, size_t proto_len, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__,
                           {{"desc", desc}, {"attr_name", attr_name},
                            {"proto", OutArray(proto, static_cast<int64_t>(proto_len > 0))}}))
    return;
  AttrValue v;
  std::string error;
  const opgen::ParseOutcome outcome = opgen::ReadAttrValue(
      std::string_view(static_cast<const char*>(proto), proto_len), &v, &error);
  if (outcome != opgen::ParseOutcome::kOk) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     ProtoErrorPrefix(outcome, "AttrValue proto") + " for attr '" +
                         std::string(attr_name) + "': " + error);
    return;
  }
  desc->spec.attrs[attr_name] = std::move(v);
  opgen::ClearStatus(status);
}

TF_Operation* TF_FinishOperation(TF_OperationDescription* desc, TF_Status* status) {
  std::unique_ptr<TF_OperationDescription> owned(desc);
  if (!opgen::CheckNotNull(status, __func__, {{"desc", desc}}) ||
      !opgen::CheckNotNull(status, "TF_NewOperation", {{"graph", desc->graph}}))
    return nullptr;
  try {
    if (!desc->error.empty()) {
      opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                       "Node '" + desc->spec.name + "' (" + desc->spec.op_type +
                           "): " + desc->error);
      return nullptr;
    }
    if (!desc->colocate_with.empty()) {
      AttrValue& v = desc->spec.attrs["_class"];
      v.kind = AttrValue::kListString;
      v.list_s = desc->colocate_with;
    }
    std::lock_guard<std::mutex> lock(desc->graph->mu);
    return opgen::AddNodeLocked(desc->graph, std::move(desc->spec), status);
  } catch (const std::exception& e) {
    opgen::SetStatus(status, TF_INTERNAL, e.what());
    return nullptr;
  }
}

// ---- Operation queries ----------------------------------------------------------------------

const char* TF_OperationName(TF_Operation* oper) { return oper->name.c_str(); }
const char* TF_OperationOpType(TF_Operation* oper) { return oper->type().c_str(); }
const char* TF_OperationDevice(TF_Operation* oper) { return oper->device.c_str(); }

int TF_OperationNumOutputs(TF_Operation* oper) {
  return static_cast<int>(oper->output_types.size());
}

TF_DataType TF_OperationOutputType(TF_Output oper_out) {
  if (oper_out.index < 0 || oper_out.index >= static_cast<int>(oper_out.oper->output_types.size()))
    return static_cast<TF_DataType>(0);
  return oper_out.oper->output_types[oper_out.index];
}

int TF_OperationOutputListLength(TF_Operation* oper, const char* arg_name, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"oper", oper}})) return -1;
  return ArgLength(oper->op_def->output_arg, oper->output_arg_lengths, oper, arg_name, status);
}

int TF_OperationNumInputs(TF_Operation* oper) { return static_cast<int>(oper->inputs.size()); }

TF_DataType TF_OperationInputType(TF_Input oper_in) {
  if (oper_in.index < 0 || oper_in.index >= static_cast<int>(oper_in.oper->inputs.size()))
    return static_cast<TF_DataType>(0);
  return TF_OperationOutputType(oper_in.oper->inputs[oper_in.index]);
}

int TF_OperationInputListLength(TF_Operation* oper, const char* arg_name, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"oper", oper}})) return -1;
  return ArgLength(oper->op_def->input_arg, oper->input_arg_lengths, oper, arg_name, status);
}

TF_Output TF_OperationInput(TF_Input oper_in) {
  if (oper_in.index < 0 || oper_in.index >= static_cast<int>(oper_in.oper->inputs.size()))
    return TF_Output{nullptr, -1};
  return oper_in.oper->inputs[oper_in.index];
}

void TF_OperationAllInputs(TF_Operation* oper, TF_Output* inputs, int max_inputs) {
  CopyOut(oper->inputs, inputs, max_inputs);
}

int TF_OperationOutputNumConsumers(TF_Output oper_out) {
  if (oper_out.index < 0 || oper_out.index >= static_cast<int>(oper_out.oper->consumers.size()))
    return 0;
  std::lock_guard<std::mutex> lock(oper_out.oper->graph->mu);
  return static_cast<int>(oper_out.oper->consumers[oper_out.index].size());
}

int TF_OperationOutputConsumers(TF_Output oper_out, TF_Input* consumers, int max_consumers) {
  if (oper_out.index < 0 || oper_out.index >= static_cast<int>(oper_out.oper->consumers.size()))
    return 0;
  std::lock_guard<std::mutex> lock(oper_out.oper->graph->mu);
  const auto& list = oper_out.oper->consumers[oper_out.index];
  CopyOut(list, consumers, max_consumers);
  return static_cast<int>(list.size());
}

int TF_OperationNumControlInputs(TF_Operation* oper) {
  return static_cast<int>(oper->control_inputs.size());
}

int TF_OperationGetControlInputs(TF_Operation* oper, TF_Operation** control_inputs,
                                 int max_control_inputs) {
  CopyOut(oper->control_inputs, control_inputs, max_control_inputs);
  return std::min<int>(max_control_inputs, static_cast<int>(oper->control_inputs.size()));
}

int TF_OperationNumControlOutputs(TF_Operation* oper) {
  std::lock_guard<std::mutex> lock(oper->graph->mu);
  return static_cast<int>(oper->control_outputs.size());
}

int TF_OperationGetControlOutputs(TF_Operation* oper, TF_Operation** control_outputs,
                                  int max_control_outputs) {
  std::lock_guard<std::mutex> lock(oper->graph->mu);
  CopyOut(oper->control_outputs, control_outputs, max_control_outputs);
  return std::min<int>(max_control_outputs, static_cast<int>(oper->control_outputs.size()));
}

// ---- Attr getters ---------------------------------------------------------------------------

TF_AttrMetadata TF_OperationGetAttrMetadata(TF_Operation* oper, const char* attr_name,
                                            TF_Status* status) {
  TF_AttrMetadata m{0, -1, TF_ATTR_STRING, -1};
  const AttrValue* v = FindAttr(__func__, oper, attr_name, status);
  if (v == nullptr) return m;
  auto rank = [](const opgen::Shape& s) -> int64_t {
    return s.unknown_rank ? -1 : static_cast<int64_t>(s.dims.size());
  };
  m.is_list = v->IsList() ? 1 : 0;
  if (v->IsList()) m.list_size = static_cast<int64_t>(v->ListSize());
  switch (v->kind) {
    case AttrValue::kString: m.type = TF_ATTR_STRING; m.total_size = static_cast<int64_t>(v->s.size()); break;
    case AttrValue::kInt: m.type = TF_ATTR_INT; break;
    case AttrValue::kFloat: m.type = TF_ATTR_FLOAT; break;
    case AttrValue::kBool: m.type = TF_ATTR_BOOL; break;
    case AttrValue::kType: m.type = TF_ATTR_TYPE; break;
    case AttrValue::kShape: m.type = TF_ATTR_SHAPE; m.total_size = rank(v->shape); break;
    case AttrValue::kTensor: m.type = TF_ATTR_TENSOR; break;
    case AttrValue::kFunc: m.type = TF_ATTR_FUNC; break;
    case AttrValue::kPlaceholder: m.type = TF_ATTR_PLACEHOLDER; break;
    case AttrValue::kListString: {
      m.type = TF_ATTR_STRING;
      m.total_size = 0;
      for (const auto& s : v->list_s) m.total_size += static_cast<int64_t>(s.size());
      break;
    }
    case AttrValue::kListInt: m.type = TF_ATTR_INT; break;
    case AttrValue::kListFloat: m.type = TF_ATTR_FLOAT; break;
    case AttrValue::kListBool: m.type = TF_ATTR_BOOL; break;
    case AttrValue::kListType: m.type = TF_ATTR_TYPE; break;
    case AttrValue::kListShape: {
      m.type = TF_ATTR_SHAPE;
      m.total_size = 0;
      for (const auto& s : v->list_shape) m.total_size += std::max<int64_t>(rank(s), 0);
      break;
    }
    case AttrValue::kListTensor: m.type = TF_ATTR_TENSOR; break;
    case AttrValue::kListFunc: m.type = TF_ATTR_FUNC; break;
    case AttrValue::kNone: break;
  }
  return m;
}

void TF_OperationGetAttrString(TF_Operation* oper, const char* attr_name, void* value,
                               size_t max_length, TF_Status* status) {
  if (auto* v = FindAttrOfKind(__func__, oper, attr_name, AttrValue::kString, "string", status, OutArray(value, static_cast<int64_t>(max_length > 0))))
    std::memcpy(value, v->s.data(), std::min(max_length, v->s.size()));
}

void TF_OperationGetAttrStringList(TF_Operation* oper, const char* attr_name, void** values,
                                   size_t* lengths, int max_values, void* storage,
                                   size_t storage_size, TF_Status* status) {
  const AttrValue* v =
      FindAttrOfKind(__func__, oper, attr_name, AttrValue::kListString, "list(string)", status, max_values > 0 && (values == nullptr || lengths == nullptr || (storage == nullptr && storage_size > 0)) ? nullptr : kNoOutput);
  if (v == nullptr) return;
  char* out = static_cast<char*>(storage);
  size_t used = 0;
  int n = std::min<int>(max_values, static_cast<int>(v->list_s.size()));
  for (int i = 0; i < n; ++i) {
    const std::string& s = v->list_s[i];
    if (used + s.size() > storage_size) {
      opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                       "Not enough storage to hold the strings of attr '" +
                           std::string(attr_name) + "'");
      return;
    }
    std::memcpy(out + used, s.data(), s.size());
    values[i] = out + used;
    lengths[i] = s.size();
    used += s.size();
  }
}

void TF_OperationGetAttrInt(TF_Operation* oper, const char* attr_name, int64_t* value,
                            TF_Status* status) {
  if (auto* v = FindAttrOfKind(__func__, oper, attr_name, AttrValue::kInt, "int", status, value)) *value = v->i;
}

void TF_OperationGetAttrIntList(TF_Operation* oper, const char* attr_name, int64_t* values,
                                int max_values, TF_Status* status) {
  if (auto* v = FindAttrOfKind(__func__, oper, attr_name, AttrValue::kListInt, "list(int)", status, OutArray(values, max_values)))
    CopyOut(v->list_i, values, max_values);
}

void TF_OperationGetAttrFloat(TF_Operation* oper, const char* attr_name, float* value,
                              TF_Status* status) {
  if (auto* v = FindAttrOfKind(__func__, oper, attr_name, AttrValue::kFloat, "float", status, value)) *value = v->f;
}

void TF_OperationGetAttrFloatList(TF_Operation* oper, const char* attr_name, float* values,
                                  int max_values, TF_Status* status) {
  if (auto* v = FindAttrOfKind(__func__, oper, attr_name, AttrValue::kListFloat, "list(float)", status, OutArray(values, max_values)))
    CopyOut(v->list_f, values, max_values);
}

void TF_OperationGetAttrBool(TF_Operation* oper, const char* attr_name, unsigned char* value,
                             TF_Status* status) {
  if (auto* v = FindAttrOfKind(__func__, oper, attr_name, AttrValue::kBool, "bool", status, value)) *value = v->b;
}

void TF_OperationGetAttrBoolList(TF_Operation* oper, const char* attr_name,
                                 unsigned char* values, int max_values, TF_Status* status) {
  if (auto* v = FindAttrOfKind(__func__, oper, attr_name, AttrValue::kListBool, "list(bool)", status, OutArray(values, max_values)))
    CopyOut(v->list_b, values, max_values);
}

void TF_OperationGetAttrType(TF_Operation* oper, const char* attr_name, TF_DataType* value,
                             TF_Status* status) {
  if (auto* v = FindAttrOfKind(__func__, oper, attr_name, AttrValue::kType, "type", status, value)) *value = v->type;
}

void TF_OperationGetAttrTypeList(TF_Operation* oper, const char* attr_name, TF_DataType* values,
                                 int max_values, TF_Status* status) {
  if (auto* v = FindAttrOfKind(__func__, oper, attr_name, AttrValue::kListType, "list(type)", status, OutArray(values, max_values)))
    CopyOut(v->list_type, values, max_values);
}

void TF_OperationGetAttrShape(TF_Operation* oper, const char* attr_name, int64_t* value,
                              int num_dims, TF_Status* status) {
  if (auto* v = FindAttrOfKind(__func__, oper, attr_name, AttrValue::kShape, "shape", status,
                               OutArray(value, num_dims)))
    CopyOut(v->shape.dims, value, num_dims);
}

void TF_OperationGetAttrShapeList(TF_Operation* oper, const char* attr_name, int64_t** dims,
                                  int* num_dims, int num_shapes, int64_t* storage,
                                  int storage_size, TF_Status* status) {
  const AttrValue* v =
      FindAttrOfKind(__func__, oper, attr_name, AttrValue::kListShape, "list(shape)", status,
                     num_shapes > 0 && (dims == nullptr || num_dims == nullptr ||
                                        (storage == nullptr && storage_size > 0))
                         ? nullptr : kNoOutput);
  if (v == nullptr) return;
  int used = 0;
  int n = std::min<int>(num_shapes, static_cast<int>(v->list_shape.size()));
  for (int i = 0; i < n; ++i) {
    const opgen::Shape& s = v->list_shape[i];
    num_dims[i] = s.unknown_rank ? -1 : static_cast<int>(s.dims.size());
    dims[i] = nullptr;
    if (s.unknown_rank) continue;
    if (used + static_cast<int>(s.dims.size()) > storage_size) {
      opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                       "Not enough storage to hold the shapes of attr '" +
                           std::string(attr_name) + "'");
      return;
    }
    std::copy(s.dims.begin(), s.dims.end(), storage + used);
    dims[i] = storage + used;
    used += static_cast<int>(s.dims.size());
  }
}

void TF_OperationGetAttrTensorShapeProto(TF_Operation* oper, const char* attr_name,
                                         TF_Buffer* value, TF_Status* status) {
  if (auto* v = FindAttrOfKind(__func__, oper, attr_name, AttrValue::kShape, "shape", status, value))
    FillBuffer(value, SerializeShapeProto(v->shape));
}

void TF_OperationGetAttrTensorShapeProtoList(TF_Operation* oper, const char* attr_name,
                                             TF_Buffer** values, int max_values,
                                             TF_Status* status) {
  const AttrValue* v =
      FindAttrOfKind(__func__, oper, attr_name, AttrValue::kListShape, "list(shape)", status,
                     OutArray(values, max_values));
  if (v == nullptr) return;
  int n = std::min<int>(max_values, static_cast<int>(v->list_shape.size()));
  for (int i = 0; i < n; ++i) {
    std::string bytes = SerializeShapeProto(v->list_shape[i]);
    values[i] = TF_NewBufferFromString(bytes.data(), bytes.size());
  }
}

void TF_OperationGetAttrTensor(TF_Operation* oper, const char* attr_name, TF_Tensor** value,
                               TF_Status* status) {
  const AttrValue* v = FindAttrOfKind(__func__, oper, attr_name, AttrValue::kTensor, "tensor", status, value);
  if (v == nullptr) return;
  std::string error;
  TF_Tensor* t = v->tensor_proto.NewCopy(&error);  // the caller's to write
  if (t == nullptr) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     "Attr '" + std::string(attr_name) + "' of '" + oper->name + "': " + error);
    return;
  }
  *value = t;
}

void TF_OperationGetAttrTensorList(TF_Operation* oper, const char* attr_name, TF_Tensor** values,
                                   int max_values, TF_Status* status) {
  const AttrValue* v =
      FindAttrOfKind(__func__, oper, attr_name, AttrValue::kListTensor, "list(tensor)", status, OutArray(values, max_values));
  if (v == nullptr) return;
  int n = std::min<int>(max_values, static_cast<int>(v->list_s.size()));
  std::vector<TF_Tensor*> out;
  for (int i = 0; i < n; ++i) {
    std::string error;
    TF_Tensor* t = opgen::ParseTensorProto(v->list_s[i], &error);
    if (t == nullptr) {
      for (TF_Tensor* made : out) delete made;
      opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                       "Attr '" + std::string(attr_name) + "' of '" + oper->name + "': " + error);
      return;
    }
    out.push_back(t);
  }
  std::copy(out.begin(), out.end(), values);
}

void TF_OperationGetAttrValueProto(TF_Operation* oper, const char* attr_name,
                                   TF_Buffer* output_attr_value, TF_Status* status) {
  if (auto* v = FindAttr(__func__, oper, attr_name, status, output_attr_value))
    FillBuffer(output_attr_value, opgen::SerializeAttrValue(*v));
}

int TF_OperationGetNumAttrs(TF_Operation* oper) { return static_cast<int>(oper->attrs.size()); }

int TF_OperationGetAttrNameLength(TF_Operation* oper, int i) {
  if (i < 0 || i >= static_cast<int>(oper->attrs.size())) return -1;
  return static_cast<int>(std::next(oper->attrs.begin(), i)->first.size());
}

void TF_OperationGetAttrName(TF_Operation* oper, int i, char* output, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"oper", oper}, {"output", output}})) return;
  if (i < 0 || i >= static_cast<int>(oper->attrs.size())) {
    opgen::SetStatus(status, TF_OUT_OF_RANGE,
                     "Attr index " + std::to_string(i) + " out of range for '" + oper->name +
                         "', which has " + std::to_string(oper->attrs.size()) + " attrs");
    return;
  }
  const std::string& name = std::next(oper->attrs.begin(), i)->first;
  std::memcpy(output, name.data(), name.size());
  opgen::ClearStatus(status);
}

void TF_OperationToNodeDef(TF_Operation* oper, TF_Buffer* output_node_def, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"oper", oper}, {"output_node_def", output_node_def}}))
    return;
  try {
    FillBuffer(output_node_def, opgen::SerializeNodeDef(opgen::ToNodeDef(*oper)));
    opgen::ClearStatus(status);
  } catch (const std::exception& e) {
    opgen::SetStatus(status, TF_INTERNAL, e.what());
  }
}

// ---- Graph queries ---------------------------------------------------------------------------

TF_Operation* TF_GraphOperationByName(TF_Graph* graph, const char* oper_name) {
  std::lock_guard<std::mutex> lock(graph->mu);
  auto it = graph->by_name.find(oper_name ? oper_name : "");
  return it == graph->by_name.end() ? nullptr : it->second;
}

TF_Operation* TF_GraphNextOperation(TF_Graph* graph, size_t* pos) {
  std::lock_guard<std::mutex> lock(graph->mu);
  if (*pos >= graph->ops.size()) return nullptr;
  return graph->ops[(*pos)++].get();
}

void TF_GraphSetTensorShape(TF_Graph* graph, TF_Output output, const int64_t* dims,
                            const int num_dims, TF_Status* status) {
  if (!CheckOutput(__func__, graph, output, status)) return;
  std::string error;
  if (!opgen::CheckPartialDims(dims, num_dims, &error)) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     "TF_GraphSetTensorShape of '" + opgen::OutputName(output) + "': " + error);
    return;
  }
  std::lock_guard<std::mutex> lock(graph->mu);
  opgen::Shape& have = output.oper->output_shapes[output.index];
  opgen::Shape given = MakeShape(dims, num_dims);
  if (given.unknown_rank) {
    opgen::ClearStatus(status);
    return;
  }
  if (!have.unknown_rank) {
    auto describe = [](const opgen::Shape& s) { return opgen::ShapeToString(s.dims); };
    bool compatible = have.dims.size() == given.dims.size();
    for (size_t i = 0; compatible && i < given.dims.size(); ++i) {
      if (have.dims[i] >= 0 && given.dims[i] >= 0 && have.dims[i] != given.dims[i])
        compatible = false;
    }
    if (!compatible) {
      opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                       "Shape " + describe(given) + " is incompatible with the known shape " +
                           describe(have) + " of '" + opgen::OutputName(output) + "'");
      return;
    }
    for (size_t i = 0; i < given.dims.size(); ++i)
      if (given.dims[i] < 0) given.dims[i] = have.dims[i];
  }
  have = std::move(given);
  opgen::ClearStatus(status);
}

int TF_GraphGetTensorNumDims(TF_Graph* graph, TF_Output output, TF_Status* status) {
  if (!CheckOutput(__func__, graph, output, status)) return -1;
  std::lock_guard<std::mutex> lock(graph->mu);
  const opgen::Shape& s = output.oper->output_shapes[output.index];
  opgen::ClearStatus(status);
  return s.unknown_rank ? -1 : static_cast<int>(s.dims.size());
}

void TF_GraphGetTensorShape(TF_Graph* graph, TF_Output output, int64_t* dims, int num_dims,
                            TF_Status* status) {
  if (!CheckOutput(__func__, graph, output, status)) return;
  std::lock_guard<std::mutex> lock(graph->mu);
  const opgen::Shape& s = output.oper->output_shapes[output.index];
  if (!opgen::CheckNotNull(status, __func__, {{"dims", OutArray(dims, num_dims)}})) return;
  int rank = s.unknown_rank ? -1 : static_cast<int>(s.dims.size());
  if (num_dims != rank) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     "Expected rank " + std::to_string(rank) + " for '" +
                         opgen::OutputName(output) + "', got num_dims " +
                         std::to_string(num_dims));
    return;
  }
  std::copy(s.dims.begin(), s.dims.end(), dims);
  opgen::ClearStatus(status);
}

void TF_GraphGetOpDef(TF_Graph* graph, const char* op_name, TF_Buffer* output_op_def,
                      TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"output_op_def", output_op_def}}) ||
      !opgen::EnsureRuntimeInitialized(status))
    return;
  const opgen::OpDef* def = opgen::OpRegistry::Global().Find(op_name ? op_name : "");
  if (def == nullptr) {
    opgen::SetStatus(status, TF_NOT_FOUND,
                     "Op type not registered '" + std::string(op_name ? op_name : "") + "'");
    return;
  }
  FillBuffer(output_op_def, opgen::SerializeOpDef(*def));
  opgen::ClearStatus(status);
}

}  // extern "C"
