// Harness for test_conv2d_core.py: calls the float32 convolution core with a fused
// epilogue. Reads from stdin 18 little-endian int64 (batch, ih, iw, ic, kh, kw, oc, oh,
// ow, stride_h, stride_w, pad_top, pad_left, activation index, has_bias, dilation_h,
// dilation_w, has_residual), then the input, the HWIO filter, the bias and the residual
// (shaped as the output) as float32; writes the output as float32. The path it takes is
// the CPU's best unless OPGEN_CPU_ISA caps it.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "conv2d_float.h"

int main() {
  using namespace opgen::cpu;
  int64_t h[18];
  if (std::fread(h, sizeof(int64_t), 18, stdin) != 18) return 1;
  Conv2DGeometry g{h[0], h[1],  h[2],  h[3],  h[4],  h[5],  h[6], h[7],
                   h[8], h[9], h[10], h[15], h[16], h[11], h[12]};
  std::vector<float> x(g.batch * g.ih * g.iw * g.ic), f(g.kh * g.kw * g.ic * g.oc), bias(g.oc),
      out(g.batch * g.oh * g.ow * g.oc), residual(out.size());
  if (std::fread(x.data(), sizeof(float), x.size(), stdin) != x.size()) return 1;
  if (std::fread(f.data(), sizeof(float), f.size(), stdin) != f.size()) return 1;
  if (h[14] && std::fread(bias.data(), sizeof(float), bias.size(), stdin) != bias.size()) return 1;
  if (h[17] && std::fread(residual.data(), sizeof(float), residual.size(), stdin) != residual.size())
    return 1;
  Epilogue ep;
  ep.bias = h[14] ? bias.data() : nullptr;
  ep.residual = h[17] ? residual.data() : nullptr;
  ep.activation = static_cast<Activation>(h[13]);  // the test's order is the enum's
  Conv2DFloat(g, x.data(), f.data(), out.data(), ep);
  std::fwrite(out.data(), sizeof(float), out.size(), stdout);
  return 0;
}
