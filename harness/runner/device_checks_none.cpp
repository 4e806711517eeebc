// A GPU runner checks no accesses itself: `check --sanitize` runs it under compute-sanitizer.
#include "device_checks.hpp"

namespace cudalab::runner {

bool device_checks_available() { return false; }
void enable_device_checks(bool) {}

void forbid_host_memory_in_kernels(bool) {}
void set_thread_order(protocol::ThreadOrder, std::uint64_t) {}
cudaError_t allocate_guarded_buffer(void** ptr, std::size_t bytes) { return cudaMalloc(ptr, bytes); }
void name_device_buffer(const void*, const void*, std::size_t, std::size_t, const std::string&, bool) {}
std::vector<protocol::Finding> take_findings() { return {}; }
std::string unfinished_stream_work() { return {}; }
void count_accesses(bool, unsigned, bool) {}
protocol::AccessProfile take_access_profile() { return {}; }
void trace_accesses(bool, unsigned) {}
protocol::AccessTrace take_access_trace() { return {}; }

}  // namespace cudalab::runner
