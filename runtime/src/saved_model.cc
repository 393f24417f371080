// TF_LoadSessionFromSavedModel: reads saved_model.pb with the wire cursor (only the
// fields loading needs: tags, graph_def, saver_def, collections, signatures, assets), and
// does the rest through the public C API - import, session, restore and init runs - so it
// behaves as a user's code calling those would. TF1 and TF2 SavedModels load the same
// way; a TF2 graph also needs the runtime to run its functions.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/tf_tstring.h"
#include "wire_reader.h"

namespace {

namespace fs = std::filesystem;
using opgen::wire::Bytes;
using opgen::wire::Reader;

// The parts of one MetaGraphDef that loading uses (views into the file's bytes).
struct MetaGraph {
  Bytes whole;
  std::vector<std::string> tags;
  Bytes graph_def;
  std::string filename_tensor, restore_op;
  std::map<std::string, std::string> first_node_of_collection;
  std::string init_signature_output;  // "__saved_model_init_op"'s output tensor
  std::vector<std::pair<std::string, std::string>> assets;  // tensor name, file name
};

// Calls `on(number, bytes)` for each length-delimited field of `bytes`, skipping the
// others; false when the bytes are malformed.
template <typename On>
bool Fields(Bytes bytes, On on) {
  Reader r(bytes);
  uint32_t number, wire_type;
  while (r.more() && r.tag(&number, &wire_type)) {
    if (wire_type != opgen::wire::kLengthDelimited) {
      if (!r.skip(wire_type, number)) return false;
      continue;
    }
    Bytes value;
    if (!r.length_delimited(&value) || !on(number, value)) return false;
  }
  return r.ok;
}

// The string field `field` of message `bytes` (the last one, as protobuf reads it).
bool StringField(Bytes bytes, uint32_t field, std::string* out) {
  return Fields(bytes, [&](uint32_t n, Bytes v) {
    if (n == field) out->assign(v);
    return true;
  });
}

// A map<string, M> entry: key (1) and value (2).
bool MapEntry(Bytes entry, std::string* key, Bytes* value) {
  return Fields(entry, [&](uint32_t n, Bytes v) {
    if (n == 1) key->assign(v);
    if (n == 2) *value = v;
    return true;
  });
}

bool ParseMetaGraph(Bytes bytes, MetaGraph* m) {
  m->whole = bytes;
  return Fields(bytes, [&](uint32_t n, Bytes v) {
    switch (n) {
      case 1:  // meta_info_def: tags = 4
        return Fields(v, [&](uint32_t f, Bytes t) {
          if (f == 4) m->tags.emplace_back(t);
          return true;
        });
      case 2: m->graph_def = v; return true;
      case 3:  // saver_def: filename_tensor_name = 1, restore_op_name = 3
        return StringField(v, 1, &m->filename_tensor) && StringField(v, 3, &m->restore_op);
      case 4: {  // collection_def: CollectionDef.node_list (1).value (1)
        std::string key;
        Bytes collection;
        if (!MapEntry(v, &key, &collection)) return false;
        return Fields(collection, [&](uint32_t f, Bytes list) {
          if (f != 1) return true;
          std::string first;
          bool have = false;
          bool ok = Fields(list, [&](uint32_t g, Bytes node) {
            if (g == 1 && !have) first.assign(node), have = true;
            return true;
          });
          if (have) m->first_node_of_collection[key] = first;
          return ok;
        });
      }
      case 5: {  // signature_def: only the init op's output name is needed here
        std::string key;
        Bytes signature;
        if (!MapEntry(v, &key, &signature)) return false;
        if (key != "__saved_model_init_op") return true;
        return Fields(signature, [&](uint32_t f, Bytes entry) {
          if (f != 2) return true;  // outputs
          std::string out_key;
          Bytes info;
          return MapEntry(entry, &out_key, &info) &&
                 StringField(info, 1, &m->init_signature_output);
        });
      }
      case 6: {  // asset_file_def: tensor_info = 1 (name = 1), filename = 2
        std::string tensor, file;
        bool ok = Fields(v, [&](uint32_t f, Bytes part) {
          if (f == 1) return StringField(part, 1, &tensor);
          if (f == 2) file.assign(part);
          return true;
        });
        m->assets.emplace_back(tensor, file);
        return ok;
      }
      default: return true;
    }
  });
}

void Set(TF_Status* status, TF_Code code, const std::string& message) {
  TF_SetStatus(status, code, message.c_str());
}

std::string TagSet(std::vector<std::string> tags) {
  std::sort(tags.begin(), tags.end());
  std::string out = "{";
  for (size_t i = 0; i < tags.size(); ++i) out += (i ? ", " : "") + tags[i];
  return out + "}";
}

// "node:1" -> the graph's output; "node" means output 0.
bool Resolve(TF_Graph* graph, const std::string& name, TF_Output* out, TF_Operation** op) {
  const size_t colon = name.rfind(':');
  std::string node = name;
  int index = 0;
  if (colon != std::string::npos && colon + 1 < name.size() &&
      name.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
    node = name.substr(0, colon);
    index = std::stoi(name.substr(colon + 1));
  }
  TF_Operation* found = TF_GraphOperationByName(graph, node.c_str());
  if (found == nullptr) return false;
  if (out != nullptr) *out = TF_Output{found, index};
  if (op != nullptr) *op = found;
  return true;
}

TF_Tensor* StringScalar(const std::string& value) {
  TF_Tensor* t = TF_AllocateTensor(TF_STRING, nullptr, 0, sizeof(TF_TString));
  if (t != nullptr) TF_StringCopy(static_cast<TF_TString*>(TF_TensorData(t)), value.data(), value.size());
  return t;
}

// Feeds (tensor name -> string value) and one target op, run once; `what` prefixes
// errors.
bool RunTarget(TF_Session* session, TF_Graph* graph, const TF_Buffer* run_options,
               const std::vector<std::pair<std::string, std::string>>& feeds,
               const std::string& target, const std::string& what, TF_Status* status) {
  TF_Operation* op = nullptr;
  if (!Resolve(graph, target, nullptr, &op)) {
    Set(status, TF_NOT_FOUND, what + ": the graph has no op '" + target + "'");
    return false;
  }
  std::vector<TF_Output> inputs;
  std::vector<TF_Tensor*> values;
  bool ok = true;
  for (const auto& [name, value] : feeds) {
    TF_Output output;
    if (!Resolve(graph, name, &output, nullptr)) {
      Set(status, TF_NOT_FOUND, what + ": the graph has no tensor '" + name + "' to feed");
      ok = false;
      break;
    }
    TF_Tensor* t = StringScalar(value);
    if (t == nullptr) {
      Set(status, TF_RESOURCE_EXHAUSTED, what + ": out of memory");
      ok = false;
      break;
    }
    inputs.push_back(output);
    values.push_back(t);
  }
  if (ok) {
    TF_SessionRun(session, run_options, inputs.data(), values.data(),
                  static_cast<int>(inputs.size()), nullptr, nullptr, 0, &op, 1, nullptr, status);
    if (TF_GetCode(status) != TF_OK) {
      Set(status, TF_GetCode(status), what + ": " + TF_Message(status));
      ok = false;
    }
  }
  for (TF_Tensor* t : values) TF_DeleteTensor(t);
  return ok;
}

bool HasVariables(TF_Graph* graph) {
  size_t pos = 0;
  while (TF_Operation* op = TF_GraphNextOperation(graph, &pos)) {
    const std::string_view type = TF_OperationOpType(op);
    if (type == "VarHandleOp" || type == "VariableV2" || type == "Variable") return true;
  }
  return false;
}

TF_Session* Load(const TF_SessionOptions* session_options, const TF_Buffer* run_options,
                 const std::string& dir, const std::set<std::string>& tags, TF_Graph* graph,
                 TF_Buffer* meta_graph_def, TF_Status* status) {
  const std::string where = "SavedModel " + dir;
  size_t pos = 0;
  if (TF_GraphNextOperation(graph, &pos) != nullptr) {
    Set(status, TF_INVALID_ARGUMENT, "TF_LoadSessionFromSavedModel: the graph must be empty");
    return nullptr;
  }
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    Set(status, TF_NOT_FOUND, "SavedModel directory " + dir + " does not exist");
    return nullptr;
  }
  const fs::path pb = fs::path(dir) / "saved_model.pb";
  std::ifstream file(pb, std::ios::binary);
  if (!file) {
    Set(status, TF_NOT_FOUND, dir + " is not a SavedModel: it has no saved_model.pb");
    return nullptr;
  }
  const std::string data((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) {
    Set(status, TF_DATA_LOSS, "cannot read " + pb.string());
    return nullptr;
  }

  std::vector<MetaGraph> metas;
  const bool parsed = Fields(data, [&](uint32_t n, Bytes v) {
    if (n != 2) return true;  // meta_graphs
    metas.emplace_back();
    return ParseMetaGraph(v, &metas.back());
  });
  if (!parsed || metas.empty()) {
    Set(status, TF_DATA_LOSS, pb.string() + (parsed ? " holds no MetaGraphDef"
                                                    : " is not a SavedModel proto"));
    return nullptr;
  }
  const MetaGraph* meta = nullptr;
  std::string available;
  for (const MetaGraph& m : metas) {
    if (std::set<std::string>(m.tags.begin(), m.tags.end()) == tags && meta == nullptr) meta = &m;
    available += (available.empty() ? "" : "; ") + TagSet(m.tags);
  }
  if (meta == nullptr) {
    Set(status, TF_NOT_FOUND, where + " has no MetaGraphDef with tags " +
                                  TagSet({tags.begin(), tags.end()}) + "; its tag sets are: " +
                                  available);
    return nullptr;
  }

  TF_Buffer graph_def{meta->graph_def.data(), meta->graph_def.size(), nullptr};
  TF_ImportGraphDefOptions* import_options = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(graph, &graph_def, import_options, status);
  TF_DeleteImportGraphDefOptions(import_options);
  if (TF_GetCode(status) != TF_OK) {
    const std::string message = TF_Message(status);
    const bool missing_op = message.find("Op type not registered") != std::string::npos;
    Set(status, missing_op ? TF_UNIMPLEMENTED : TF_GetCode(status),
        where + (missing_op ? ": its graph uses an op opgen's runtime does not run"
                              " (TF2 SavedModels call functions): "
                            : ": importing its graph failed: ") + message);
    return nullptr;
  }

  const fs::path prefix = fs::path(dir) / "variables" / "variables";
  const bool has_checkpoint = fs::is_regular_file(prefix.string() + ".index", ec);
  if (!has_checkpoint && HasVariables(graph)) {
    Set(status, TF_NOT_FOUND, where + " has variables but no checkpoint at " +
                                  prefix.string() + ".index (variables/ is missing or incomplete)");
    return nullptr;
  }
  TF_Session* session = TF_NewSession(graph, session_options, status);
  if (TF_GetCode(status) != TF_OK) return nullptr;

  std::vector<std::pair<std::string, std::string>> feeds;
  for (const auto& [tensor, file_name] : meta->assets)
    feeds.emplace_back(tensor, (fs::path(dir) / "assets" / file_name).string());
  bool ok = true;
  if (has_checkpoint && !meta->restore_op.empty()) {
    auto restore_feeds = feeds;
    restore_feeds.emplace_back(meta->filename_tensor, prefix.string());
    ok = RunTarget(session, graph, run_options, restore_feeds, meta->restore_op,
                   "restoring the variables of " + where + " from " + prefix.string(), status);
  }
  std::string init = meta->init_signature_output;
  for (const char* key : {"saved_model_main_op", "legacy_init_op"}) {
    auto it = meta->first_node_of_collection.find(key);
    if (init.empty() && it != meta->first_node_of_collection.end()) init = it->second;
  }
  if (ok && !init.empty())
    ok = RunTarget(session, graph, run_options, feeds, init, "running the init op of " + where,
                   status);
  if (ok && meta_graph_def != nullptr) {
    if (meta_graph_def->data_deallocator)
      meta_graph_def->data_deallocator(const_cast<void*>(meta_graph_def->data),
                                       meta_graph_def->length);
    void* copy = std::malloc(meta->whole.size() ? meta->whole.size() : 1);
    if (copy == nullptr) {
      Set(status, TF_RESOURCE_EXHAUSTED, "out of memory for the MetaGraphDef");
      ok = false;
    } else {
      std::memcpy(copy, meta->whole.data(), meta->whole.size());
      meta_graph_def->data = copy;
      meta_graph_def->length = meta->whole.size();
      meta_graph_def->data_deallocator = [](void* p, size_t) { std::free(p); };
    }
  }
  if (!ok) {
    TF_Status* ignored = TF_NewStatus();
    TF_DeleteSession(session, ignored);
    TF_DeleteStatus(ignored);
    return nullptr;
  }
  return session;
}

}  // namespace

TF_Session* TF_LoadSessionFromSavedModel(const TF_SessionOptions* session_options,
                                         const TF_Buffer* run_options, const char* export_dir,
                                         const char* const* tags, int tags_len, TF_Graph* graph,
                                         TF_Buffer* meta_graph_def, TF_Status* status) {
  if (export_dir == nullptr || graph == nullptr || (tags == nullptr && tags_len > 0) ||
      tags_len < 0) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT,
                 "TF_LoadSessionFromSavedModel: export_dir and graph must be given, and "
                 "tags when tags_len > 0");
    return nullptr;
  }
  try {
    std::set<std::string> tag_set;
    for (int i = 0; i < tags_len; ++i) {
      if (tags[i] == nullptr) {
        TF_SetStatus(status, TF_INVALID_ARGUMENT, "TF_LoadSessionFromSavedModel: a tag is NULL");
        return nullptr;
      }
      tag_set.insert(tags[i]);
    }
    TF_SetStatus(status, TF_OK, "");
    return Load(session_options, run_options, export_dir, tag_set, graph, meta_graph_def, status);
  } catch (const std::exception& e) {  // e.g. bad_alloc: reported, never thrown across the ABI
    TF_SetStatus(status, TF_INTERNAL, (std::string("TF_LoadSessionFromSavedModel: ") + e.what()).c_str());
    return nullptr;
  }
}
