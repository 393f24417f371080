/* TensorFlow declares TF_OpKernelConstruction_GetAttrTensorShape, the one function of its
 * experimental kernel C API that opgen implements, here; opgen declares it in kernels.h
 * with the others that read attrs, so this header only includes that one. (TensorFlow's
 * variable and ref-input helpers of this header are not offered: opgen's resource
 * variables have their own kernel API in opgen/c_api_ext.h.) */
#ifndef TENSORFLOW_C_KERNELS_EXPERIMENTAL_H_
#define TENSORFLOW_C_KERNELS_EXPERIMENTAL_H_

#include "tensorflow/c/kernels.h"

#endif /* TENSORFLOW_C_KERNELS_EXPERIMENTAL_H_ */
