// cudalab CPU simulator: cg::inclusive_scan and cg::exclusive_scan over a tile
// (`#include <cooperative_groups/scan.h>`), by shfl_up steps (Hillis-Steele).
#pragma once

#include "../cooperative_groups.h"
#include "reduce.h"

namespace cooperative_groups {

/// Thread i of the tile gets `op` over `value` of threads 0..i.
template <unsigned N, class Parent, class T, class Op = plus<T>>
[[gnu::always_inline]] inline T inclusive_scan(const thread_block_tile<N, Parent>& tile, T value, Op op = Op(),
                                               int line = __builtin_LINE()) {
  const unsigned rank = tile.thread_rank();
  for (unsigned d = 1; d < N; d *= 2) {
    const T before = tile.shfl_up(value, d, line);
    if (rank >= d) value = op(before, value);
  }
  return value;
}

/// Thread i of the tile gets `op` over `value` of threads 0..i-1; thread 0 gets T{} (its value
/// is undefined in CUDA).
template <unsigned N, class Parent, class T, class Op = plus<T>>
[[gnu::always_inline]] inline T exclusive_scan(const thread_block_tile<N, Parent>& tile, T value, Op op = Op(),
                                               int line = __builtin_LINE()) {
  const T inclusive = inclusive_scan(tile, value, op, line);
  const T before = tile.shfl_up(inclusive, 1, line);
  return tile.thread_rank() == 0 ? T{} : before;
}

}  // namespace cooperative_groups
