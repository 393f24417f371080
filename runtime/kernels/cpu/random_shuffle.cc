// RandomShuffle on the host (CPU only: a GPU placement falls back here, as the rows are
// only moved, not computed). Seeded and advanced like the other stateful random kernels
// (../random_spec.h), so it gives TensorFlow's orders run after run.
#include <cstring>
#include <utility>

#include "../random_spec.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {

namespace {

// RandomShuffle: the rows (slices along dimension 0) in a random order. As TensorFlow's
// kernel: a forward Fisher-Yates walk, row i swapped with row i + w % (n - i) for the
// next 32-bit word w, the words read in order from ceil((n - 1) / 4) reserved blocks;
// fewer than two rows, or at most one element, pass through and draw nothing.
void ShuffleCompute(void* state, TF_OpKernelContext* ctx) {
  const TF_Tensor* input = BorrowInput(ctx, 0);
  if (!input) return;
  const std::vector<int64_t> dims = Dims(input);
  const int64_t elements = NumElements(dims);
  if (elements <= 1 || dims.empty() || dims[0] <= 1) {
    StatusPtr s = NewStatus();
    TF_SetOutput(ctx, 0, input, s.get());
    if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelContext_Failure(ctx, s.get());
    return;
  }
  const int64_t n = dims[0];
  std::vector<int64_t> order(n);
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  philox::Generator gen = kernels::ReserveStatefulBlocks(ctx, state, static_cast<uint64_t>(n - 1 + 3) / 4);
  philox::Words words{};
  int used = 4;
  for (int64_t i = 0; i + 1 < n; ++i) {
    if (used == 4) {
      words = gen.Next();
      used = 0;
    }
    const uint32_t range = static_cast<uint32_t>(n - i);  // as TensorFlow's uint32 argument
    std::swap(order[i], order[i + words.w[used++] % range]);
  }
  TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_TensorType(input), dims);
  if (!out) return;
  const size_t row = TF_TensorByteSize(input) / static_cast<size_t>(n);
  const char* from = static_cast<const char*>(TF_TensorData(input));
  char* to = static_cast<char*>(TF_TensorData(out.get()));
  for (int64_t i = 0; i < n; ++i) std::memcpy(to + i * row, from + order[i] * row, row);
}

}  // namespace

void RegisterRandomShuffleKernels(TF_Status* status) {
  for (TF_DataType t : kAllFixedSizeTypes)
    RegisterKernel(kDevice, {"RandomShuffle", {{"T", t}}, {}, ShuffleCompute,
                             kernels::CreateStatefulRandom, kernels::DeleteStatefulRandom}, status);
}

}  // namespace cpu
}  // namespace opgen
