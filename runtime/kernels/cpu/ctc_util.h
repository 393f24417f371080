// Shared by the CTC kernels (ctc_loss.cc, ctc_decoder.cc): the labels SparseTensor split
// into one sequence per batch entry, and the decoders' SparseTensor outputs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace ctc {

// labels_indices [n, 2] (batch, position) and labels_values [n]: TensorFlow's validity
// checks of a SparseTensor of shape [batch, longest] in row-major order, then each
// entry's values in order. An error message, or "" with `labels` filled.
inline std::string GroupLabels(const TF_Tensor* indices, const TF_Tensor* values, int64_t batch,
                               std::vector<std::vector<int>>* labels) {
  const int64_t n = TF_Dim(indices, 0), rank = TF_Dim(indices, 1);
  if (rank != 2) return "Order length must be SparseTensor rank.";
  const int64_t* ix = Data<int64_t>(indices);
  const int32_t* v = Data<int32_t>(values);
  int64_t longest = 0;
  for (int64_t i = 0; i < n; ++i)  // wraps at the int64 end, as TensorFlow's sum does
    longest = std::max(longest, static_cast<int64_t>(static_cast<uint64_t>(ix[2 * i + 1]) + 1));
  auto row = [&](int64_t i) {
    return "indices[" + std::to_string(i) + "] = [" + std::to_string(ix[2 * i]) + "," +
           std::to_string(ix[2 * i + 1]) + "]";
  };
  const std::string prefix = "label SparseTensor is not valid: ";
  for (int64_t i = 0; i < n; ++i) {
    const int64_t b = ix[2 * i], t = ix[2 * i + 1];
    if (b < 0 || b >= batch || t < 0 || t >= longest)
      return prefix + row(i) + " is out of bounds: need 0 <= index < [" + std::to_string(batch) +
             "," + std::to_string(longest) + "]";
    if (i > 0) {
      const int64_t pb = ix[2 * i - 2], pt = ix[2 * i - 1];
      if (b < pb || (b == pb && t < pt))
        return prefix + row(i) + " is out of order. Many sparse ops require sorted indices.\n"
               "    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n";
      if (b == pb && t == pt) return prefix + row(i) + " is repeated";
    }
  }
  labels->assign(batch, {});
  for (int64_t i = 0; i < n; ++i) (*labels)[ix[2 * i]].push_back(v[i]);
  return "";
}

// The decoders' checks of inputs [max_time, batch, classes] and sequence_length [batch]
// (TensorFlow's codes: mismatched lengths are a failed precondition); false after failing.
inline bool CheckDecoderInputs(TF_OpKernelContext* ctx, const TF_Tensor* inputs, const TF_Tensor* seq) {
  auto fail = [&](TF_Code code, const std::string& m) {
    Fail(ctx, code, m);
    return false;
  };
  if (TF_NumDims(inputs) != 3) return fail(TF_INVALID_ARGUMENT, "inputs is not a 3-Tensor");
  if (TF_Dim(inputs, 0) == 0 || TF_Dim(inputs, 1) == 0 || TF_Dim(inputs, 2) == 0)
    return fail(TF_INVALID_ARGUMENT, "inputs must not be empty");
  if (TF_NumDims(seq) != 1) return fail(TF_INVALID_ARGUMENT, "sequence_length is not a vector");
  const int64_t max_time = TF_Dim(inputs, 0), batch = TF_Dim(inputs, 1);
  if (batch != TF_Dim(seq, 0))
    return fail(TF_FAILED_PRECONDITION, "len(sequence_length) != batch_size.  len(sequence_length):  " +
                std::to_string(TF_Dim(seq, 0)) + " batch_size: " + std::to_string(batch));
  const int32_t* len = Data<int32_t>(seq);
  for (int64_t b = 0; b < batch; ++b)
    if (len[b] > max_time)
      return fail(TF_FAILED_PRECONDITION,
                  "sequence_length(" + std::to_string(b) + ") <= " + std::to_string(max_time));
  if (TF_Dim(inputs, 2) > 2147483647) return fail(TF_INVALID_ARGUMENT, "num_classes cannot exceed max int");
  return true;
}

// Path p's SparseTensor (outputs p, paths + p, 2 * paths + p) from each entry's classes:
// indices (b, position), values, shape [batch, longest].
inline void StorePath(TF_OpKernelContext* ctx, int p, int paths,
                      const std::vector<std::vector<int>>& seqs) {
  int64_t total = 0, longest = 0;
  for (const auto& s : seqs) {
    total += static_cast<int64_t>(s.size());
    longest = std::max<int64_t>(longest, static_cast<int64_t>(s.size()));
  }
  TensorPtr ind = AllocateOutput<int64_t>(ctx, p, {total, 2});
  TensorPtr val = AllocateOutput<int64_t>(ctx, paths + p, {total});
  TensorPtr shape = AllocateOutput<int64_t>(ctx, 2 * paths + p, {2});
  if (!ind || !val || !shape) return;
  int64_t* i = Data<int64_t>(ind);
  int64_t* v = Data<int64_t>(val);
  int64_t k = 0;
  for (size_t b = 0; b < seqs.size(); ++b)
    for (size_t t = 0; t < seqs[b].size(); ++t, ++k) {
      i[2 * k] = static_cast<int64_t>(b);
      i[2 * k + 1] = static_cast<int64_t>(t);
      v[k] = seqs[b][t];
    }
  Data<int64_t>(shape)[0] = static_cast<int64_t>(seqs.size());
  Data<int64_t>(shape)[1] = longest;
}

}  // namespace ctc
}  // namespace cpu
}  // namespace opgen
