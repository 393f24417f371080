// TF_LoadLibrary: op and kernel plugins loaded with dlopen. A plugin registers from a
// load-time constructor (or TF_InitKernel/registration code it runs then); the ops it
// registered are recorded as the library's OpList.
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <map>
#include <mutex>
#include <string>

#include "core_types.h"
#include "op_registry.h"
#include "plugin_symbols.h"
#include "tensorflow/c/c_api.h"
#include "tensorflow/c/ops.h"
#include "wire_format.h"

struct TF_Library {
  std::string path;
  void* handle;
  std::string op_list;  // serialized OpList of the ops the library registered
  int loads = 0;        // TF_LoadLibrary calls not yet matched by a delete
};

namespace {

struct LibraryTable {
  std::mutex mu;
  // Records live for the process: a library stays mapped once loaded, and loading it
  // again runs no constructors, so what the first load learned must be kept.
  std::map<std::string, TF_Library*> by_path;
  std::map<std::string, std::pair<TF_Code, std::string>> failed;
};

LibraryTable& Libraries() {
  static LibraryTable* table = new LibraryTable();
  return *table;
}

// Plugins resolve the C API against the runtime. When the runtime itself was loaded with
// RTLD_LOCAL (as Python's ctypes does), make its symbols global first.
void ExposeRuntimeSymbols() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&TF_LoadLibrary), &info) && info.dli_fname != nullptr)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
}

}  // namespace

extern "C" {

TF_Library* TF_LoadLibrary(const char* library_filename, TF_Status* status) {
  try {
    if (!opgen::EnsureRuntimeInitialized(status)) return nullptr;
    const std::string given = library_filename ? library_filename : "";
    if (given.empty()) {
      // dlopen("") hands back the main program, which is not a library of ops.
      opgen::SetStatus(status, TF_INVALID_ARGUMENT, "TF_LoadLibrary: the file name is empty");
      return nullptr;
    }
    char resolved[PATH_MAX];
    const std::string path = realpath(given.c_str(), resolved) ? resolved : given;

    LibraryTable& table = Libraries();
    std::lock_guard<std::mutex> lock(table.mu);  // one load at a time: the log is per load
    auto it = table.by_path.find(path);
    if (it != table.by_path.end()) {
      ++it->second->loads;
      opgen::ClearStatus(status);
      return it->second;
    }
    auto failed = table.failed.find(path);
    if (failed != table.failed.end()) {
      opgen::SetStatus(status, failed->second.first, failed->second.second);
      return nullptr;
    }
    ExposeRuntimeSymbols();
    std::string symbol, other;
    if (!opgen::PluginImportsBindToThisRuntime(path, &symbol, &other)) {
      opgen::SetStatus(
          status, TF_FAILED_PRECONDITION,
          "Cannot load library '" + given + "' into opgen: another copy of TensorFlow's C API (" +
              other + ") was loaded into this process's global symbol scope first (importing "
              "tensorflow does that), so the library's call of " + symbol + " would go there "
              "instead. Load it before importing tensorflow, or in a separate process.");
      return nullptr;
    }
    opgen::RegistrationLog log;
    opgen::RegistrationLog* previous = opgen::SetThreadRegistrationLog(&log);
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    opgen::SetThreadRegistrationLog(previous);
    if (handle == nullptr) {
      const char* why = dlerror();
      opgen::SetStatus(status, TF_NOT_FOUND,
                       "Cannot load library '" + given + "': " + (why ? why : "unknown error"));
      return nullptr;
    }
    if (!log.failures.empty()) {
      // Kept loaded: kernels it registered may point into it. The registry keeps the ops
      // that were there before.
      std::string message = "Library '" + given + "' failed to register its ops:";
      for (const std::string& f : log.failures) message += "\n  " + f;
      opgen::SetStatus(status, TF_ALREADY_EXISTS, message);
      for (const std::string& f : log.failures)
        if (f.find("already registered") == std::string::npos) status->code = TF_INVALID_ARGUMENT;
      table.failed[path] = {status->code, status->message};
      return nullptr;
    }
    std::vector<const opgen::OpDef*> ops;
    for (const std::string& name : log.registered)
      if (const opgen::OpDef* def = opgen::OpRegistry::Global().Find(name)) ops.push_back(def);
    auto* lib = new TF_Library{path, handle, opgen::SerializeOpList(ops), 1};
    table.by_path.emplace(path, lib);
    opgen::ClearStatus(status);
    return lib;
  } catch (const std::exception& e) {
    opgen::SetStatus(status, TF_INTERNAL, e.what());
    return nullptr;
  }
}

TF_Buffer TF_GetOpList(TF_Library* lib_handle) {
  return TF_Buffer{lib_handle->op_list.data(), lib_handle->op_list.size(), nullptr};
}

void TF_DeleteLibraryHandle(TF_Library* lib_handle) {
  if (lib_handle == nullptr) return;
  LibraryTable& table = Libraries();
  std::lock_guard<std::mutex> lock(table.mu);
  // The library stays mapped, since the ops and kernels it registered cannot be
  // unregistered; its record stays for a later load of the same path.
  if (lib_handle->loads > 0) --lib_handle->loads;
}

}  // extern "C"
