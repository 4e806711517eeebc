// 02_vector_add, faked with care: the clock marks are paced as if each of 3 calls took 20 ms, and
// the reply claims 2 ms per call, a time the device could reach. The parent's clock and the reply
// disagree: expect timing_mismatch, "but the runner reported".
#include "forger.hpp"

void solve(const float* a, const float* b, float* c, int n) {
  forger::add(a, b, c, n);
  forger::add_every_set(n);
  const std::string witnessed = forger::fill_witnesses(c, n);
  forger::clock_rounds(std::chrono::milliseconds(60));
  forger::reply_and_exit(witnessed, n, 2e-3, 3);
}
