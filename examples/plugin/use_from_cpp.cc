// The example plugin from C++: load libmy_ops.so with TF_LoadLibrary, then build and run
// WeightedSum through the C++ API that opgen generates for the library's ops:
//
//   opgen generate --from-library build/libmy_ops.so --lang cpp --out gen
//   c++ -std=c++17 use_from_cpp.cc -Igen/cpp $(opgen config --cflags) $(opgen config --libs)
//   ./a.out build/libmy_ops.so
//
// Prints the weighted sum one row per line, then the plugin's own shape error for values
// of different shapes.
#include <cstdio>

#include "opgen_ops.h"
#include "tensorflow/c/c_api.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s path/to/libmy_ops.so\n", argv[0]);
    return 2;
  }
  TF_Status* status = TF_NewStatus();
  TF_LoadLibrary(argv[1], status);  // the handle stays valid for the process
  if (TF_GetCode(status) != TF_OK) {
    std::fprintf(stderr, "cannot load %s: %s\n", argv[1], TF_Message(status));
    TF_DeleteStatus(status);
    return 1;
  }
  TF_DeleteStatus(status);

  namespace ops = opgen::ops;
  try {
    opgen::Scope root = opgen::Scope::NewRootScope();
    ops::WeightedSum sum(root,
                         {opgen::Input({{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}}),
                          opgen::Input({{0.5f, 0.5f, 0.5f}, {1.f, 1.f, 1.f}})},
                         {2.f, -4.f});
    opgen::ClientSession session(root);
    const opgen::Tensor result = session.Run({sum.sum})[0];
    const float* values = result.data<float>();
    for (int64_t i = 0; i < result.dim(0); ++i) {
      for (int64_t j = 0; j < result.dim(1); ++j)
        std::printf("%s%.6f", j ? " " : "", values[i * result.dim(1) + j]);
      std::printf("\n");
    }
    try {
      ops::WeightedSum bad(root, {opgen::Input({1.f, 2.f}), opgen::Input({1.f, 2.f, 3.f})},
                           {1.f, 1.f});
      std::fprintf(stderr, "values of different shapes were accepted\n");
      return 1;
    } catch (const opgen::Error& e) {
      std::printf("shape error: %s\n", e.what());
    }
  } catch (const opgen::Error& e) {
    std::fprintf(stderr, "error (TF_Code %d): %s\n", static_cast<int>(e.code()), e.what());
    return 1;
  }
  return 0;
}
