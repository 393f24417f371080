/* TF_TString: TensorFlow's 24-byte string element of TF_STRING tensors.
 *
 * The layout is TensorFlow's, so that a TF_STRING tensor's bytes mean the same to
 * opgen and to code built against TensorFlow's headers. The low two bits of the first
 * byte give the kind (little-endian hosts: the size fields hold size << 2 | kind):
 *   SMALL  up to 22 bytes inline, NUL-terminated (zeroed bytes are the empty string);
 *   LARGE  heap memory owned by the element (malloc'd, freed by TF_StringDealloc);
 *   OFFSET bytes at a 32-bit offset from the element itself (serialized buffers);
 *   VIEW   bytes owned by someone else (TF_StringAssignView).
 * Use the functions of tensorflow/c/tf_tstring.h rather than the fields. */
#ifndef TENSORFLOW_CORE_PLATFORM_CTSTRING_H_
#define TENSORFLOW_CORE_PLATFORM_CTSTRING_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum TF_TString_Type {
  TF_TSTR_SMALL = 0x00,
  TF_TSTR_LARGE = 0x01,
  TF_TSTR_OFFSET = 0x02,
  TF_TSTR_VIEW = 0x03,
  TF_TSTR_TYPE_MASK = 0x03
} TF_TString_Type;

struct TStringOwnerCApi;
typedef void (*tstring_owner_ref_t)(struct TStringOwnerCApi* self);
typedef bool (*tstring_owner_unref_t)(struct TStringOwnerCApi* self);
/* An optional owner a VIEW holds a reference to (NULL for plain views). */
typedef struct TStringOwnerCApi {
  tstring_owner_ref_t ref;
  tstring_owner_unref_t unref;
  void* obj;
} TStringOwnerCApi;

typedef struct TF_TString_Large {
  size_t size;
  size_t cap;
  char* ptr;
} TF_TString_Large;

typedef struct TF_TString_Offset {
  uint32_t size;
  uint32_t offset;
  uint32_t count;
} TF_TString_Offset;

typedef struct TF_TString_View {
  size_t size;
  const char* ptr;
  TStringOwnerCApi* owner_ref;
} TF_TString_View;

typedef struct TF_TString_Raw {
  uint8_t raw[24];
} TF_TString_Raw;

typedef union TF_TString_Union {
  TF_TString_Large large;
  TF_TString_Offset offset;
  TF_TString_View view;
  TF_TString_Raw raw;
} TF_TString_Union;

enum {
  /* 24 bytes less the size byte and the NUL terminator */
  TF_TString_SmallCapacity = (sizeof(TF_TString_Union) - sizeof(char) - sizeof(uint8_t)),
};

typedef struct TF_TString_Small {
  uint8_t size;
  char str[TF_TString_SmallCapacity + sizeof(char)];
} TF_TString_Small;

typedef struct TF_TString {
  union {
    TF_TString_Small smll;
    TF_TString_Large large;
    TF_TString_Offset offset;
    TF_TString_View view;
    TF_TString_Raw raw;
  } u;
} TF_TString;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TENSORFLOW_CORE_PLATFORM_CTSTRING_H_ */
