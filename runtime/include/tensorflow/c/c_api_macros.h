/* Export macro of opgen's C ABI. Every public function is declared with TF_CAPI_EXPORT;
 * all other symbols of the runtime library stay hidden. */
#ifndef TENSORFLOW_C_C_API_MACROS_H_
#define TENSORFLOW_C_C_API_MACROS_H_

#include <stddef.h>

#if defined(_WIN32)
#define TF_CAPI_EXPORT __declspec(dllexport)
#else
#define TF_CAPI_EXPORT __attribute__((visibility("default")))
#endif

/* Byte offset just past MEMBER of TYPE: the size a versioned struct had when MEMBER was
 * its last field (how TensorFlow's C structs carry their `struct_size`). */
#ifndef TF_OFFSET_OF_END
#define TF_OFFSET_OF_END(TYPE, MEMBER) (offsetof(TYPE, MEMBER) + sizeof(((TYPE*)0)->MEMBER))
#endif

#endif /* TENSORFLOW_C_C_API_MACROS_H_ */
