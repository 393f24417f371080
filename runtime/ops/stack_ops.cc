// TensorFlow 1's stacks (the V2 ops, with TensorFlow's OpDefs): the gradient of a
// tf.compat.v1.while_loop saves each forward iteration's values on stacks and pops them
// in the backward loop, last first. A stack lives for one run, like a TensorArray. Every
// op has a resource arg, so each is stateful and constant folding leaves it alone.
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// TensorFlow gives the handle the shape of its legacy string handle, a 2-vector.
void CreateShape(ShapeFnContext& c) {
  c.InputWithRank(0, 0, "max_size");
  c.SetOutput(0, PartialShape::Of({2}));
}

void PushShape(ShapeFnContext& c) { c.SetOutput(0, c.Input(1)); }
void PopShape(ShapeFnContext& c) { c.SetOutput(0, PartialShape::Unknown()); }
void NoOutputs(ShapeFnContext&) {}

OpRegistration Op(const char* name, std::vector<std::string> attrs, std::vector<std::string> inputs,
                  std::vector<std::string> outputs, OpShapeFn shape_fn, const char* summary,
                  std::vector<std::pair<std::string, std::string>> docs) {
  docs.insert(docs.begin(), {"handle", "The stack's handle."});
  return OpRegistration{name, std::move(attrs), std::move(inputs), std::move(outputs), shape_fn,
                        summary, "", std::move(docs), false, false, true};
}

}  // namespace

void RegisterStackOps(TF_Status* status) {
  RegisterOps({
      Op("StackV2", {"elem_type: type", "stack_name: string = ''"}, {"max_size: int32"},
         {"handle: resource"}, ShapeFn<CreateShape>, "Makes a new, empty stack.",
         {{"max_size", "The most elements it may hold; negative: no limit."},
          {"elem_type", "The elements' dtype."},
          {"stack_name", "A name for the stack in error messages."}}),
      Op("StackPushV2", {"T: type", "swap_memory: bool = false"}, {"handle: resource", "elem: T"},
         {"output: T"}, ShapeFn<PushShape>, "Pushes `elem` onto the stack and passes it on.",
         {{"elem", "The value to push."}, {"output", "`elem`, unchanged."},
          {"T", "Its dtype (the stack's elem_type)."},
          {"swap_memory", "Let a GPU value move to host memory while on the stack (values "
                          "on a CPU device stay where they are)."}}),
      Op("StackPopV2", {"elem_type: type"}, {"handle: resource"}, {"elem: elem_type"},
         ShapeFn<PopShape>, "Pops the element last pushed.",
         {{"elem", "That element."}, {"elem_type", "Its dtype."}}),
      Op("StackCloseV2", {}, {"handle: resource"}, {}, ShapeFn<NoOutputs>,
         "Deletes the stack and its elements.", {}),
  }, status);
}

}  // namespace opgen
