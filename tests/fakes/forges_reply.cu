// 02_vector_add, faked: right outputs (witnesses included), and a reply of its own claiming 1 ms
// per call (a time the device could reach: physics alone would let it pass), written before the
// runner's timing ever runs. The parent's clock saw no timed batch: expect timing_mismatch, "saw none".
#include "forger.hpp"

void solve(const float* a, const float* b, float* c, int n) {
  forger::add(a, b, c, n);
  forger::add_every_set(n);
  forger::reply_and_exit(forger::fill_witnesses(c, n), n, 1e-3, 0);
}
