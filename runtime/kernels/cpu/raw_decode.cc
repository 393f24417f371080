// CPU kernels of ReadFile, WriteFile, DecodeRaw and DecodePaddedRaw
// (../../ops/audio_ops.cc): whole local files (or file:// URLs) as strings, and strings
// reinterpreted as fixed-width numbers in either byte order. Host only, as in TensorFlow.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "../../src/string_tensor.h"
#include "kernel_util.h"
#include "string_outputs.h"

namespace opgen {
namespace cpu {
namespace {

// ---- ReadFile, WriteFile --------------------------------------------------------------

// TensorFlow's status for a failed file call: "<name>; <strerror>", coded by errno.
void FailErrno(TF_OpKernelContext* ctx, const std::string& name, int err) {
  TF_Code code = TF_UNKNOWN;
  switch (err) {
    case ENOENT: code = TF_NOT_FOUND; break;
    case EISDIR: case ENOTDIR: case EBUSY: case ENOTEMPTY: code = TF_FAILED_PRECONDITION; break;
    case EACCES: case EPERM: case EROFS: code = TF_PERMISSION_DENIED; break;
    case EEXIST: code = TF_ALREADY_EXISTS; break;
    case ENOSPC: case EMFILE: case ENFILE: case ENOMEM: code = TF_RESOURCE_EXHAUSTED; break;
    case ENAMETOOLONG: case EINVAL: code = TF_INVALID_ARGUMENT; break;
    default: break;
  }
  Fail(ctx, code, name + "; " + std::strerror(err));
}

// A scalar string input's value; false after TensorFlow's message.
bool ScalarString(TF_OpKernelContext* ctx, int i, const char* what, std::string* out) {
  const TF_Tensor* t = BorrowInput(ctx, i);
  if (t == nullptr) return false;
  if (TF_NumDims(t) != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(what) + " must be scalar, but had shape: " +
                                       ShapeString(Dims(t)));
    return false;
  }
  *out = std::string(StringElement(StringElements(t)));
  return true;
}

// The local path a file name names: itself, or a file:// URL's path; false after
// TensorFlow's message for another scheme.
bool LocalPath(TF_OpKernelContext* ctx, const std::string& name, std::string* path) {
  size_t k = 0;
  if (!name.empty() && std::isalpha(static_cast<unsigned char>(name[0]))) {
    k = 1;
    while (k < name.size() && (std::isalnum(static_cast<unsigned char>(name[k])) || name[k] == '.'))
      ++k;
  }
  if (k == 0 || name.compare(k, 3, "://") != 0) {
    *path = name.c_str();  // up to a NUL, as the C library reads it
    return true;
  }
  const std::string scheme = name.substr(0, k);
  if (scheme != "file") {
    Fail(ctx, TF_UNIMPLEMENTED, "File system scheme '" + scheme + "' not implemented (file: '" +
                                    name + "')");
    return false;
  }
  *path = name.substr(k + 3).c_str();
  return true;
}

void ReadFileCompute(void*, TF_OpKernelContext* ctx) {
  std::string name, path;
  if (!ScalarString(ctx, 0, "Input filename tensor", &name) || !LocalPath(ctx, name, &path))
    return;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return FailErrno(ctx, path, errno);
  std::string contents;
  struct stat st {};
  int err = 0;
  if (::fstat(fd, &st) != 0) err = errno;
  else if (S_ISDIR(st.st_mode)) err = EISDIR;
  char buffer[1 << 16];
  while (err == 0) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) err = errno;
    if (got <= 0) break;
    contents.append(buffer, static_cast<size_t>(got));
  }
  ::close(fd);
  if (err != 0) return FailErrno(ctx, path, err);
  TensorPtr out = strings::NewStrings(ctx, {});
  if (out && strings::Put(ctx, MutableStringElements(out.get()), contents))
    strings::SetOut(ctx, 0, out);
}

// mkdir -p of `dir`; 0 or the errno of the first failure.
int MakeDirs(const std::string& dir) {
  struct stat st {};
  if (dir.empty() || ::stat(dir.c_str(), &st) == 0) return 0;
  const size_t slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    if (const int err = MakeDirs(dir.substr(0, slash))) return err;
  }
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return errno;
  return 0;
}

void WriteFileCompute(void*, TF_OpKernelContext* ctx) {
  std::string name, path, contents;
  if (!ScalarString(ctx, 0, "Input filename tensor", &name)) return;
  const TF_Tensor* c = BorrowInput(ctx, 1);
  if (c == nullptr) return;
  if (TF_NumDims(c) != 0)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Contents tensor must be scalar, but had shape: " +
                                              ShapeString(Dims(c)));
  if (!LocalPath(ctx, name, &path)) return;
  // Missing parent directories are created first, as TensorFlow's kernel does.
  const size_t slash = path.find_last_of('/');
  if (slash != std::string::npos && slash > 0)
    if (const int err = MakeDirs(path.substr(0, slash))) return FailErrno(ctx, path, err);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return FailErrno(ctx, path, errno);
  const std::string_view bytes = StringElement(StringElements(c));
  size_t done = 0;
  int err = 0;
  while (done < bytes.size()) {
    const ssize_t put = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) {
      err = errno;
      break;
    }
    done += static_cast<size_t>(put);
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) FailErrno(ctx, path, err);
}

// ---- DecodeRaw, DecodePaddedRaw ---------------------------------------------------------

struct RawAttrs {
  TF_DataType type = TF_FLOAT;
  bool little_endian = true;
};

void* CreateRaw(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  RawAttrs a;
  TF_OpKernelConstruction_GetAttrType(ctx, "out_type", &a.type, s.get());
  if (TF_GetCode(s.get()) == TF_OK) a.little_endian = kernels::BoolAttr(ctx, "little_endian", s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  return new RawAttrs(a);
}
void DeleteRaw(void* a) { delete static_cast<RawAttrs*>(a); }

std::string TypeName(TF_DataType t) {
  switch (t) {
    case TF_COMPLEX64: return "complex64";
    case TF_COMPLEX128: return "complex128";
    default: return kernels::DTypeName(t);
  }
}

// Copies `n` bytes of elements of `size` bytes, reversing each word of `word` bytes when
// the data's byte order is not the host's (little-endian); complex values swap their
// real and imaginary parts separately.
void CopyOrdered(const char* src, char* dst, size_t n, size_t word, bool swap) {
  if (!swap || word == 1) {
    std::memcpy(dst, src, n);
    return;
  }
  for (size_t k = 0; k + word <= n; k += word) std::reverse_copy(src + k, src + k + word, dst + k);
}

size_t WordSize(TF_DataType t) {
  const size_t size = TF_DataTypeSize(t);
  return (t == TF_COMPLEX64 || t == TF_COMPLEX128) ? size / 2 : size;
}

void DecodeRawCompute(void* state, TF_OpKernelContext* ctx) {
  const RawAttrs& a = *static_cast<RawAttrs*>(state);
  const TF_Tensor* in = BorrowInput(ctx, 0);
  if (in == nullptr) return;
  const TF_TString* s = StringElements(in);
  const int64_t n = TF_TensorElementCount(in);
  int64_t length = -1;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t size = static_cast<int64_t>(TF_StringGetSize(&s[i]));
    if (length == -1) length = size;
    else if (size != length)
      // TensorFlow's message names the first string's size first.
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "DecodeRaw requires input strings to all be the same size, but element " +
                      std::to_string(i) + " has size " + std::to_string(length) + " != " +
                      std::to_string(size));
  }
  std::vector<int64_t> dims = Dims(in);
  const int64_t size = static_cast<int64_t>(TF_DataTypeSize(a.type));
  if (length <= 0) {
    dims.push_back(0);
    kernels::AllocateOutput(ctx, 0, a.type, dims);
    return;
  }
  if (length % size != 0)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "Input to DecodeRaw has length " + std::to_string(length) +
                    " that is not a multiple of " + std::to_string(size) + ", the size of " +
                    TypeName(a.type));
  dims.push_back(length / size);
  TensorPtr out = kernels::AllocateOutput(ctx, 0, a.type, dims);
  if (!out) return;
  char* o = static_cast<char*>(TF_TensorData(out.get()));
  for (int64_t i = 0; i < n; ++i)
    CopyOrdered(TF_StringGetDataPointer(&s[i]), o + i * length, static_cast<size_t>(length),
                WordSize(a.type), !a.little_endian);
}

void DecodePaddedRawCompute(void* state, TF_OpKernelContext* ctx) {
  const RawAttrs& a = *static_cast<RawAttrs*>(state);
  const TF_Tensor* in = BorrowInput(ctx, 0);
  const TF_Tensor* k = in ? BorrowInput(ctx, 1) : nullptr;
  if (k == nullptr) return;
  if (TF_NumDims(k) != 0)
    return Fail(ctx, TF_INVALID_ARGUMENT, "k must be scalar, got shape " + ShapeString(Dims(k)));
  const int64_t length = *Data<int32_t>(k);
  const int64_t size = static_cast<int64_t>(TF_DataTypeSize(a.type));
  if (length % size != 0)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "fixed_length (" + std::to_string(length) +
                    ") must be a multiple of the size of out_type (" + std::to_string(size) + ")");
  if (length <= 0)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "fixed_length (" + std::to_string(length) + ") must be greater than zero.");
  std::vector<int64_t> dims = Dims(in);
  dims.push_back(length / size);
  TensorPtr out = kernels::AllocateOutput(ctx, 0, a.type, dims);
  if (!out) return;
  const TF_TString* s = StringElements(in);
  const int64_t n = TF_TensorElementCount(in);
  char* o = static_cast<char*>(TF_TensorData(out.get()));
  std::string padded(static_cast<size_t>(length), '\0');
  for (int64_t i = 0; i < n; ++i) {
    // Shorter strings end in zero bytes; longer ones are cut at fixed_length.
    const size_t take = std::min<size_t>(TF_StringGetSize(&s[i]), static_cast<size_t>(length));
    std::fill(padded.begin(), padded.end(), '\0');
    std::memcpy(padded.data(), TF_StringGetDataPointer(&s[i]), take);
    CopyOrdered(padded.data(), o + i * length, static_cast<size_t>(length), size,
                !a.little_endian);
  }
}

}  // namespace

void RegisterRawDecodeKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"ReadFile", {}, {}, ReadFileCompute}, status);
  RegisterKernel(kDevice, {"WriteFile", {}, {}, WriteFileCompute}, status);
  for (TF_DataType t : {TF_HALF, TF_FLOAT, TF_DOUBLE, TF_INT32, TF_UINT16, TF_UINT8, TF_INT16,
                        TF_INT8, TF_INT64, TF_COMPLEX64, TF_COMPLEX128, TF_BOOL, TF_BFLOAT16})
    RegisterKernel(kDevice, {"DecodeRaw", {{"out_type", t}}, {}, DecodeRawCompute, CreateRaw,
                             DeleteRaw}, status);
  for (TF_DataType t : {TF_HALF, TF_FLOAT, TF_DOUBLE, TF_INT32, TF_UINT16, TF_UINT8, TF_INT16,
                        TF_INT8, TF_INT64, TF_BFLOAT16})
    RegisterKernel(kDevice, {"DecodePaddedRaw", {{"out_type", t}}, {"fixed_length"},
                             DecodePaddedRawCompute, CreateRaw, DeleteRaw}, status);
}

}  // namespace cpu
}  // namespace opgen
