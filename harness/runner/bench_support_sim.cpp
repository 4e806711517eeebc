// The simulator's memory is the host's: no L2 to flush, nothing to page-lock.
#include "bench_support.hpp"

namespace cudalab::runner {

L2Flush::L2Flush() = default;
L2Flush::~L2Flush() = default;
void L2Flush::operator()() {}

bool host_memory_matters() { return false; }
bool page_lock(void*, std::size_t) { return false; }
void page_unlock(void*) {}

}  // namespace cudalab::runner
