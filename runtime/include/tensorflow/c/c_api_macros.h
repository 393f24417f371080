/* Export macro of opgen's C ABI. Every public function is declared with TF_CAPI_EXPORT;
 * all other symbols of the runtime library stay hidden. */
#ifndef TENSORFLOW_C_C_API_MACROS_H_
#define TENSORFLOW_C_C_API_MACROS_H_

#if defined(_WIN32)
#define TF_CAPI_EXPORT __declspec(dllexport)
#else
#define TF_CAPI_EXPORT __attribute__((visibility("default")))
#endif

#endif /* TENSORFLOW_C_C_API_MACROS_H_ */
