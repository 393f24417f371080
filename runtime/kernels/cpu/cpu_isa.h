// The vector instruction set the float32 kernels with hand-picked ISA copies (the
// blocked/Winograd convolutions, the depthwise convolution) run: the widest this CPU
// has, capped by the environment variable OPGEN_CPU_ISA so that tests and comparisons
// can run every path on one machine.
#pragma once

namespace opgen {
namespace cpu {

enum class CpuIsa : int { kPortable = 0, kAvx2 = 1, kAvx512 = 2 };  // kAvx2: with FMA

// Read once per process. OPGEN_CPU_ISA: "avx512", "avx2", or "portable" (also spelled
// "baseline"); unset, empty or unknown values leave the CPU's widest.
CpuIsa WidestCpuIsa();

}  // namespace cpu
}  // namespace opgen
