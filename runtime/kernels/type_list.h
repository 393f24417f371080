// Lists of element types, for registering one kernel per type, and their concatenation:
// shared by the CPU kernels and the CUDA plugin (each with element types of its own).
#pragma once

namespace opgen {
namespace kernels {

template <typename... Ts> struct Types {};

template <typename... Lists> struct ConcatOf;
template <typename... As> struct ConcatOf<Types<As...>> { using type = Types<As...>; };
template <typename... As, typename... Bs, typename... Rest>
struct ConcatOf<Types<As...>, Types<Bs...>, Rest...> {
  using type = typename ConcatOf<Types<As..., Bs...>, Rest...>::type;
};
// Concat<Types<A, B>, Types<C>> is Types<A, B, C>.
template <typename... Lists> using Concat = typename ConcatOf<Lists...>::type;

}  // namespace kernels
}  // namespace opgen
