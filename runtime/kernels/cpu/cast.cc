// Cast between float, double, int32, int64 and bool, for every pair.
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

template <typename Src, typename Dst>
struct CastKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    TensorPtr x = Input(ctx, 0);
    if (!x) return;
    std::vector<int64_t> dims = Dims(x.get());
    TensorPtr y = AllocateOutput<Dst>(ctx, 0, dims);
    if (!y) return;
    const Src* xp = Data<Src>(x);
    Dst* yp = Data<Dst>(y);
    const int64_t n = NumElements(dims);
    for (int64_t i = 0; i < n; ++i) yp[i] = static_cast<Dst>(xp[i]);
  }
};

template <typename Src, typename... Dsts>
void RegisterFrom(TF_Status* status) {
  (void)std::initializer_list<int>{([&] {
    if (TF_GetCode(status) != TF_OK) return 0;
    TF_KernelBuilder* b = TF_NewKernelBuilder("Cast", "CPU", nullptr,
                                              &CastKernel<Src, Dsts>::Compute, nullptr);
    TF_KernelBuilder_TypeConstraint(b, "SrcT", DtypeOf<Src>::value, status);
    TF_KernelBuilder_TypeConstraint(b, "DstT", DtypeOf<Dsts>::value, status);
    TF_RegisterKernelBuilder("Cast_CPU", b, status);
    return 0;
  }())...};
}

}  // namespace

void RegisterCastKernels(TF_Status* status) {
  RegisterFrom<float, float, double, int32_t, int64_t, bool>(status);
  RegisterFrom<double, float, double, int32_t, int64_t, bool>(status);
  RegisterFrom<int32_t, float, double, int32_t, int64_t, bool>(status);
  RegisterFrom<int64_t, float, double, int32_t, int64_t, bool>(status);
  RegisterFrom<bool, float, double, int32_t, int64_t, bool>(status);
}

}  // namespace cpu
}  // namespace opgen
