// The structs behind the shape-inference handles of the C API (tensorflow/c/ops.h):
// what a shape function sees of one node while InferOutputShapes runs it.
#pragma once

#include <vector>

#include "op_def.h"
#include "shape_inference.h"
#include "tensorflow/c/ops.h"

struct TF_ShapeHandle {
  opgen::Shape shape;  // a fresh handle holds an unknown shape
};

struct TF_DimensionHandle {
  int64_t value = -1;  // -1: unknown size
};

struct TF_ShapeInferenceContext {
  const opgen::OpDef* op;
  const opgen::AttrMap* attrs;  // complete: inferred and default attrs included
  const std::vector<opgen::ShapeInferenceInput>* inputs;
  std::vector<opgen::Shape> outputs;  // what the shape function set; unknown otherwise
};
