// Devices: the CPU, and those device plugins add (opgen/device_plugin.h). A device
// allocates tensor memory, copies to and from the host, and hands kernels its stream.
// Devices are never removed, so Device pointers stay valid for the process.
#pragma once

#include <string>
#include <vector>

#include "core_types.h"
#include "opgen/device_plugin.h"

namespace opgen {

class Device {
 public:
  Device(std::string type, int ordinal, std::string description, int64_t memory_bytes,
         const OPGEN_DeviceFunctions* functions);

  const std::string& name() const { return name_; }  // "/job:localhost/replica:0/task:0/device:GPU:0"
  const std::string& type() const { return type_; }  // "GPU"
  int ordinal() const { return ordinal_; }
  const std::string& description() const { return description_; }
  int64_t memory_bytes() const { return memory_bytes_; }
  bool is_host() const { return !has_functions_; }
  SP_Stream stream() const { return fns_.stream; }

  // A buffer of `len` bytes in this device's memory; nullptr with `status` set.
  TensorBuffer* Allocate(size_t len, TF_Status* status) const;
  void CopyFromHost(void* dst, const void* src, size_t len, TF_Status* status) const;
  void CopyToHost(void* dst, const void* src, size_t len, TF_Status* status) const;
  void CopyWithin(void* dst, const void* src, size_t len, TF_Status* status) const;
  void Synchronize(TF_Status* status) const;

 private:
  static void Free(void* data, size_t len, void* device);
  std::string type_, name_, description_;
  int ordinal_;
  int64_t memory_bytes_;
  bool has_functions_;
  OPGEN_DeviceFunctions fns_{};
};

// The CPU: device 0, always there.
const Device* CpuDevice();
// Every device, the CPU first.
std::vector<const Device*> AllDevices();
// The device a name means ("/GPU:0", "/device:GPU:0", full names, "gpu", "CPU:0"), or
// nullptr when there is none such (or the name is malformed).
const Device* FindDevice(const std::string& name);
// The device whose memory holds `t`'s data.
inline const Device* DeviceOf(const TF_Tensor* t) {
  const Device* d = t->buffer->device();
  return d != nullptr ? d : CpuDevice();
}
// Splits a device name into its type ("GPU", upper case) and ordinal (0 when absent).
bool ParseDeviceName(const std::string& name, std::string* type, int* ordinal);

// A tensor with `t`'s elements in `dst`'s memory: `t` shared when it is there already.
// nullptr with `status` set on failure.
TF_Tensor* CopyTensorTo(const TF_Tensor* t, const Device* dst, TF_Status* status);

// A new tensor of `len` bytes in `device`'s memory; nullptr with `status` set.
TF_Tensor* AllocateDeviceTensor(const Device* device, TF_DataType dtype, const int64_t* dims,
                                int num_dims, size_t len, TF_Status* status);

// Why no device of `type` could be added (recorded from a plugin's failed start).
void SetDeviceUnavailable(const std::string& type, const std::string& reason);
const char* DeviceUnavailableReason(const std::string& type);

// Loads the device plugins that sit next to the runtime library (libopgen_cuda.so),
// unless $OPGEN_DISABLE_DEVICE_PLUGINS is set. A plugin that cannot start is recorded
// as the reason its device type is missing; it never fails the runtime.
void LoadDevicePlugins();

}  // namespace opgen
