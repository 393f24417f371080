// Which definitions a plugin's C API calls would bind to, checked before it is loaded.
//
// A plugin (an op or kernel library, a device plugin) leaves its TF_* and OPGEN_* calls
// undefined; dlopen binds each to the first definition in the process's global symbol
// scope. When another copy of TensorFlow's C API is there (`import tensorflow` puts
// libtensorflow_framework's TF_NewStatus, TF_AllocateOutput, ... there), some of a
// plugin's calls would go to TensorFlow and others (OPGEN_*, or names TensorFlow does
// not export globally) to opgen, mixing two libraries' objects: a crash. Checking every
// name the plugin imports, not one probe name, is what makes the refusal reliable.
#ifndef OPGEN_RUNTIME_SRC_PLUGIN_SYMBOLS_H_
#define OPGEN_RUNTIME_SRC_PLUGIN_SYMBOLS_H_

#include <string>

namespace opgen {

// False when a TF_* / OPGEN_* name the ELF file at `path` imports would bind to a
// definition outside this runtime; `symbol` and `library` then name the first such
// import and the library that defines it. True when all bind here, or when `path` is
// not an ELF shared object this check can read (dlopen then reports the problem).
bool PluginImportsBindToThisRuntime(const std::string& path, std::string* symbol,
                                    std::string* library);

}  // namespace opgen

#endif  // OPGEN_RUNTIME_SRC_PLUGIN_SYMBOLS_H_
