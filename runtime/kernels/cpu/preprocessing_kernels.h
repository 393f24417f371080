// The kernel families of the Keras preprocessing layers' ops (Hashing, CategoryEncoding,
// Resizing with filters), declared apart from kernel_util.h's list so that adding them
// does not touch the header every kernel includes.
#pragma once

#include "tensorflow/c/tf_status.h"

namespace opgen {
namespace cpu {

void RegisterAsStringKernels(TF_Status* status);        // as_string.cc: AsString (host only)
void RegisterStringHashKernels(TF_Status* status);      // string_hash.cc: StringToHashBucketFast, StringToHashBucketStrong, Fingerprint (host only)
void RegisterParseExampleKernels(TF_Status* status);   // parse_example.cc: ParseExampleV2, ParseExample, ParseSingleExample, ParseTensor, SerializeTensor (host only)
void RegisterBincountKernels(TF_Status* status);        // bincount.cc: Bincount, DenseBincount, RaggedBincount, SparseBincount
void RegisterScaleTranslateKernels(TF_Status* status);  // scale_translate.cc: ScaleAndTranslate, ScaleAndTranslateGrad
void RegisterNonMaxSuppressionKernels(TF_Status* status);  // non_max_suppression.cc: NonMaxSuppressionV3, V4, V5, WithOverlaps (CPU only)
void RegisterCropAndResizeKernels(TF_Status* status);  // crop_and_resize.cc: CropAndResize, CropAndResizeGradImage, CropAndResizeGradBoxes
void RegisterExtractPatchesKernels(TF_Status* status);  // extract_patches.cc: ExtractImagePatches
void RegisterColorKernels(TF_Status* status);  // color.cc: RGBToHSV, HSVToRGB, AdjustHue, AdjustSaturation, AdjustContrastv2

}  // namespace cpu
}  // namespace opgen
