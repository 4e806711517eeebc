// What the runner's bench mode needs from the platform beyond the CUDA runtime API: an L2 flush
// that leaves no dirty lines, and page-locking of the host buffers. The GPU runner implements
// them with the CUDA runtime (bench_support_cuda.cpp); the simulator has no cache to flush and
// no pager to avoid (bench_support_sim.cpp).
#pragma once

#include <cstddef>

namespace cudalab::runner {

/// Evicts the device's L2 before a timed sample by reading (not writing) a buffer twice its size.
/// A write-based flush (cudaMemset) leaves the L2 full of dirty lines, which the timed kernel
/// then pays to write back: 5–10 µs on an H100, 8 % of a 100 µs kernel. The reading kernel is
/// PTX loaded at run time, so the runner itself needs no CUDA compiler.
class L2Flush {
 public:
  L2Flush();
  ~L2Flush();
  L2Flush(const L2Flush&) = delete;
  L2Flush& operator=(const L2Flush&) = delete;

  /// Enqueues the flush and waits for it. Throws std::runtime_error on a CUDA error.
  void operator()();

 private:
  void* buffer_ = nullptr;
  void* sink_ = nullptr;
  std::size_t bytes_ = 0;
  void* library_ = nullptr;
  void* kernel_ = nullptr;
  int blocks_ = 0;
};

/// Whether host memory's kind changes copy times (the GPU: pageable copies are staged by the
/// driver); the simulator's copies are memcpy either way, so its results carry no host-memory note.
bool host_memory_matters();

/// Page-locks [p, p + bytes) for the device's copy engines (cudaHostRegister), so that the copies
/// a host-pointer exercise makes run at the bus's speed instead of through the driver's pageable
/// staging, whose speed varies from process to process with the host's memory traffic. Returns
/// false where it cannot (the memory stays pageable and works as before).
bool page_lock(void* p, std::size_t bytes);
/// Undoes page_lock.
void page_unlock(void* p);

}  // namespace cudalab::runner
