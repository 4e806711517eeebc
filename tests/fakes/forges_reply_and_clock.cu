// 02_vector_add, faked as forges_reply.cu (claiming 1 ms per call, which physics allows), and it
// also writes the clock marks at once, as if a batch of calls had taken no time: expect
// timing_mismatch. Where the device's floor is known and above what the pipe can resolve (the
// simulator's test peaks), "less than the device needs"; on a fast GPU, whose floor is
// microseconds, the marks show calls far shorter than the 1 ms claimed.
#include "forger.hpp"

void solve(const float* a, const float* b, float* c, int n) {
  forger::add(a, b, c, n);
  forger::add_every_set(n);
  const std::string witnessed = forger::fill_witnesses(c, n);
  forger::clock_rounds(std::chrono::milliseconds(0));
  forger::reply_and_exit(witnessed, n, 1e-3, 3);
}
