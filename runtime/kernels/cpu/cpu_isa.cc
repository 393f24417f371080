#include "cpu_isa.h"

#include <cstdlib>
#include <cstring>

namespace opgen {
namespace cpu {
namespace {

CpuIsa Detect() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("avx512f")) return CpuIsa::kAvx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return CpuIsa::kAvx2;
#endif
  return CpuIsa::kPortable;
}

CpuIsa Cap() {
  const char* v = std::getenv("OPGEN_CPU_ISA");
  if (v == nullptr) return CpuIsa::kAvx512;
  if (std::strcmp(v, "avx2") == 0) return CpuIsa::kAvx2;
  if (std::strcmp(v, "portable") == 0 || std::strcmp(v, "baseline") == 0)
    return CpuIsa::kPortable;
  return CpuIsa::kAvx512;
}

}  // namespace

CpuIsa WidestCpuIsa() {
  static const CpuIsa isa = [] {
    const CpuIsa found = Detect(), cap = Cap();
    return static_cast<int>(found) < static_cast<int>(cap) ? found : cap;
  }();
  return isa;
}

}  // namespace cpu
}  // namespace opgen
