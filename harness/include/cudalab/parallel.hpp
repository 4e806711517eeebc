// Work over large buffers on several threads. A large case is hundreds of megabytes per buffer;
// the parent copies its inputs in, reads its outputs back and compares them, the runner restores
// them before every timed call, and one thread's memcpy (a few GB/s) was the slowest part of each.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <thread>
#include <vector>

namespace cudalab {

/// Calls work(k) for every k in [0, chunks), on up to `max_threads` threads (0: one per core),
/// and returns when all calls have returned. Work must not throw.
template <typename Work>
void for_each_chunk(std::size_t chunks, const Work& work, std::size_t max_threads = 0) {
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads = std::min(chunks, max_threads == 0 ? cores : std::min(max_threads, cores));
  if (threads <= 1) {
    for (std::size_t k = 0; k < chunks; ++k) work(k);
    return;
  }
  std::atomic<std::size_t> next{0};
  auto take_chunks = [&] {
    for (std::size_t k = next++; k < chunks; k = next++) work(k);
  };
  std::vector<std::jthread> helpers;
  for (std::size_t t = 1; t < threads; ++t) helpers.emplace_back(take_chunks);
  take_chunks();
}

/// Copying and comparing go this many bytes per chunk, and on at most kCopyThreads threads: the
/// memory bus is saturated by then.
inline constexpr std::size_t kCopyChunkBytes = std::size_t{16} << 20;
inline constexpr std::size_t kCopyThreads = 8;

/// memcpy(to, from, bytes), on several threads when it is large.
inline void parallel_copy(std::byte* to, const std::byte* from, std::size_t bytes) {
  const std::size_t chunks = (bytes + kCopyChunkBytes - 1) / kCopyChunkBytes;
  for_each_chunk(
      chunks,
      [&](std::size_t k) {
        const std::size_t begin = k * kCopyChunkBytes;
        std::memcpy(to + begin, from + begin, std::min(kCopyChunkBytes, bytes - begin));
      },
      kCopyThreads);
}

/// Whether [a, a + bytes) and [b, b + bytes) hold the same bytes, compared on several threads
/// when they are large.
inline bool parallel_equal(const std::byte* a, const std::byte* b, std::size_t bytes) {
  const std::size_t chunks = (bytes + kCopyChunkBytes - 1) / kCopyChunkBytes;
  std::atomic<bool> equal{true};
  for_each_chunk(
      chunks,
      [&](std::size_t k) {
        const std::size_t begin = k * kCopyChunkBytes;
        if (equal && std::memcmp(a + begin, b + begin, std::min(kCopyChunkBytes, bytes - begin)) != 0) equal = false;
      },
      kCopyThreads);
  return equal;
}

}  // namespace cudalab
