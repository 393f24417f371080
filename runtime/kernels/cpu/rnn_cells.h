// Registration of the CPU-only fused RNN-cell and old batch-norm families (TensorFlow's GPU
// kernels for them are not mirrored); apart from kernel_util.h so that adding one rebuilds
// only its own files.
#pragma once

#include "tensorflow/c/tf_status.h"

namespace opgen {
namespace cpu {

void RegisterLstmBlockKernels(TF_Status* status);        // lstm_block.cc: LSTMBlockCell(Grad), BlockLSTM(V2), BlockLSTMGrad(V2)
void RegisterGruBlockKernels(TF_Status* status);         // gru_block.cc: GRUBlockCell(Grad)
void RegisterBatchNormGlobalKernels(TF_Status* status);  // batch_norm_global.cc: BatchNormWithGlobalNormalization(Grad)

}  // namespace cpu
}  // namespace opgen
