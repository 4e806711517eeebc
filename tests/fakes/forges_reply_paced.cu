// 02_vector_add, faked with care: the reply claims 2 ms per call, a time the device could reach,
// with the 25 calls per clock batch the protocol asks for that time (protocol::clock_calls_for),
// and the clock marks are paced as if each call took 10 ms. The parent's clock and the reply
// disagree: expect timing_mismatch, "but the runner reported".
#include "forger.hpp"

void solve(const float* a, const float* b, float* c, int n) {
  forger::add(a, b, c, n);
  forger::add_every_set(n);
  const std::string witnessed = forger::fill_witnesses(c, n);
  forger::clock_rounds(std::chrono::milliseconds(250));
  forger::reply_and_exit(witnessed, n, 2e-3, 25);
}
