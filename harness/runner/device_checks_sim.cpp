// The simulator checks every access of device code itself: the sim runner's checks are its
// control API's (sim/control.hpp).
#include "device_checks.hpp"

#include "sim/control.hpp"

namespace cudalab::runner {

namespace control = cudalab::sim::control;

bool device_checks_available() { return true; }
void enable_device_checks(bool on) { control::enable_checks(on); }
void forbid_host_memory_in_kernels(bool on) { control::forbid_host_memory_in_kernels(on); }
void set_thread_order(protocol::ThreadOrder order, std::uint64_t seed) { control::set_thread_order(order, seed); }
cudaError_t allocate_guarded_buffer(void** ptr, std::size_t bytes) {
  return control::allocate_guarded_buffer(ptr, bytes);
}
void name_device_buffer(const void* allocation, const void* buffer, std::size_t bytes, std::size_t element,
                        const std::string& name, bool initialized) {
  control::name_buffer(allocation, buffer, bytes, element, name, initialized);
}
std::vector<protocol::Finding> take_findings() { return control::take_findings(); }
std::string unfinished_stream_work() { return control::unfinished_stream_work(); }
void count_accesses(bool on, unsigned sm_count, bool every_block) {
  control::count_accesses(on, sm_count, every_block);
}
protocol::AccessProfile take_access_profile() { return control::take_access_profile(); }
void trace_accesses(bool on, unsigned sm_count) { control::trace_accesses(on, sm_count); }
protocol::AccessTrace take_access_trace() { return control::take_access_trace(); }

}  // namespace cudalab::runner
