// TF_Status and TF_Buffer.
#include <cstdlib>
#include <cstring>

#include "core_types.h"
#include "tensorflow/c/tf_buffer.h"

extern "C" {

TF_Status* TF_NewStatus(void) { return new TF_Status(); }
void TF_DeleteStatus(TF_Status* s) { delete s; }
void TF_SetStatus(TF_Status* s, TF_Code code, const char* msg) {
  opgen::SetStatus(s, code, msg ? msg : "");
}
TF_Code TF_GetCode(const TF_Status* s) { return s->code; }
const char* TF_Message(const TF_Status* s) { return s->message.c_str(); }

static void FreeBufferData(void* data, size_t) { std::free(data); }

TF_Buffer* TF_NewBuffer(void) { return new TF_Buffer{nullptr, 0, nullptr}; }

TF_Buffer* TF_NewBufferFromString(const void* proto, size_t proto_len) {
  void* copy = std::malloc(proto_len == 0 ? 1 : proto_len);
  if (copy == nullptr) return nullptr;
  if (proto_len) std::memcpy(copy, proto, proto_len);
  return new TF_Buffer{copy, proto_len, FreeBufferData};
}

void TF_DeleteBuffer(TF_Buffer* buffer) {
  if (buffer == nullptr) return;
  if (buffer->data_deallocator != nullptr && buffer->data != nullptr)
    buffer->data_deallocator(const_cast<void*>(buffer->data), buffer->length);
  delete buffer;
}

TF_Buffer TF_GetBuffer(TF_Buffer* buffer) { return *buffer; }

}  // extern "C"
