// Built-in ops that move or reshape data without arithmetic.
#include "op_table.h"

namespace opgen {

void RegisterArrayOps(TF_Status* status) {
  RegisterOps({
      {"Identity", {"T: type"}, {"input: T"}, {"output: T"},
       "Returns its input unchanged.",
       "The output shares the input's buffer; no data is copied.",
       {{"input", "Any tensor."}, {"output", "The same tensor."}}},
  }, status);
}

}  // namespace opgen
