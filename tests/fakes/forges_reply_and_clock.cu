// 02_vector_add, faked as forges_reply.cu (claiming 1 ms per call, which physics allows), and it
// also writes the clock marks at once, as if a batch of calls had taken no time, with as many calls
// per batch as the protocol asks for that time. Faster than the device can move the data (on a GPU,
// than its host link can): expect timing_mismatch, "less than the device needs".
#include "forger.hpp"

void solve(const float* a, const float* b, float* c, int n) {
  forger::add(a, b, c, n);
  forger::add_every_set(n);
  const std::string witnessed = forger::fill_witnesses(c, n);
  forger::clock_rounds(std::chrono::milliseconds(0));
  forger::reply_and_exit(witnessed, n, 1e-3, 50);  // protocol::clock_calls_for(1e-3)
}
