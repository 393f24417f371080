#include "denormals.h"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace opgen {
namespace {

#if defined(__x86_64__) || defined(__i386__)
// MXCSR: bit 15 flush-to-zero (results), bit 6 denormals-are-zero (inputs).
constexpr uint64_t kFlushBits = 0x8040;
uint64_t ReadModes() { return _mm_getcsr(); }
void WriteModes(uint64_t modes) { _mm_setcsr(static_cast<unsigned>(modes)); }
#elif defined(__aarch64__)
// FPCR bit 24 (FZ) flushes both inputs and results.
constexpr uint64_t kFlushBits = uint64_t{1} << 24;
uint64_t ReadModes() {
  uint64_t fpcr;
  __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
  return fpcr;
}
void WriteModes(uint64_t modes) { __asm__ __volatile__("msr fpcr, %0" : : "r"(modes)); }
#else
constexpr uint64_t kFlushBits = 0;  // no known control: subnormals are kept
uint64_t ReadModes() { return 0; }
void WriteModes(uint64_t) {}
#endif

}  // namespace

bool FlushDenormalsEnabled() {
  static const bool enabled = [] {
    const char* env = std::getenv("OPGEN_FLUSH_DENORMALS");
    return !(env != nullptr && (std::strcmp(env, "0") == 0 || std::strcmp(env, "false") == 0));
  }();
  return enabled && kFlushBits != 0;
}

void FlushDenormalsOnThisThread() {
  if (FlushDenormalsEnabled()) WriteModes(ReadModes() | kFlushBits);
}

ScopedFlushDenormals::ScopedFlushDenormals() {
  if (!FlushDenormalsEnabled()) return;
  saved_ = ReadModes();
  if ((saved_ & kFlushBits) == kFlushBits) return;  // already set: nothing to restore
  WriteModes(saved_ | kFlushBits);
  changed_ = true;
}

ScopedFlushDenormals::~ScopedFlushDenormals() {
  if (changed_) WriteModes(saved_);
}

}  // namespace opgen
