// CPU kernels of TensorFlow 1's stacks (../../ops/stack_ops.cc). A stack is a resource of
// the run's step container, a new one per StackV2 run: tf.compat.v1.while_loop's gradient
// pushes each iteration's forward values in the forward loop and pops them, last first,
// in the backward loop. Elements are held, not copied, so any dtype goes. The checks and
// messages follow TensorFlow's.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernel_util.h"
#include "held_resource.h"
#include "opgen/c_api_ext.h"

namespace opgen {
namespace cpu {
namespace {

constexpr char kStackType[] = "tensorflow::Stack";
constexpr char kContainer[] = OPGEN_STEP_CONTAINER;  // freed when the run ends

using Held = std::shared_ptr<TF_Tensor>;

class Stack {
 public:
  Stack(std::string name, TF_DataType dtype, int64_t max_size)
      : name_(std::move(name)), dtype_(dtype), max_size_(max_size) {}

  std::mutex& mu() { return mu_; }
  const std::string& name() const { return name_; }
  TF_DataType dtype() const { return dtype_; }
  // Under mu(): false when the stack is full.
  bool Push(Held value) {
    if (max_size_ >= 0 && static_cast<int64_t>(items_.size()) >= max_size_) return false;
    items_.push_back(std::move(value));
    return true;
  }
  int64_t max_size() const { return max_size_; }
  // Under mu(): null when empty.
  Held Pop() {
    if (items_.empty()) return nullptr;
    Held top = std::move(items_.back());
    items_.pop_back();
    return top;
  }

 private:
  std::mutex mu_;
  std::string name_;
  TF_DataType dtype_;
  int64_t max_size_;  // negative: unbounded
  std::vector<Held> items_;
};

struct StackAttrs {
  TF_DataType dtype = TF_FLOAT;
  std::string name;  // stack_name, else the node's
};

void* NewStackAttrs(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* a = new StackAttrs();
  TF_OpKernelConstruction_GetAttrType(ctx, "elem_type", &a->dtype, s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->name = kernels::StringAttr(ctx, "stack_name", s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete a;
    return nullptr;
  }
  if (a->name.empty()) {
    const TF_StringView node = TF_OpKernelConstruction_GetName(ctx);
    a->name.assign(node.data, node.len);
  }
  return a;
}
void DeleteStackAttrs(void* a) { delete static_cast<StackAttrs*>(a); }

struct MakeArgs {
  const StackAttrs* attrs;
  std::string name;
  int64_t max_size;
};

void* MakeStack(void* arg, TF_Status*) {
  const auto* m = static_cast<const MakeArgs*>(arg);
  return new Stack(m->name, m->attrs->dtype, m->max_size);
}
void DeleteStack(void* stack) { delete static_cast<Stack*>(stack); }

void CreateCompute(void* p, TF_OpKernelContext* ctx) {
  static std::atomic<uint64_t> counter{0};
  const auto* a = static_cast<const StackAttrs*>(p);
  const TF_Tensor* max_size = BorrowInput(ctx, 0);
  if (max_size == nullptr) return;
  if (TF_NumDims(max_size) != 0)
    return Fail(ctx, TF_INVALID_ARGUMENT, "max_size must be a scalar, but had shape: " + ShapeString(Dims(max_size)));
  // Every run makes a new stack, as TensorFlow's per-step stacks.
  MakeArgs m{a, a->name + "_" + std::to_string(counter++), *Data<int32_t>(max_size)};
  StatusPtr s = NewStatus();
  OPGEN_KernelCreateResourceHandle(ctx, 0, kContainer, m.name.c_str(), kStackType, &MakeStack, &m,
                                   &DeleteStack, s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelContext_Failure(ctx, s.get());
}

// The stack input 0 names, held while the kernel runs.
class HeldStack : public HeldResource<Stack> {
 public:
  explicit HeldStack(TF_OpKernelContext* ctx) : HeldResource<Stack>(ctx, kStackType) {}
};

void SetOutput(TF_OpKernelContext* ctx, TF_Tensor* value) {
  TF_SetOutput(ctx, 0, value, ThreadStatus());
  if (TF_GetCode(ThreadStatus()) != TF_OK) TF_OpKernelContext_Failure(ctx, ThreadStatus());
}

void PushCompute(void*, TF_OpKernelContext* ctx) {
  HeldStack held(ctx);
  Stack* stack = held.get();
  if (stack == nullptr) return;
  TensorPtr value = Input(ctx, 1);
  if (!value) return;
  if (TF_TensorType(value.get()) != stack->dtype())
    return Fail(ctx, TF_INVALID_ARGUMENT, "Must have type " + kernels::DTypeName(stack->dtype()) +
                                              " but got " + kernels::DTypeName(TF_TensorType(value.get())));
  TF_Tensor* raw = value.get();
  {
    std::lock_guard<std::mutex> lock(stack->mu());
    if (!stack->Push(Held(value.release(), TF_DeleteTensor)))
      return Fail(ctx, TF_INVALID_ARGUMENT, "Stack[" + stack->name() + "] overflowed its max_size (" +
                                                std::to_string(stack->max_size()) + ")");
  }
  SetOutput(ctx, raw);  // the pushed value passes through (the stack holds it)
}

void PopCompute(void*, TF_OpKernelContext* ctx) {
  HeldStack held(ctx);
  Stack* stack = held.get();
  if (stack == nullptr) return;
  Held top;
  {
    std::lock_guard<std::mutex> lock(stack->mu());
    top = stack->Pop();
  }
  if (!top) return Fail(ctx, TF_INVALID_ARGUMENT, "Stack[" + stack->name() + "] is empty when calling Pop().");
  SetOutput(ctx, top.get());
}

void CloseCompute(void*, TF_OpKernelContext* ctx) {
  StatusPtr s = NewStatus();
  OPGEN_KernelDestroyResource(ctx, 0, 0, s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelContext_Failure(ctx, s.get());
}

}  // namespace

void RegisterStackKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"StackV2", {}, {}, CreateCompute, NewStackAttrs, DeleteStackAttrs}, status);
  RegisterKernel(kDevice, {"StackPushV2", {}, {}, PushCompute}, status);
  RegisterKernel(kDevice, {"StackPopV2", {}, {}, PopCompute}, status);
  RegisterKernel(kDevice, {"StackCloseV2", {}, {}, CloseCompute}, status);
}

}  // namespace cpu
}  // namespace opgen
