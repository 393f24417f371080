#include "plugin_symbols.h"

#include <dlfcn.h>
#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "tensorflow/c/c_api.h"

namespace opgen {
namespace {

bool IsCApiName(const char* name) {
  return std::strncmp(name, "TF_", 3) == 0 || std::strncmp(name, "OPGEN_", 6) == 0;
}

// The names of the undefined symbols in a 64-bit ELF file's dynamic symbol table.
bool UndefinedDynamicSymbols(const std::string& path, std::vector<std::string>* names) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return false;
  const std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                                std::istreambuf_iterator<char>());
  if (bytes.size() < sizeof(Elf64_Ehdr) || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0 ||
      bytes[EI_CLASS] != ELFCLASS64)
    return false;
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  auto section = [&](size_t i, Elf64_Shdr* out) {
    const size_t at = eh.e_shoff + i * sizeof(Elf64_Shdr);
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || i >= eh.e_shnum || at + sizeof *out > bytes.size())
      return false;
    std::memcpy(out, bytes.data() + at, sizeof *out);
    return true;
  };
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr symtab, strtab;
    if (!section(i, &symtab) || symtab.sh_type != SHT_DYNSYM) continue;
    if (!section(symtab.sh_link, &strtab) || strtab.sh_offset + strtab.sh_size > bytes.size() ||
        symtab.sh_offset + symtab.sh_size > bytes.size() || symtab.sh_entsize != sizeof(Elf64_Sym))
      return false;
    for (size_t k = 0; k < symtab.sh_size / sizeof(Elf64_Sym); ++k) {
      Elf64_Sym sym;
      std::memcpy(&sym, bytes.data() + symtab.sh_offset + k * sizeof sym, sizeof sym);
      if (sym.st_shndx != SHN_UNDEF || sym.st_name >= strtab.sh_size) continue;
      const char* name = bytes.data() + strtab.sh_offset + sym.st_name;
      if (memchr(name, '\0', strtab.sh_size - sym.st_name) == nullptr) return false;
      names->emplace_back(name);
    }
    return true;
  }
  return false;
}

}  // namespace

bool PluginImportsBindToThisRuntime(const std::string& path, std::string* symbol,
                                    std::string* library) {
  std::vector<std::string> names;
  if (!UndefinedDynamicSymbols(path, &names)) return true;
  Dl_info self;
  if (!dladdr(reinterpret_cast<void*>(&TF_NewStatus), &self) || self.dli_fname == nullptr)
    return true;
  void* runtime = dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (runtime == nullptr) return true;
  // The global scope as a plugin sees it. Not dlsym(RTLD_DEFAULT, ...): that searches
  // from the caller, and this library is linked -Bsymbolic, so it would find itself
  // first and never see another copy.
  void* global = dlopen(nullptr, RTLD_NOW);
  bool ok = true;
  for (const std::string& name : names) {
    if (!IsCApiName(name.c_str())) continue;
    void* ours = dlsym(runtime, name.c_str());
    void* first = global ? dlsym(global, name.c_str()) : nullptr;
    if (ours == nullptr || first == nullptr || first == ours) continue;
    Dl_info info;
    *symbol = name;
    *library = dladdr(first, &info) && info.dli_fname ? info.dli_fname : "another library";
    ok = false;
    break;
  }
  dlclose(runtime);  // drops the reference RTLD_NOLOAD took
  if (global) dlclose(global);
  return ok;
}

}  // namespace opgen
