// cudalab CPU simulator: cg::reduce and its operators (`#include <cooperative_groups/reduce.h>`).
// A tile reduces by butterfly shuffles, so every thread of the tile gets the result, as with CUDA's;
// a coalesced group gathers every member's value in rank order.
#pragma once

#include "../cooperative_groups.h"

namespace cooperative_groups {

/// a + b.
template <class T>
struct plus {
  T operator()(const T& a, const T& b) const { return a + b; }
};
/// The lesser of a and b.
template <class T>
struct less {
  T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
/// The greater of a and b.
template <class T>
struct greater {
  T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
/// a & b.
template <class T>
struct bit_and {
  T operator()(const T& a, const T& b) const { return a & b; }
};
/// a | b.
template <class T>
struct bit_or {
  T operator()(const T& a, const T& b) const { return a | b; }
};
/// a ^ b.
template <class T>
struct bit_xor {
  T operator()(const T& a, const T& b) const { return a ^ b; }
};

/// `op` over `value` of every thread of the tile; every thread gets the result.
template <unsigned N, class Parent, class T, class Op>
[[gnu::always_inline]] inline T reduce(const thread_block_tile<N, Parent>& tile, T value, Op op,
                                       int line = __builtin_LINE()) {
  for (unsigned offset = N / 2; offset > 0; offset /= 2) value = op(value, tile.shfl_xor(value, offset, line));
  return value;
}

/// `op` over `value` of every thread of the group, in rank order; every thread gets the result.
template <class T, class Op>
[[gnu::always_inline]] inline T reduce(const coalesced_group& group, T value, Op op, int line = __builtin_LINE()) {
  T total = group.shfl(value, 0, line);
  for (unsigned r = 1; r < group.size(); ++r) total = op(total, group.shfl(value, r, line));
  return total;
}

}  // namespace cooperative_groups
