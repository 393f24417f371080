/* TF_Status: the outcome of a call, as an error code and a message.
 *
 * Every fallible function of the C ABI takes a TF_Status* as its last parameter and
 * sets it; callers check TF_GetCode(status) == TF_OK afterwards. A status can be
 * reused across calls: each call overwrites it. */
#ifndef TENSORFLOW_C_TF_STATUS_H_
#define TENSORFLOW_C_TF_STATUS_H_

#include "tensorflow/c/c_api_macros.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_Status TF_Status;

/* Error codes; the numbers are TensorFlow's (and gRPC's). */
typedef enum TF_Code {
  TF_OK = 0,
  TF_CANCELLED = 1,
  TF_UNKNOWN = 2,
  TF_INVALID_ARGUMENT = 3,
  TF_DEADLINE_EXCEEDED = 4,
  TF_NOT_FOUND = 5,
  TF_ALREADY_EXISTS = 6,
  TF_PERMISSION_DENIED = 7,
  TF_UNAUTHENTICATED = 16,
  TF_RESOURCE_EXHAUSTED = 8,
  TF_FAILED_PRECONDITION = 9,
  TF_ABORTED = 10,
  TF_OUT_OF_RANGE = 11,
  TF_UNIMPLEMENTED = 12,
  TF_INTERNAL = 13,
  TF_UNAVAILABLE = 14,
  TF_DATA_LOSS = 15,
} TF_Code;

/* A new status set to TF_OK. The caller owns it and frees it with TF_DeleteStatus. */
TF_CAPI_EXPORT extern TF_Status* TF_NewStatus(void);

/* Frees `s`; NULL is allowed. */
TF_CAPI_EXPORT extern void TF_DeleteStatus(TF_Status* s);

/* Sets code and message; `msg` is copied. With TF_OK the message is cleared. */
TF_CAPI_EXPORT extern void TF_SetStatus(TF_Status* s, TF_Code code, const char* msg);

/* The code of the last call that set `s`. */
TF_CAPI_EXPORT extern TF_Code TF_GetCode(const TF_Status* s);

/* The message of `s` ("" for TF_OK). Owned by `s`; valid until `s` is next set or freed. */
TF_CAPI_EXPORT extern const char* TF_Message(const TF_Status* s);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_C_TF_STATUS_H_ */
