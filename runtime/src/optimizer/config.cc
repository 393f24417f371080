// What a session takes from its ConfigProto and the environment: the optimizer's
// switches and the intra-op thread limit, read with the runtime's wire-format cursor
// (field numbers from TensorFlow's config.proto and rewriter_config.proto).
#include <cstdlib>
#include <cstring>
#include <strings.h>

#include "../wire_reader.h"
#include "optimizer.h"

namespace opgen {
namespace {

// ConfigProto.intra_op_parallelism_threads.
constexpr uint32_t kIntraOpThreads = 2;
// ConfigProto.graph_options, GraphOptions.optimizer_options / rewrite_options,
// OptimizerOptions.opt_level, RewriterConfig's toggles.
constexpr uint32_t kGraphOptions = 10;
constexpr uint32_t kOptimizerOptions = 3, kRewriteOptions = 10;
constexpr uint32_t kOptLevel = 3;
constexpr uint32_t kConstantFolding = 3, kArithmetic = 7, kDependency = 8, kRemapping = 14,
                   kDisableMetaOptimizer = 19;
constexpr int64_t kL0 = -1;       // OptimizerOptions.Level.L0
constexpr uint64_t kToggleOff = 2;  // RewriterConfig.Toggle.OFF

// Calls `field(number, wire_type, reader)` for each field of `bytes`; `field` reads or
// skips the value. Malformed bytes stop the walk (TF_SetConfig checked them already).
template <typename Field>
void ForEachField(wire::Bytes bytes, Field field) {
  wire::Reader r(bytes);
  uint32_t number, type;
  while (r.more() && r.tag(&number, &type)) {
    if (!field(number, type, r) && !r.skip(type, number)) return;
  }
}

void ReadRewriterConfig(wire::Bytes bytes, OptimizerOptions* o) {
  ForEachField(bytes, [&](uint32_t number, uint32_t type, wire::Reader& r) {
    if (type != wire::kVarint) return false;
    uint64_t v;
    if (!r.varint(&v)) return true;
    if (number == kDisableMetaOptimizer && v != 0) o->enabled = false;
    if (v == kToggleOff) {
      if (number == kConstantFolding) o->constant_folding = false;
      if (number == kArithmetic) o->arithmetic = false;
      if (number == kRemapping) o->remapping = false;
      if (number == kDependency) o->identity_removal = false;
    }
    return true;
  });
}

void ReadGraphOptions(wire::Bytes bytes, OptimizerOptions* o) {
  ForEachField(bytes, [&](uint32_t number, uint32_t type, wire::Reader& r) {
    if (type != wire::kLengthDelimited) return false;
    wire::Bytes sub;
    if (!r.length_delimited(&sub)) return true;
    if (number == kRewriteOptions) ReadRewriterConfig(sub, o);
    if (number == kOptimizerOptions) {
      ForEachField(sub, [&](uint32_t n, uint32_t t, wire::Reader& rr) {
        if (n != kOptLevel || t != wire::kVarint) return false;
        uint64_t v;
        if (rr.varint(&v) && static_cast<int64_t>(v) == kL0) o->enabled = false;
        return true;
      });
    }
    return true;
  });
}

bool EnvIsSet(const char* name, bool* value) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return false;
  *value = !(std::strcmp(v, "0") == 0 || strcasecmp(v, "false") == 0 || strcasecmp(v, "off") == 0);
  return true;
}

}  // namespace

OptimizerOptions ParseOptimizerConfig(const std::string& config) {
  OptimizerOptions o;
  ForEachField(config, [&](uint32_t number, uint32_t type, wire::Reader& r) {
    if (number != kGraphOptions || type != wire::kLengthDelimited) return false;
    wire::Bytes sub;
    if (r.length_delimited(&sub)) ReadGraphOptions(sub, &o);
    return true;
  });
  bool on;
  if (EnvIsSet("OPGEN_GRAPH_OPTIMIZER", &on) && !on) o.enabled = false;
  EnvIsSet("OPGEN_LOG_OPTIMIZER", &o.log);
  return o;
}

int64_t ParseIntraOpThreads(const std::string& config) {
  int64_t threads = 0;
  ForEachField(config, [&](uint32_t number, uint32_t type, wire::Reader& r) {
    if (number != kIntraOpThreads || type != wire::kVarint) return false;
    uint64_t v;
    // An int32 field: negative values come as 10-byte varints; 0 and below mean "unset".
    if (r.varint(&v)) threads = static_cast<int32_t>(v) > 0 ? static_cast<int32_t>(v) : 0;
    return true;
  });
  return threads;
}

}  // namespace opgen
