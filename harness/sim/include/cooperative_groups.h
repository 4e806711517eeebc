// cudalab CPU simulator: CUDA's cooperative groups (`#include <cooperative_groups.h>`), built on the
// simulator's warp rendezvous and block barrier (cudalab_sim/device.hpp). A tile's lanes are a
// mask within its warp; its shuffles are the warp shuffles with that mask and the tile's size as
// the width, so a lane reading outside the tile gets its own value, as on a GPU.
//
// What there is: thread_block (this_thread_block), grid_group (this_grid: ranks and sizes; its
// sync() fails the launch, cooperative launches are not simulated), thread_block_tile<N>
// (tiled_partition<N>), thread_group (the dynamic tiled_partition(parent, n), n a power of two up
// to 32), coalesced_group (coalesced_threads), cg::sync(group); cg::reduce and the scans are in
// cooperative_groups/reduce.h and cooperative_groups/scan.h. Not simulated: tiles of more than 32
// threads, labeled_partition, binary_partition, cluster groups, memcpy_async.
#pragma once

#include <cstring>
#include <type_traits>

#include "cudalab_sim/device.hpp"

extern "C" void cudalab_sim_unsupported(const char* what);

namespace cooperative_groups {

namespace details {

/// The calling thread's rank in its block (x fastest), as CUDA linearises threadIdx.
inline unsigned block_rank() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
inline unsigned long long block_threads() { return 1ull * blockDim.x * blockDim.y * blockDim.z; }
inline unsigned lane() { return block_rank() & 31u; }
/// The lanes of the calling thread's tile of `size` threads (a power of two up to 32).
inline unsigned tile_mask(unsigned size) {
  return size >= 32 ? 0xffffffffu : ((1u << size) - 1u) << (lane() & ~(size - 1u));
}
/// The lane of the `n`-th (from 0) set bit of `mask`, or 32 when it has fewer.
inline unsigned nth_lane(unsigned mask, unsigned n) {
  for (unsigned m = mask; m != 0; m &= m - 1) {
    if (n-- == 0) return static_cast<unsigned>(__builtin_ctz(m));
  }
  return 32;
}

/// One shuffle of a value of any trivially copyable type, 8 bytes at a time.
template <class T>
[[gnu::always_inline]] inline T shuffle(int op, unsigned mask, const T& value, int arg, int width, int line) {
  static_assert(std::is_trivially_copyable_v<T>, "a group's shuffle takes a trivially copyable value");
  T out;
  unsigned char in_bytes[sizeof(T)];
  unsigned char out_bytes[sizeof(T)];
  memcpy(in_bytes, &value, sizeof(T));
  for (std::size_t at = 0; at < sizeof(T); at += 8) {
    const std::size_t n = sizeof(T) - at < 8 ? sizeof(T) - at : 8;
    unsigned long long chunk = 0;
    memcpy(&chunk, in_bytes + at, n);
    chunk = cudalab_sim_warp_op(line, op, mask, chunk, arg, width);
    memcpy(out_bytes + at, &chunk, n);
  }
  memcpy(&out, out_bytes, sizeof(T));
  return out;
}

[[gnu::always_inline]] inline unsigned vote(int op, unsigned mask, int pred, int line) {
  return static_cast<unsigned>(cudalab_sim_warp_op(line, op, mask, pred != 0, 0, 32));
}

/// Bits of `bits` at the set lanes of `mask`, packed from bit 0 (a coalesced group's ballot).
inline unsigned pack_lanes(unsigned mask, unsigned bits) {
  unsigned out = 0;
  unsigned k = 0;
  for (unsigned m = mask; m != 0; m &= m - 1, ++k) {
    if (bits >> __builtin_ctz(m) & 1u) out |= 1u << k;
  }
  return out;
}

}  // namespace details

/// Any group of threads; what the dynamic `tiled_partition(parent, n)` returns, and the base of
/// the other groups.
class thread_group {
 public:
  /// Waits for the group's threads (a barrier of the block, or of the tile's lanes).
  [[gnu::always_inline]] void sync(int line = __builtin_LINE()) const {
    if (kind_ == kind::block) {
      (void)cudalab_sim_syncthreads(line, 0, 1);
    } else if (kind_ == kind::grid) {
      cudalab_sim_unsupported(
          "grid_group::sync() needs a cooperative launch (cudaLaunchCooperativeKernel), which the simulator does "
          "not run: split the kernel in two launches at the grid-wide barrier");
    } else {
      (void)cudalab_sim_warp_op(line, CUDALAB_SIM_SYNCWARP, mask_, 0, 0, 32);
    }
  }
  /// Threads in the group.
  [[nodiscard]] unsigned long long num_threads() const { return size_; }
  [[nodiscard]] unsigned long long size() const { return size_; }
  /// The calling thread's rank in the group, from 0.
  [[nodiscard]] unsigned long long thread_rank() const { return rank_; }
  /// Always valid here (a grid group of a cooperative launch would be too).
  [[nodiscard]] bool is_valid() const { return true; }

 protected:
  enum class kind : unsigned char { block, tile, coalesced, grid };
  thread_group(kind k, unsigned long long size, unsigned long long rank, unsigned mask, unsigned long long meta_rank,
               unsigned long long meta_size)
      : kind_(k), mask_(mask), size_(size), rank_(rank), meta_rank_(meta_rank), meta_size_(meta_size) {}
  /// The group's lanes within the calling thread's warp (tiles and coalesced groups).
  [[nodiscard]] unsigned lanes() const { return mask_; }

  kind kind_;
  unsigned mask_;
  unsigned long long size_;
  unsigned long long rank_;
  unsigned long long meta_rank_;
  unsigned long long meta_size_;

  friend thread_group tiled_partition(const thread_group& parent, unsigned tile_size);
};

/// The threads of the calling thread's block.
class thread_block : public thread_group {
 public:
  thread_block() : thread_group(kind::block, details::block_threads(), details::block_rank(), 0, 0, 1) {}
  /// __syncthreads() of the block.
  [[gnu::always_inline]] static void sync(int line = __builtin_LINE()) { (void)cudalab_sim_syncthreads(line, 0, 1); }
  [[nodiscard]] static unsigned thread_rank() { return details::block_rank(); }
  [[nodiscard]] static unsigned long long size() { return details::block_threads(); }
  [[nodiscard]] static unsigned long long num_threads() { return details::block_threads(); }
  /// blockIdx.
  [[nodiscard]] static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  /// threadIdx.
  [[nodiscard]] static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  /// blockDim.
  [[nodiscard]] static dim3 group_dim() { return blockDim; }
  [[nodiscard]] static dim3 dim_threads() { return blockDim; }
};

/// The calling thread's block.
inline thread_block this_thread_block() { return thread_block(); }

/// All threads of the launch: ranks and sizes. Its sync() fails the launch with a message (a grid
/// barrier needs a cooperative launch, which is not simulated).
class grid_group : public thread_group {
 public:
  grid_group()
      : thread_group(kind::grid, 1ull * gridDim.x * gridDim.y * gridDim.z * details::block_threads(),
                     block_rank_in_grid() * details::block_threads() + details::block_rank(), 0, 0, 1) {}
  [[nodiscard]] unsigned long long thread_rank() const { return rank_; }
  [[nodiscard]] unsigned long long size() const { return size_; }
  [[nodiscard]] unsigned long long num_threads() const { return size_; }
  [[nodiscard]] static unsigned long long block_rank() { return block_rank_in_grid(); }
  [[nodiscard]] static unsigned long long num_blocks() { return 1ull * gridDim.x * gridDim.y * gridDim.z; }
  [[nodiscard]] static dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  [[nodiscard]] static dim3 dim_blocks() { return gridDim; }
  [[nodiscard]] static dim3 group_dim() { return blockDim; }

 private:
  static unsigned long long block_rank_in_grid() {
    return blockIdx.x + 1ull * gridDim.x * (blockIdx.y + 1ull * gridDim.y * blockIdx.z);
  }
};

/// The whole grid.
inline grid_group this_grid() { return grid_group(); }

namespace details {
/// What a tile of N lanes does: shuffles with the tile's mask and N as the width, votes whose
/// bits count from the tile's first lane.
template <unsigned N>
class tile_ops : public thread_group {
  static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0,
                "the simulator's thread_block_tile<N> takes N a power of two up to 32");

 public:
  tile_ops(unsigned long long meta_rank, unsigned long long meta_size)
      : thread_group(kind::tile, N, details::lane() & (N - 1), details::tile_mask(N), meta_rank, meta_size) {}
  [[gnu::always_inline]] void sync(int line = __builtin_LINE()) const {
    (void)cudalab_sim_warp_op(line, CUDALAB_SIM_SYNCWARP, mask_, 0, 0, 32);
  }
  [[nodiscard]] static constexpr unsigned long long num_threads() { return N; }
  [[nodiscard]] static constexpr unsigned long long size() { return N; }
  [[nodiscard]] unsigned thread_rank() const { return details::lane() & (N - 1); }
  /// Which of its parent's tiles this one is.
  [[nodiscard]] unsigned long long meta_group_rank() const { return this->meta_rank_; }
  /// How many tiles its parent was partitioned into.
  [[nodiscard]] unsigned long long meta_group_size() const { return this->meta_size_; }
  /// The value of `var` at the tile's thread `src_rank` (modulo N).
  template <class T>
  [[gnu::always_inline]] T shfl(T var, int src_rank, int line = __builtin_LINE()) const {
    return details::shuffle(CUDALAB_SIM_SHFL_IDX, mask_, var, src_rank, N, line);
  }
  /// The value of `var` `delta` ranks up; the caller's own past the tile's end.
  template <class T>
  [[gnu::always_inline]] T shfl_down(T var, unsigned delta, int line = __builtin_LINE()) const {
    return details::shuffle(CUDALAB_SIM_SHFL_DOWN, mask_, var, static_cast<int>(delta), N, line);
  }
  /// The value of `var` `delta` ranks down; the caller's own before the tile's start.
  template <class T>
  [[gnu::always_inline]] T shfl_up(T var, unsigned delta, int line = __builtin_LINE()) const {
    return details::shuffle(CUDALAB_SIM_SHFL_UP, mask_, var, static_cast<int>(delta), N, line);
  }
  /// The value of `var` at rank `thread_rank() ^ lane_mask`.
  template <class T>
  [[gnu::always_inline]] T shfl_xor(T var, unsigned lane_mask, int line = __builtin_LINE()) const {
    return details::shuffle(CUDALAB_SIM_SHFL_XOR, mask_, var, static_cast<int>(lane_mask), N, line);
  }
  [[nodiscard, gnu::always_inline]] int any(int pred, int line = __builtin_LINE()) const {
    return details::vote(CUDALAB_SIM_ANY, mask_, pred, line) != 0;
  }
  /// True when every lane of the tile votes `pred`: a tile reaching past the block's last thread
  /// has lanes that cannot (CUDA compares the ballot with the tile's mask; an H100 gives 0).
  [[nodiscard, gnu::always_inline]] int all(int pred, int line = __builtin_LINE()) const {
    return details::vote(CUDALAB_SIM_BALLOT, mask_, pred, line) == mask_;
  }
  /// Bit i set where the tile's thread i has `pred` non-zero.
  [[nodiscard, gnu::always_inline]] unsigned ballot(int pred, int line = __builtin_LINE()) const {
    return details::vote(CUDALAB_SIM_BALLOT, mask_, pred, line) >> (details::lane() & ~(N - 1u) & 31u);
  }
  template <class T>
  [[nodiscard, gnu::always_inline]] unsigned match_any(T value, int line = __builtin_LINE()) const {
    return static_cast<unsigned>(
               cudalab_sim_warp_op(line, CUDALAB_SIM_MATCH_ANY, mask_, cudalab_sim::detail::to_bits(value), 0, 32)) >>
           (details::lane() & ~(N - 1u) & 31u);
  }
  template <class T>
  [[nodiscard, gnu::always_inline]] unsigned match_all(T value, int& pred, int line = __builtin_LINE()) const {
    const auto r = static_cast<unsigned>(
        cudalab_sim_warp_op(line, CUDALAB_SIM_MATCH_ALL, mask_, cudalab_sim::detail::to_bits(value), 0, 32));
    pred = r != 0;
    return r >> (details::lane() & ~(N - 1u) & 31u);
  }
};
}  // namespace details

/// A tile of N threads (N a power of two up to 32) of its parent, from tiled_partition<N>(parent).
template <unsigned N, class Parent = void>
class thread_block_tile;

template <unsigned N>
class thread_block_tile<N, void> : public details::tile_ops<N> {
 public:
  thread_block_tile(unsigned long long meta_rank, unsigned long long meta_size)
      : details::tile_ops<N>(meta_rank, meta_size) {}
};

template <unsigned N, class Parent>
class thread_block_tile : public thread_block_tile<N, void> {
 public:
  thread_block_tile(unsigned long long meta_rank, unsigned long long meta_size)
      : thread_block_tile<N, void>(meta_rank, meta_size) {}
};

/// The calling thread's tile of N threads of `parent` (the block, or a larger tile).
template <unsigned N, class Parent>
inline thread_block_tile<N, Parent> tiled_partition(const Parent& parent) {
  const unsigned long long rank = parent.thread_rank();
  const unsigned long long size = parent.num_threads();
  return thread_block_tile<N, Parent>(rank / N, (size + N - 1) / N);
}

/// The calling thread's tile of `tile_size` threads (a power of two up to 32) of `parent`.
inline thread_group tiled_partition(const thread_group& parent, unsigned tile_size) {
  if (tile_size == 0 || tile_size > 32 || (tile_size & (tile_size - 1)) != 0) {
    cudalab_sim_unsupported("tiled_partition(parent, n) takes n a power of two up to 32 in the simulator");
  }
  const unsigned long long rank = parent.thread_rank();
  const unsigned long long size = parent.num_threads();
  return thread_group(thread_group::kind::tile, tile_size, details::lane() & (tile_size - 1),
                      details::tile_mask(tile_size), rank / tile_size, (size + tile_size - 1) / tile_size);
}

/// The threads of the warp that are here together (__activemask()), ranked by lane.
class coalesced_group : public thread_group {
 public:
  explicit coalesced_group(unsigned mask)
      : thread_group(kind::coalesced, static_cast<unsigned>(__builtin_popcount(mask)),
                     static_cast<unsigned>(__builtin_popcount(mask & ((1u << details::lane()) - 1u))), mask, 0, 1) {}
  [[gnu::always_inline]] void sync(int line = __builtin_LINE()) const {
    (void)cudalab_sim_warp_op(line, CUDALAB_SIM_SYNCWARP, mask_, 0, 0, 32);
  }
  [[nodiscard]] unsigned thread_rank() const { return static_cast<unsigned>(rank_); }
  [[nodiscard]] static unsigned long long meta_group_rank() { return 0; }
  [[nodiscard]] static unsigned long long meta_group_size() { return 1; }
  [[nodiscard]] unsigned long long size() const { return size_; }
  [[nodiscard]] unsigned long long num_threads() const { return size_; }
  template <class T>
  [[gnu::always_inline]] T shfl(T var, unsigned src_rank, int line = __builtin_LINE()) const {
    const unsigned src = details::nth_lane(mask_, src_rank % static_cast<unsigned>(size_));
    return details::shuffle(CUDALAB_SIM_SHFL_IDX, mask_, var, static_cast<int>(src), 32, line);
  }
  template <class T>
  [[gnu::always_inline]] T shfl_down(T var, unsigned delta, int line = __builtin_LINE()) const {
    const unsigned r = static_cast<unsigned>(rank_) + delta;
    const unsigned src = r < size_ ? details::nth_lane(mask_, r) : details::lane();
    return details::shuffle(CUDALAB_SIM_SHFL_IDX, mask_, var, static_cast<int>(src), 32, line);
  }
  template <class T>
  [[gnu::always_inline]] T shfl_up(T var, unsigned delta, int line = __builtin_LINE()) const {
    const unsigned src =
        rank_ >= delta ? details::nth_lane(mask_, static_cast<unsigned>(rank_) - delta) : details::lane();
    return details::shuffle(CUDALAB_SIM_SHFL_IDX, mask_, var, static_cast<int>(src), 32, line);
  }
  [[nodiscard, gnu::always_inline]] int any(int pred, int line = __builtin_LINE()) const {
    return details::vote(CUDALAB_SIM_ANY, mask_, pred, line) != 0;
  }
  [[nodiscard, gnu::always_inline]] int all(int pred, int line = __builtin_LINE()) const {
    return details::vote(CUDALAB_SIM_ALL, mask_, pred, line) != 0;
  }
  /// Bit i set where the group's thread of rank i has `pred` non-zero.
  [[nodiscard, gnu::always_inline]] unsigned ballot(int pred, int line = __builtin_LINE()) const {
    return details::pack_lanes(mask_, details::vote(CUDALAB_SIM_BALLOT, mask_, pred, line));
  }
};

/// The active threads of the calling thread's warp.
inline coalesced_group coalesced_threads() { return coalesced_group(__activemask()); }

/// The calling thread alone.
inline thread_block_tile<1, void> this_thread() {
  return thread_block_tile<1, void>(details::block_rank(), details::block_threads());
}

/// Waits for the threads of `group`.
template <class Group>
[[gnu::always_inline]] inline void sync(const Group& group, int line = __builtin_LINE()) {
  group.sync(line);
}

}  // namespace cooperative_groups
