// Harness for test_conv2d_core.py: calls the float32 convolution core with a fused
// epilogue. Reads from stdin 16 little-endian int64 (batch, ih, iw, ic, kh, kw, oc, oh,
// ow, stride_h, stride_w, pad_top, pad_left, activation index, has_bias, portable), then
// the input, the HWIO filter and the bias as float32; writes the output as float32.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "conv2d_float.h"

int main() {
  using namespace opgen::cpu;
  int64_t h[16];
  if (std::fread(h, sizeof(int64_t), 16, stdin) != 16) return 1;
  Conv2DGeometry g{h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9], h[10], 1, 1,
                   h[11], h[12]};
  std::vector<float> x(g.batch * g.ih * g.iw * g.ic), f(g.kh * g.kw * g.ic * g.oc), bias(g.oc),
      out(g.batch * g.oh * g.ow * g.oc);
  if (std::fread(x.data(), sizeof(float), x.size(), stdin) != x.size()) return 1;
  if (std::fread(f.data(), sizeof(float), f.size(), stdin) != f.size()) return 1;
  if (h[14] && std::fread(bias.data(), sizeof(float), bias.size(), stdin) != bias.size()) return 1;
  Epilogue ep;
  ep.bias = h[14] ? bias.data() : nullptr;
  ep.activation = static_cast<Activation>(h[13]);  // the test's order is the enum's
  if (h[15]) Conv2DFloatPortable(g, x.data(), f.data(), out.data(), ep);
  else Conv2DFloat(g, x.data(), f.data(), out.data(), ep);
  std::fwrite(out.data(), sizeof(float), out.size(), stdout);
  return 0;
}
