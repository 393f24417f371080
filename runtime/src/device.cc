// Devices, tensor copies between them, and loading the device plugins.
#include "device.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

#include "op_registry.h"
#include "opgen/c_api_ext.h"
#include "tensorflow/c/eager/c_api.h"

namespace opgen {
namespace {

struct DeviceTable {
  std::mutex mu;
  std::vector<std::unique_ptr<Device>> devices;  // the CPU first; never shrinks
  std::map<std::string, std::string> unavailable;
};

DeviceTable& Table() {
  static DeviceTable* table = [] {
    auto* t = new DeviceTable();
    t->devices.push_back(std::make_unique<Device>("CPU", 0, "host", 0, nullptr));
    return t;
  }();
  return *table;
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

Device::Device(std::string type, int ordinal, std::string description, int64_t memory_bytes,
               const OPGEN_DeviceFunctions* functions)
    : type_(std::move(type)),
      name_("/job:localhost/replica:0/task:0/device:" + type_ + ":" + std::to_string(ordinal)),
      description_(std::move(description)),
      ordinal_(ordinal),
      memory_bytes_(memory_bytes),
      has_functions_(functions != nullptr) {
  if (functions != nullptr) fns_ = *functions;
}

void Device::Free(void* data, size_t len, void* device) {
  const Device* d = static_cast<const Device*>(device);
  d->fns_.deallocate(d->fns_.state, data, len);
}

TensorBuffer* Device::Allocate(size_t len, TF_Status* status) const {
  if (is_host()) {
    TensorBuffer* b = TensorBuffer::Allocate(len);
    if (b == nullptr)
      SetStatus(status, TF_RESOURCE_EXHAUSTED, "cannot allocate " + std::to_string(len) + " bytes");
    return b;
  }
  TF_Status s;
  void* data = fns_.allocate(fns_.state, len, &s);
  if (data == nullptr) {
    SetStatus(status, s.code != TF_OK ? s.code : TF_RESOURCE_EXHAUSTED,
              s.code != TF_OK ? s.message
                              : name_ + ": cannot allocate " + std::to_string(len) + " bytes");
    return nullptr;
  }
  auto* b = new TensorBuffer(data, len, &Device::Free, const_cast<Device*>(this));
  b->set_device(this);
  b->set_runtime_owned();
  return b;
}

void Device::CopyFromHost(void* dst, const void* src, size_t len, TF_Status* status) const {
  ClearStatus(status);
  fns_.copy_host_to_device(fns_.state, dst, src, len, status);
}
void Device::CopyToHost(void* dst, const void* src, size_t len, TF_Status* status) const {
  ClearStatus(status);
  fns_.copy_device_to_host(fns_.state, dst, src, len, status);
}
void Device::CopyWithin(void* dst, const void* src, size_t len, TF_Status* status) const {
  ClearStatus(status);
  fns_.copy_device_to_device(fns_.state, dst, src, len, status);
}
void Device::Synchronize(TF_Status* status) const {
  ClearStatus(status);
  if (!is_host()) fns_.synchronize(fns_.state, status);
}

const Device* CpuDevice() {
  static const Device* cpu = Table().devices.front().get();
  return cpu;
}

std::vector<const Device*> AllDevices() {
  DeviceTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mu);
  std::vector<const Device*> out;
  for (const auto& d : t.devices) out.push_back(d.get());
  return out;
}

bool ParseDeviceName(const std::string& name, std::string* type, int* ordinal) {
  // The last path component names the device: "device:GPU:0", "GPU:0", "gpu".
  std::string last = name.substr(name.rfind('/') + 1);
  if (last.compare(0, 7, "device:") == 0) last = last.substr(7);
  const size_t colon = last.find(':');
  *type = Upper(last.substr(0, colon));
  *ordinal = 0;
  if (type->empty()) return false;
  if (colon != std::string::npos) {
    const std::string digits = last.substr(colon + 1);
    if (digits.empty() || digits.size() > 6) return false;
    for (char c : digits)
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    *ordinal = std::atoi(digits.c_str());
  }
  return true;
}

const Device* FindDevice(const std::string& name) {
  std::string type;
  int ordinal = 0;
  if (name.empty()) return CpuDevice();
  if (!ParseDeviceName(name, &type, &ordinal)) return nullptr;
  DeviceTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mu);
  for (const auto& d : t.devices)
    if (d->type() == type && d->ordinal() == ordinal) return d.get();
  return nullptr;
}

TF_Tensor* CopyTensorTo(const TF_Tensor* t, const Device* dst, TF_Status* status) {
  const Device* src = DeviceOf(t);
  ClearStatus(status);
  if (src == dst) return t->Share();
  if (TF_DataTypeSize(t->dtype) == 0) {
    SetStatus(status, TF_INVALID_ARGUMENT,
              std::string("a ") + DataTypeName(t->dtype) + " tensor cannot be copied to " +
                  dst->name() + " (only fixed-size dtypes live on devices)");
    return nullptr;
  }
  const size_t len = t->buffer->size();
  TensorBuffer* buffer = dst->Allocate(len, status);
  if (buffer == nullptr) return nullptr;
  std::unique_ptr<TF_Tensor> out(new TF_Tensor(t->dtype, t->dims, buffer));
  if (len == 0) return out.release();
  if (src->is_host()) {
    dst->CopyFromHost(buffer->data(), t->buffer->data(), len, status);
  } else if (dst->is_host()) {
    src->CopyToHost(buffer->data(), t->buffer->data(), len, status);
  } else {  // between two devices: through the host
    std::unique_ptr<TensorBuffer, void (*)(TensorBuffer*)> staging(
        TensorBuffer::Allocate(len), [](TensorBuffer* b) { if (b) b->Unref(); });
    if (staging == nullptr) {
      SetStatus(status, TF_RESOURCE_EXHAUSTED, "cannot allocate " + std::to_string(len) + " bytes");
      return nullptr;
    }
    src->CopyToHost(staging->data(), t->buffer->data(), len, status);
    if (status->code == TF_OK) dst->CopyFromHost(buffer->data(), staging->data(), len, status);
  }
  if (status->code != TF_OK) {
    status->message = "copying a tensor from " + src->name() + " to " + dst->name() + ": " +
                      status->message;
    return nullptr;
  }
  return out.release();
}

TF_Tensor* AllocateDeviceTensor(const Device* device, TF_DataType dtype, const int64_t* dims,
                                int num_dims, size_t len, TF_Status* status) {
  const size_t element = TF_DataTypeSize(dtype);
  int64_t n = 1;
  for (int i = 0; i < num_dims; ++i) n = dims[i] < 0 ? -1 : n * dims[i];
  if (num_dims < 0 || element == 0 || n < 0 || static_cast<size_t>(n) * element != len) {
    SetStatus(status, TF_INVALID_ARGUMENT,
              std::to_string(len) + " bytes do not fit dtype " + DataTypeName(dtype) +
                  " and shape " + ShapeToString(std::vector<int64_t>(dims, dims + (num_dims > 0 ? num_dims : 0))));
    return nullptr;
  }
  TensorBuffer* buffer = device->Allocate(len, status);
  if (buffer == nullptr) return nullptr;
  return new TF_Tensor(dtype, std::vector<int64_t>(dims, dims + num_dims), buffer);
}

void SetDeviceUnavailable(const std::string& type, const std::string& reason) {
  DeviceTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mu);
  t.unavailable.emplace(Upper(type), reason);  // the first reason stays (pointers to it too)
}

const char* DeviceUnavailableReason(const std::string& type) {
  DeviceTable& t = Table();
  const std::string key = Upper(type);
  std::lock_guard<std::mutex> lock(t.mu);
  for (const auto& d : t.devices)
    if (d->type() == key) return nullptr;
  auto it = t.unavailable.find(key);
  return it == t.unavailable.end() ? nullptr : it->second.c_str();
}

// The plugins ship beside the runtime and link it: RTLD_DEEPBIND makes their TF_* calls
// bind to it first. Plain RTLD_LOCAL binds them to the first C API in the global symbol
// scope, which is TensorFlow's when tensorflow was imported before opgen: the plugin
// then registered its kernels into TensorFlow and crashed. Sanitizer runtimes refuse
// RTLD_DEEPBIND, so sanitized builds go without it.
#if defined(RTLD_DEEPBIND) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
constexpr int kPluginBinding = RTLD_DEEPBIND;
#else
constexpr int kPluginBinding = 0;
#endif

void LoadDevicePlugins() {
  const char* disabled = std::getenv("OPGEN_DISABLE_DEVICE_PLUGINS");
  // The plugins shipped with the runtime sit in the runtime library's own folder.
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&LoadDevicePlugins), &info) == 0 || info.dli_fname == nullptr)
    return;
  std::string dir = info.dli_fname;
  dir = dir.substr(0, dir.rfind('/') + 1);
  struct Plugin { const char* file; const char* device_type; };
  for (const Plugin& p : {Plugin{"libopgen_cuda.so", "GPU"}}) {
    const std::string path = dir + p.file;
    if (access(path.c_str(), F_OK) != 0) continue;  // not built: nvcc was missing
    if (disabled != nullptr && *disabled != '\0' && std::string(disabled) != "0") {
      SetDeviceUnavailable(p.device_type, std::string(p.file) +
                                              " was not loaded: OPGEN_DISABLE_DEVICE_PLUGINS is set");
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | kPluginBinding);
    if (handle == nullptr) {
      const char* err = dlerror();
      SetDeviceUnavailable(p.device_type, "cannot load " + path + ": " + (err ? err : "?"));
      continue;
    }
    auto init = reinterpret_cast<OPGEN_InitDevicePluginFn>(
        dlsym(handle, OPGEN_INIT_DEVICE_PLUGIN_SYMBOL));
    if (init == nullptr) {
      SetDeviceUnavailable(p.device_type, path + " has no " OPGEN_INIT_DEVICE_PLUGIN_SYMBOL);
      continue;  // left loaded: unloading code that may have registered anything is unsafe
    }
    TF_Status status;
    init(&status);
    if (status.code != TF_OK) SetDeviceUnavailable(p.device_type, status.message);
  }
}

}  // namespace opgen

struct TF_DeviceList {
  struct Entry { std::string name, type, description; int64_t memory; };
  std::vector<Entry> devices;
};

extern "C" {

void OPGEN_RegisterDevice(const char* device_type, int ordinal, const char* description,
                          int64_t memory_bytes, const OPGEN_DeviceFunctions* functions,
                          TF_Status* status) {
  using opgen::SetStatus;
  if (device_type == nullptr || *device_type == '\0' || ordinal < 0 || functions == nullptr) {
    SetStatus(status, TF_INVALID_ARGUMENT, "OPGEN_RegisterDevice: missing device type, ordinal or functions");
    return;
  }
  if (functions->struct_size < OPGEN_DEVICE_FUNCTIONS_STRUCT_SIZE || !functions->allocate ||
      !functions->deallocate || !functions->copy_host_to_device ||
      !functions->copy_device_to_host || !functions->copy_device_to_device ||
      !functions->synchronize) {
    SetStatus(status, TF_INVALID_ARGUMENT,
              std::string("OPGEN_RegisterDevice: incomplete OPGEN_DeviceFunctions for ") + device_type);
    return;
  }
  const std::string type = opgen::Upper(device_type);
  if (type == "CPU") {
    SetStatus(status, TF_INVALID_ARGUMENT, "OPGEN_RegisterDevice: the CPU is built in");
    return;
  }
  opgen::DeviceTable& t = opgen::Table();
  std::lock_guard<std::mutex> lock(t.mu);
  for (const auto& d : t.devices) {
    if (d->type() == type && d->ordinal() == ordinal) {
      SetStatus(status, TF_ALREADY_EXISTS, "device " + d->name() + " is already registered");
      return;
    }
  }
  t.devices.push_back(std::make_unique<opgen::Device>(type, ordinal, description ? description : "",
                                                      memory_bytes, functions));
  opgen::ClearStatus(status);
}

const char* OPGEN_DeviceUnavailableReason(const char* device_type) {
  return opgen::DeviceUnavailableReason(device_type ? device_type : "");
}

const char* OPGEN_TensorDeviceName(const TF_Tensor* tensor) {
  return opgen::DeviceOf(tensor)->name().c_str();
}

TF_Tensor* OPGEN_TensorCopyToDevice(const TF_Tensor* tensor, const char* device_name,
                                    TF_Status* status) {
  if (tensor == nullptr) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT, "OPGEN_TensorCopyToDevice: tensor is NULL");
    return nullptr;
  }
  if (!opgen::EnsureRuntimeInitialized(status)) return nullptr;
  const opgen::Device* dst = opgen::FindDevice(device_name ? device_name : "");
  if (dst == nullptr) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     std::string("no device '") + (device_name ? device_name : "") + "'");
    return nullptr;
  }
  try {
    return opgen::CopyTensorTo(tensor, dst, status);
  } catch (const std::exception& e) {
    opgen::SetStatus(status, TF_INTERNAL, e.what());
    return nullptr;
  }
}

TF_Tensor* OPGEN_NewDeviceTensor(const char* device_name, TF_DataType dtype, const int64_t* dims,
                                 int num_dims, void* data, size_t len,
                                 void (*deallocator)(void*, size_t, void*), void* arg,
                                 TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"dims", opgen::ArrayArg(dims, num_dims)}}) ||
      !opgen::EnsureRuntimeInitialized(status))
    return nullptr;
  const opgen::Device* device = opgen::FindDevice(device_name ? device_name : "");
  if (device == nullptr) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     std::string("no device '") + (device_name ? device_name : "") + "'");
    return nullptr;
  }
  const size_t element = opgen::IsDataType(dtype) ? TF_DataTypeSize(dtype) : 0;
  // Checked: the dims are the caller's, and their product may overflow.
  const int64_t n = num_dims < 0 ? -1 : opgen::NumElements(dims, static_cast<size_t>(num_dims));
  size_t bytes = 0;
  if (element == 0 || n < 0 || !opgen::ByteSize(element, n, &bytes) || bytes != len) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     "OPGEN_NewDeviceTensor: " + std::to_string(len) + " bytes do not fit dtype " +
                         opgen::DataTypeName(dtype) + " and the given shape");
    return nullptr;
  }
  auto* buffer = new opgen::TensorBuffer(data, len, deallocator, arg);
  if (!device->is_host()) buffer->set_device(device);
  opgen::ClearStatus(status);
  return new TF_Tensor(dtype, std::vector<int64_t>(dims, dims + num_dims), buffer);
}

void OPGEN_SynchronizeDevice(const char* device_name, TF_Status* status) {
  if (!opgen::EnsureRuntimeInitialized(status)) return;
  const opgen::Device* device = opgen::FindDevice(device_name ? device_name : "");
  if (device == nullptr) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT,
                     std::string("no device '") + (device_name ? device_name : "") + "'");
    return;
  }
  device->Synchronize(status);
}

TF_DeviceList* TFE_ContextListDevices(TFE_Context* ctx, TF_Status* status) {
  if (!opgen::EnsureRuntimeInitialized(status)) return nullptr;
  auto* list = new TF_DeviceList();
  for (const opgen::Device* d : opgen::AllDevices())
    list->devices.push_back({d->name(), d->type(), d->description(), d->memory_bytes()});
  opgen::ClearStatus(status);
  return list;
}

void TF_DeleteDeviceList(TF_DeviceList* list) { delete list; }
int TF_DeviceListCount(const TF_DeviceList* list) {
  return list == nullptr ? 0 : static_cast<int>(list->devices.size());
}

static const TF_DeviceList::Entry* Entry(const TF_DeviceList* list, int index, TF_Status* status) {
  if (list == nullptr || index < 0 || index >= static_cast<int>(list->devices.size())) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT, "device index " + std::to_string(index) + " out of range");
    return nullptr;
  }
  opgen::ClearStatus(status);
  return &list->devices[index];
}

const char* TF_DeviceListName(const TF_DeviceList* list, int index, TF_Status* status) {
  const auto* e = Entry(list, index, status);
  return e ? e->name.c_str() : nullptr;
}
const char* TF_DeviceListType(const TF_DeviceList* list, int index, TF_Status* status) {
  const auto* e = Entry(list, index, status);
  return e ? e->type.c_str() : nullptr;
}
int64_t TF_DeviceListMemoryBytes(const TF_DeviceList* list, int index, TF_Status* status) {
  const auto* e = Entry(list, index, status);
  return e ? e->memory : -1;
}
const char* OPGEN_DeviceListDescription(const TF_DeviceList* list, int index, TF_Status* status) {
  const auto* e = Entry(list, index, status);
  return e ? e->description.c_str() : nullptr;
}

}  // extern "C"
