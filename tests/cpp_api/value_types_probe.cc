// Prints what the header-only value types compute, for test_value_types.py to check
// against numpy: float -> Eigen::half / bfloat16 -> float, StrCat's formatting, TensorShape.
#include <cstdio>
#include <cstdlib>

#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/framework/types.h"
#include "tensorflow/core/lib/core/errors.h"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const float f = std::strtof(argv[i], nullptr);
    std::printf("%a %a\n", static_cast<double>(static_cast<float>(Eigen::half(f))),
                static_cast<double>(static_cast<float>(tensorflow::bfloat16(f))));
  }
  tensorflow::TensorShape shape({2, 3});
  shape.AddDim(4);
  const tensorflow::Status s = tensorflow::errors::InvalidArgument(
      "got ", 3, " and ", -7LL, ", ", 0.1f, ", ", 1e-7, ", ", 123456789.0, " for ", shape,
      " of ", tensorflow::DataTypeString(tensorflow::DataTypeToEnum<tensorflow::int64>::v()));
  std::printf("%d|%s|%lld|%d\n", static_cast<int>(s.code()), s.message().c_str(),
              static_cast<long long>(shape.num_elements()), shape == tensorflow::TensorShape({2, 3, 4}));
  return 0;
}
