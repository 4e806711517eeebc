// 02_vector_add, faked as forges_reply.cu, with a reply that claims 0 s per call: no rate can be
// worked out from it, and no call takes no time. Expect impossible_speed, "cannot be true".
#include "forger.hpp"

void solve(const float* a, const float* b, float* c, int n) {
  forger::add(a, b, c, n);
  forger::add_every_set(n);
  forger::reply_and_exit(forger::fill_witnesses(c, n), n, 0.0, 0);
}
