// See streaming_store.h.
#include "streaming_store.h"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace opgen {
namespace cpu {

void StreamCopy(void* dst, const void* src, size_t bytes) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  size_t done = 0;
#if defined(__SSE2__)
  // 16-byte streaming stores are in the x86-64 baseline; the write-combining buffers
  // merge four of them into one full-line write, as fast as wider ones.
  if (reinterpret_cast<uintptr_t>(d) % 16 == 0) {
    for (; done + 64 <= bytes; done += 64) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + done));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + done + 16));
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + done + 32));
      const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + done + 48));
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + done), a);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + done + 16), b);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + done + 32), c);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + done + 48), e);
    }
  }
#endif
  if (done < bytes) std::memcpy(d + done, s + done, bytes - done);
}

void StreamFence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace cpu
}  // namespace opgen
