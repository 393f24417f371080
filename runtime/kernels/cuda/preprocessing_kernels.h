// The CUDA kernel families of the Keras preprocessing layers' ops (CategoryEncoding,
// Resizing with filters), declared apart from cuda_kernels.h so that adding them does
// not recompile every .cu file. Twins of ../cpu/preprocessing_kernels.h's device ones.
#pragma once

#include "tensorflow/c/tf_status.h"

namespace opgen {
namespace cuda {

void RegisterBincountKernels(TF_Status* status);        // bincount.cu: Bincount, DenseBincount, RaggedBincount, SparseBincount
void RegisterScaleTranslateKernels(TF_Status* status);  // scale_translate.cu: ScaleAndTranslate, ScaleAndTranslateGrad
void RegisterCropAndResizeKernels(TF_Status* status);   // crop_and_resize.cu: CropAndResize, CropAndResizeGradImage, CropAndResizeGradBoxes
void RegisterExtractPatchesKernels(TF_Status* status);  // extract_patches.cu: ExtractImagePatches
void RegisterColorKernels(TF_Status* status);  // color.cu: RGBToHSV, HSVToRGB, AdjustHue, AdjustSaturation, AdjustContrastv2

}  // namespace cuda
}  // namespace opgen
