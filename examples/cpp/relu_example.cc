// Builds y = relu(x @ W + b) with the generated C++ ops (opgen_ops.h), runs it in a
// ClientSession with x fed, and prints y one row per line. Failures throw opgen::Error.
//
//   c++ -std=c++17 relu_example.cc -I<generated>/cpp $(opgen config --cflags) $(opgen config --libs)
#include <cstdio>
#include <vector>

#include "opgen_ops.h"

namespace ops = opgen::ops;

int main() {
  try {
    opgen::Scope root = opgen::Scope::NewRootScope();
    // x: any number of rows of 3 features, fed at run time.
    auto x = ops::Placeholder(root.WithOpName("x"), TF_FLOAT,
                              ops::Placeholder::Shape({-1, 3}));
    // W and b are constants: braces become Const operations.
    auto xw = ops::MatMul(root, x, {{0.5f, -1.f, 2.f, 0.f}, {1.f, 0.25f, -0.5f, 1.f}, {-1.f, 0.5f, 1.f, 2.f}});
    auto y = ops::Relu(root.WithOpName("y"), ops::BiasAdd(root, xw, {0.1f, -0.2f, 0.3f, -4.f}));

    opgen::ClientSession session(root);
    std::vector<opgen::Tensor> outputs =
        session.Run({{x, {{1.f, 2.f, 3.f}, {-4.f, 0.5f, 6.f}}}}, {y});

    const opgen::Tensor& result = outputs[0];
    const float* values = result.data<float>();
    for (int64_t i = 0; i < result.dim(0); ++i) {
      for (int64_t j = 0; j < result.dim(1); ++j)
        std::printf("%s%.6f", j ? " " : "", values[i * result.dim(1) + j]);
      std::printf("\n");
    }
  } catch (const opgen::Error& e) {
    std::fprintf(stderr, "error (TF_Code %d): %s\n", static_cast<int>(e.code()), e.what());
    return 1;
  }
  return 0;
}
