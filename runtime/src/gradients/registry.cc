// The two gradient tables and the public registration calls of opgen/gradients.h.
#include "registry.h"

#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "core_types.h"

namespace opgen {
namespace gradients {

struct Tables {
  std::shared_mutex mu;
  std::unordered_map<std::string, GradientEntry> builtin, registered;
  std::string startup_error;  // a duplicate built-in registration
};

Tables& GetTables() {
  static Tables* tables = new Tables();  // never destroyed: plugins may call at exit
  return *tables;
}

namespace {

void AddBuiltin(const char* op_type, const GradientEntry& entry) {
  Tables& t = GetTables();
  std::unique_lock<std::shared_mutex> lock(t.mu);
  if (!t.builtin.emplace(op_type, entry).second && t.startup_error.empty())
    t.startup_error = std::string("two built-in gradient functions for op ") + op_type;
}

}  // namespace

void RegisterBuiltinGradient(const char* op_type, OPGEN_GradientFunction fn, void* user_data) {
  AddBuiltin(op_type, GradientEntry{fn, user_data, false});
}

void RegisterBuiltinNotDifferentiable(const char* op_type) {
  AddBuiltin(op_type, GradientEntry{nullptr, nullptr, true});
}

bool EnsureBuiltinGradients(TF_Status* status) {
  static std::once_flag once;
  std::call_once(once, [] { opgen_register_builtin_gradients(); });
  Tables& t = GetTables();
  std::shared_lock<std::shared_mutex> lock(t.mu);
  if (!t.startup_error.empty()) {
    SetStatus(status, TF_INTERNAL, "the built-in gradient registry failed: " + t.startup_error);
    return false;
  }
  return true;
}

bool LookupGradient(const std::string& op_type, GradientEntry* entry, TF_Status* status) {
  if (!EnsureBuiltinGradients(status)) return false;
  Tables& t = GetTables();
  std::shared_lock<std::shared_mutex> lock(t.mu);
  for (auto* table : {&t.registered, &t.builtin}) {
    auto it = table->find(op_type);
    if (it != table->end()) {
      *entry = it->second;
      return true;
    }
  }
  return false;
}

}  // namespace gradients
}  // namespace opgen

using opgen::gradients::GradientEntry;

namespace {

bool CheckOpType(const char* op_type, TF_Status* status) {
  if (op_type == nullptr || *op_type == '\0') {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT, "a gradient needs a non-empty op type");
    return false;
  }
  return true;
}

void SetRegistered(const char* op_type, const GradientEntry* entry) {
  auto& t = opgen::gradients::GetTables();
  std::unique_lock<std::shared_mutex> lock(t.mu);
  if (entry == nullptr) t.registered.erase(op_type);
  else t.registered[op_type] = *entry;
}

}  // namespace

extern "C" {

void OPGEN_RegisterGradient(const char* op_type, OPGEN_GradientFunction fn, void* user_data,
                            TF_Status* status) {
  opgen::SetStatus(status, TF_OK, "");
  if (!CheckOpType(op_type, status)) return;
  if (fn == nullptr) {
    SetRegistered(op_type, nullptr);
    return;
  }
  GradientEntry entry{fn, user_data, false};
  SetRegistered(op_type, &entry);
}

void OPGEN_RegisterNotDifferentiable(const char* op_type, TF_Status* status) {
  opgen::SetStatus(status, TF_OK, "");
  if (!CheckOpType(op_type, status)) return;
  GradientEntry entry{nullptr, nullptr, true};
  SetRegistered(op_type, &entry);
}

int OPGEN_HasGradient(const char* op_type) {
  if (op_type == nullptr) return 0;
  TF_Status status;
  GradientEntry entry;
  return opgen::gradients::LookupGradient(op_type, &entry, &status) ? 1 : 0;
}

}  // extern "C"
