// The random ops' distributions over Philox blocks (philox.h) and their operand checks,
// shared by the CPU kernels and the CUDA plugin. A distribution turns one block into
// kCount values (fixed rate), or, for the truncated normal, draws words until kCount
// values fall inside two standard deviations, starting from its own reserved run of
// blocks so that every output group is independent of the others.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "host_device.h"
#include "kernel_api_util.h"
#include "philox.h"

namespace opgen {
namespace kernels {

// Distributions. V is the value type before narrowing to the output (16-bit floats are
// computed in float and rounded once by the kernel).
struct UniformFloat {  // float, half, bfloat16: one word per value
  using V = float;
  static constexpr int kCount = 4;
  static constexpr bool kVariable = false;
  int mantissa_bits = 23;  // 10 for half, 7 for bfloat16
  OPGEN_HD void operator()(philox::Generator* g, V* out) const {
    const philox::Words w = g->Next();
    for (int i = 0; i < 4; ++i) {
      out[i] = mantissa_bits == 23 ? philox::WordToFloat(w.w[i])
               : mantissa_bits == 10 ? philox::WordToHalfUniform(w.w[i])
                                     : philox::WordToBFloat16Uniform(w.w[i]);
    }
  }
};
struct UniformDouble {
  using V = double;
  static constexpr int kCount = 2;
  static constexpr bool kVariable = false;
  OPGEN_HD void operator()(philox::Generator* g, V* out) const {
    const philox::Words w = g->Next();
    out[0] = philox::WordsToDouble(w.w[0], w.w[1]);
    out[1] = philox::WordsToDouble(w.w[2], w.w[3]);
  }
};
struct NormalFloat {
  using V = float;
  static constexpr int kCount = 4;
  static constexpr bool kVariable = false;
  OPGEN_HD void operator()(philox::Generator* g, V* out) const {
    const philox::Words w = g->Next();
    philox::BoxMullerFloat(w.w[0], w.w[1], &out[0], &out[1]);
    philox::BoxMullerFloat(w.w[2], w.w[3], &out[2], &out[3]);
  }
};
struct NormalDouble {
  using V = double;
  static constexpr int kCount = 2;
  static constexpr bool kVariable = false;
  OPGEN_HD void operator()(philox::Generator* g, V* out) const {
    const philox::Words w = g->Next();
    philox::BoxMullerDouble(w.w[0], w.w[1], w.w[2], w.w[3], &out[0], &out[1]);
  }
};
// Rejection: each Box-Muller pair is kept value by value while |z| < 2.
struct TruncatedFloat {
  using V = float;
  static constexpr int kCount = 4;
  static constexpr bool kVariable = true;
  OPGEN_HD void operator()(philox::Generator* g, V* out) const {
    philox::WordStream words{g};
    int n = 0;
    for (;;) {
      const uint32_t x0 = words(), x1 = words();
      float z[2];
      philox::BoxMullerFloat(x0, x1, &z[0], &z[1]);
      for (float v : z) {
        if (fabsf(v) < 2.0f) {
          out[n++] = v;
          if (n == kCount) return;
        }
      }
    }
  }
};
struct TruncatedDouble {
  using V = double;
  static constexpr int kCount = 2;
  static constexpr bool kVariable = true;
  OPGEN_HD void operator()(philox::Generator* g, V* out) const {
    philox::WordStream words{g};
    int n = 0;
    for (;;) {
      const uint32_t x0 = words(), x1 = words(), x2 = words(), x3 = words();
      double z[2];
      philox::BoxMullerDouble(x0, x1, x2, x3, &z[0], &z[1]);
      for (double v : z) {
        if (fabs(v) < 2.0) {
          out[n++] = v;
          if (n == kCount) return;
        }
      }
    }
  }
};
// Integers in [lo, hi): the words modulo the range (TensorFlow's reduction, slightly
// biased for ranges that do not divide 2^32 or 2^64), added to lo with wraparound.
struct UniformInt32 {
  using V = int32_t;
  static constexpr int kCount = 4;
  static constexpr bool kVariable = false;
  int32_t lo;
  uint32_t range;
  OPGEN_HD void operator()(philox::Generator* g, V* out) const {
    const philox::Words w = g->Next();
    for (int i = 0; i < 4; ++i) out[i] = static_cast<int32_t>(static_cast<uint32_t>(lo) + w.w[i] % range);
  }
};
struct UniformInt64 {
  using V = int64_t;
  static constexpr int kCount = 2;
  static constexpr bool kVariable = false;
  int64_t lo;
  uint64_t range;
  OPGEN_HD void operator()(philox::Generator* g, V* out) const {
    const philox::Words w = g->Next();
    for (int i = 0; i < 2; ++i) {
      const uint64_t bits = w.w[2 * i] | (static_cast<uint64_t>(w.w[2 * i + 1]) << 32);
      out[i] = static_cast<int64_t>(static_cast<uint64_t>(lo) + bits % range);
    }
  }
};
// Every bit pattern: a word per 32-bit value, two (low first) per 64-bit value.
template <typename T>
struct FullInt {
  using V = T;
  static constexpr int kCount = sizeof(T) == 4 ? 4 : 2;
  static constexpr bool kVariable = false;
  OPGEN_HD void operator()(philox::Generator* g, V* out) const {
    const philox::Words w = g->Next();
    if constexpr (sizeof(T) == 4) {
      for (int i = 0; i < 4; ++i) out[i] = static_cast<T>(w.w[i]);
    } else {
      for (int i = 0; i < 2; ++i)
        out[i] = static_cast<T>(w.w[2 * i] | (static_cast<uint64_t>(w.w[2 * i + 1]) << 32));
    }
  }
};

// The generator positioned at output group `group` of a fill that starts at `base`.
template <typename Dist>
OPGEN_HD philox::Generator AtGroup(philox::Generator base, int64_t group) {
  const int64_t blocks_per_group = Dist::kVariable ? Dist::kCount * philox::kReservedPerOutput / 4 : 1;
  base.Skip(static_cast<uint64_t>(group * blocks_per_group));
  return base;
}

// Operand checks (host code), with TensorFlow's messages.

// The `shape` operand: a vector of non-negative int32 or int64 sizes.
inline bool ShapeOperand(TF_OpKernelContext* ctx, const std::string& op, int i,
                         std::vector<int64_t>* dims) {
  TensorPtr t = Input(ctx, i);
  if (!t) return false;
  if (TF_NumDims(t.get()) != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         op + ": shape must be a vector of {int32,int64}, got shape " + ShapeString(Dims(t.get())));
    return false;
  }
  *dims = IndexValues(t.get());
  return CheckShapeSize(ctx, op, *dims);
}

// A stateless op's [2] seed (int32 values sign-extend, as TensorFlow's do).
inline bool StatelessSeed(TF_OpKernelContext* ctx, const std::string& op, int i,
                          philox::Generator* gen) {
  TensorPtr t = Input(ctx, i);
  if (!t) return false;
  if (TF_NumDims(t.get()) != 1 || TF_Dim(t.get(), 0) != 2) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         op + ": seed must have shape [2], not " + ShapeString(Dims(t.get())));
    return false;
  }
  int64_t s[2];
  if (TF_TensorType(t.get()) == TF_INT32) {
    const int32_t* p = static_cast<const int32_t*>(TF_TensorData(t.get()));
    s[0] = p[0];
    s[1] = p[1];
  } else {
    const int64_t* p = static_cast<const int64_t*>(TF_TensorData(t.get()));
    s[0] = p[0];
    s[1] = p[1];
  }
  *gen = philox::FromStatelessSeed(static_cast<uint64_t>(s[0]), static_cast<uint64_t>(s[1]));
  return true;
}

// The V2 ops' key, counter and alg operands (inputs 1, 2, 3). `alg` comes back with
// auto-select resolved to Philox, as TensorFlow's CPU and GPU kernels resolve it; any other
// algorithm is the caller's to refuse once it knows the output is not empty.
inline bool KeyCounterAlg(TF_OpKernelContext* ctx, const std::string& op, philox::Generator* gen,
                          int* alg) {
  TensorPtr key = Input(ctx, 1), counter = Input(ctx, 2), alg_t = Input(ctx, 3);
  if (!key || !counter || !alg_t) return false;
  if (TF_NumDims(alg_t.get()) != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         op + ": input 3 (0-based) must have shape [], not " + ShapeString(Dims(alg_t.get())));
    return false;
  }
  *alg = *static_cast<const int32_t*>(TF_TensorData(alg_t.get()));
  if (*alg == philox::kAlgAutoSelect) *alg = philox::kAlgPhilox;
  if (TF_NumDims(key.get()) != 1 || TF_Dim(key.get(), 0) != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, op + ": key must have shape [1], not " + ShapeString(Dims(key.get())));
    return false;
  }
  const int64_t counter_size = *alg == philox::kAlgThreeFry ? 1 : 2;
  if (TF_NumDims(counter.get()) != 1 || TF_Dim(counter.get(), 0) < counter_size) {
    Fail(ctx, TF_INVALID_ARGUMENT, op + ": counter must be a vector with length at least " +
                                       std::to_string(counter_size) + "; got shape: " +
                                       ShapeString(Dims(counter.get())));
    return false;
  }
  if (*alg == philox::kAlgPhilox) {
    *gen = philox::Generator::FromKeyCounter(static_cast<const uint64_t*>(TF_TensorData(key.get())),
                                             static_cast<const uint64_t*>(TF_TensorData(counter.get())));
  }
  return true;
}

inline bool RequirePhilox(TF_OpKernelContext* ctx, const std::string& op, int alg) {
  if (alg == philox::kAlgPhilox) return true;
  Fail(ctx, TF_INVALID_ARGUMENT, op + ": Unsupported algorithm id: " + std::to_string(alg));
  return false;
}

// minval and maxval: scalars; lo < hi is checked only for a non-empty output.
template <typename T>
bool IntBounds(TF_OpKernelContext* ctx, const std::string& op, int lo_i, int hi_i, bool empty,
               T* lo, T* hi) {
  TensorPtr lo_t = Input(ctx, lo_i), hi_t = Input(ctx, hi_i);
  if (!lo_t || !hi_t) return false;
  for (auto& [t, name] : {std::pair{lo_t.get(), "minval"}, std::pair{hi_t.get(), "maxval"}}) {
    if (TF_NumDims(t) != 0) {
      Fail(ctx, TF_INVALID_ARGUMENT,
           op + ": " + name + " must be 0-D, got shape " + ShapeString(Dims(t)));
      return false;
    }
  }
  *lo = *static_cast<const T*>(TF_TensorData(lo_t.get()));
  *hi = *static_cast<const T*>(TF_TensorData(hi_t.get()));
  if (!empty && !(*lo < *hi)) {
    Fail(ctx, TF_INVALID_ARGUMENT, op + ": Need minval < maxval, got " + std::to_string(*lo) +
                                       " >= " + std::to_string(*hi));
    return false;
  }
  return true;
}

// The state of a stateful kernel: its generator, seeded from the node's (seed, seed2)
// attrs (both 0: seeded at random), which each run advances past what it may use. When
// the eager context clears its caches (OPGEN_KernelSeedGeneration changes), the kernel
// starts over from its seeds, as the new kernel TensorFlow would make then.
struct StatefulRandomState {
  std::mutex mu;
  int64_t seed = 0, seed2 = 0;
  bool seeded = false;          // gen is valid for `generation`
  uint64_t generation = 0;
  philox::Generator gen;

  void Seed() {
    int64_t s1 = seed, s2 = seed2;
    if (s1 == 0 && s2 == 0) {
      std::random_device device;
      s1 = (static_cast<int64_t>(device()) << 32) | device();
      s2 = (static_cast<int64_t>(device()) << 32) | device();
    }
    gen = philox::Generator::FromSeeds(static_cast<uint64_t>(s1), static_cast<uint64_t>(s2));
  }
};

inline void* CreateStatefulRandom(TF_OpKernelConstruction* ctx) {
  auto* state = new StatefulRandomState();
  StatusPtr s = NewStatus();
  TF_OpKernelConstruction_GetAttrInt64(ctx, "seed", &state->seed, s.get());
  if (TF_GetCode(s.get()) == TF_OK)
    TF_OpKernelConstruction_GetAttrInt64(ctx, "seed2", &state->seed2, s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return state;
}
inline void DeleteStatefulRandom(void* p) { delete static_cast<StatefulRandomState*>(p); }

// The generator for this run; the state moves past `blocks` 128-bit blocks.
inline philox::Generator ReserveStatefulBlocks(TF_OpKernelContext* ctx, void* p, uint64_t blocks) {
  auto* state = static_cast<StatefulRandomState*>(p);
  const uint64_t generation = OPGEN_KernelSeedGeneration(ctx);
  std::lock_guard<std::mutex> lock(state->mu);
  if (!state->seeded || state->generation != generation) {
    state->Seed();
    state->seeded = true;
    state->generation = generation;
  }
  philox::Generator run = state->gen;
  state->gen.Skip(blocks);
  return run;
}

// For a distribution kernel: kReservedPerOutput blocks per output element.
inline philox::Generator ReserveStateful(TF_OpKernelContext* ctx, void* p, int64_t elements) {
  return ReserveStatefulBlocks(ctx, p, static_cast<uint64_t>(elements) * philox::kReservedPerOutput);
}

// The float distribution for output type T (Half and BFloat16: the device's 16-bit
// types, whose uniforms keep 10 and 7 mantissa bits), and the integer one for [lo, hi).
enum class Kind { kUniform, kNormal, kTruncated };

template <Kind K, typename T, typename Half, typename BFloat16>
auto DistFor() {
  if constexpr (K == Kind::kUniform) {
    if constexpr (std::is_same_v<T, double>) return UniformDouble{};
    else if constexpr (std::is_same_v<T, Half>) return UniformFloat{10};
    else if constexpr (std::is_same_v<T, BFloat16>) return UniformFloat{7};
    else return UniformFloat{23};
  } else if constexpr (K == Kind::kNormal) {
    if constexpr (std::is_same_v<T, double>) return NormalDouble{};
    else return NormalFloat{};
  } else {
    if constexpr (std::is_same_v<T, double>) return TruncatedDouble{};
    else return TruncatedFloat{};
  }
}

template <typename T>
auto IntDist(T lo, T hi) {
  if constexpr (sizeof(T) == 4) {
    return UniformInt32{lo, static_cast<uint32_t>(hi) - static_cast<uint32_t>(lo)};
  } else {
    return UniformInt64{lo, static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)};
  }
}

}  // namespace kernels
}  // namespace opgen
