/* Device plugins: how a shared library adds a device (a GPU) to the runtime.
 *
 * TensorFlow's own pluggable-device interface (the StreamExecutor C API) is large and
 * experimental; opgen asks a device for the few things its executor needs: memory,
 * copies, a stream that kernels queue work on, and a way to wait. Kernels for the
 * device register through the ordinary kernel builder (tensorflow/c/kernels.h) with the
 * device's type ("GPU"), exactly as for the CPU.
 *
 * The runtime loads the device plugins it ships (libopgen_cuda.so next to the runtime
 * library) at initialisation, unless $OPGEN_DISABLE_DEVICE_PLUGINS is set, and calls the
 * plugin's exported OPGEN_InitDevicePlugin. The plugin registers its kernels there,
 * and its devices where it finds them; where it finds none (no driver, no device) it
 * reports why through its status, and the runtime keeps that reason for
 * OPGEN_DeviceUnavailableReason. Kernels of a device type without a device are listed
 * (TF_GetAllRegisteredKernels) but never placed. */
#ifndef OPGEN_DEVICE_PLUGIN_H_
#define OPGEN_DEVICE_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/tf_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the runtime calls on a device. Every function gets `state` back. Copies and
 * kernels are ordered on the device's single stream; the runtime never touches device
 * memory itself. */
typedef struct OPGEN_DeviceFunctions {
  size_t struct_size; /* OPGEN_DEVICE_FUNCTIONS_STRUCT_SIZE */
  void* state;
  /* At least `size` bytes of device memory (size may be 0), aligned to 256 bytes; NULL
   * with TF_RESOURCE_EXHAUSTED when there is none. Must not wait for the stream. */
  void* (*allocate)(void* state, size_t size, TF_Status* status);
  /* Gives back memory from `allocate`. Work already queued may still use it; the device
   * may hand it out again for work queued later (stream order makes that safe). */
  void (*deallocate)(void* state, void* ptr, size_t size);
  /* Queues a copy from host memory; `src` may be reused as soon as the call returns. */
  void (*copy_host_to_device)(void* state, void* dst, const void* src, size_t size,
                              TF_Status* status);
  /* Copies to host memory after the work queued so far; returns when `dst` holds it. */
  void (*copy_device_to_host)(void* state, void* dst, const void* src, size_t size,
                              TF_Status* status);
  /* Queues a copy within the device. */
  void (*copy_device_to_device)(void* state, void* dst, const void* src, size_t size,
                                TF_Status* status);
  /* Returns when all queued work is done, with the first error it raised. */
  void (*synchronize)(void* state, TF_Status* status);
  /* What TF_GetStream gives this device's kernels. */
  SP_Stream stream;
} OPGEN_DeviceFunctions;

#define OPGEN_DEVICE_FUNCTIONS_STRUCT_SIZE \
  (offsetof(OPGEN_DeviceFunctions, stream) + sizeof(SP_Stream))

/* Adds device `device_type`:`ordinal` ("GPU", 0 is "/device:GPU:0"). `description`
 * (copied) is what list_devices shows ("NVIDIA H100 80GB HBM3, compute capability
 * 9.0"), `memory_bytes` its memory (0 if unknown). `functions` is copied; its `state` must live as long as the process.
 * TF_ALREADY_EXISTS when that device is registered. */
TF_CAPI_EXPORT extern void OPGEN_RegisterDevice(const char* device_type, int ordinal,
                                                const char* description,
                                                int64_t memory_bytes,
                                                const OPGEN_DeviceFunctions* functions,
                                                TF_Status* status);

/* The function a device plugin exports under this name. */
typedef void (*OPGEN_InitDevicePluginFn)(TF_Status* status);
#define OPGEN_INIT_DEVICE_PLUGIN_SYMBOL "OPGEN_InitDevicePlugin"

#ifdef __cplusplus
}
#endif

#endif /* OPGEN_DEVICE_PLUGIN_H_ */
