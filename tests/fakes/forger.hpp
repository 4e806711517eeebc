// What a submission that replaces the runner's timing does (tests/fakes/forges_*.cu, 02_vector_add):
// it computes the right answer, reads the runner's spec from its own command line to find where the
// witness calls' outputs go, writes them there, writes a reply of its own with flattering times,
// and ends the process before the runner can write the real one. Everything the runner's process
// knows, such a submission can know: what stops it is what the parent observes itself.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace forger {

/// The runner's spec: the argument after --spec in /proc/self/cmdline.
inline std::string spec() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto flag = all.find(std::string("--spec") + '\0');
  return flag == std::string::npos ? std::string() : std::string(all.c_str() + flag + 7);
}

/// The number after `key` at or after `from`, and where it ends.
inline std::size_t number_after(const std::string& text, const std::string& key, std::size_t& from) {
  from = text.find(key, from);
  if (from == std::string::npos) return 0;
  from += key.size();
  return std::strtoull(text.c_str() + from, nullptr, 10);
}

struct Witness {
  std::size_t call;
  std::size_t offset;
};

/// The witness calls and where their (single) output goes in the shared file (fd 3).
inline std::vector<Witness> witnesses(const std::string& spec) {
  std::vector<Witness> out;
  std::size_t at = spec.find("\"witnesses\":[");
  while (at != std::string::npos) {
    const std::size_t call = number_after(spec, "\"call\":", at);
    if (at == std::string::npos) break;
    const std::size_t offset = number_after(spec, "\"offset\":", at);
    if (at == std::string::npos) break;
    out.push_back({call, offset});
  }
  return out;
}

/// Writes `c` where every witness's output goes, and returns the witnesses' calls.
inline std::string fill_witnesses(const float* c, int n) {
  std::string calls;
  for (const Witness& w : witnesses(spec())) {
    (void)!pwrite(3, c, sizeof(float) * static_cast<std::size_t>(n), static_cast<off_t>(w.offset));
    calls += (calls.empty() ? "" : ",") + std::to_string(w.call);
  }
  return calls;
}

/// Writes a reply claiming one timed call of `seconds` (no warm-up: the call ran on the first
/// input set, whose result `c` holds, and only the first witness counts), and ends the process.
[[noreturn]] inline void reply_and_exit(const std::string& witnessed, int n, double seconds, std::size_t clock_calls) {
  char times[32];
  std::snprintf(times, sizeof times, "%.9g", seconds);  // as written: 1e-07 is not rounded to 0
  // The records of an honest vector add, so that the exercise's requirements look met.
  const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(n);
  char records[2048];
  std::snprintf(records, sizeof records,
                "{\"allocations\":[{\"api\":\"cudaMalloc\",\"kind\":\"device\",\"bytes\":%zu,\"freed\":true},"
                "{\"api\":\"cudaMalloc\",\"kind\":\"device\",\"bytes\":%zu,\"freed\":true},"
                "{\"api\":\"cudaMalloc\",\"kind\":\"device\",\"bytes\":%zu,\"freed\":true}],"
                "\"copies\":[{\"api\":\"cudaMemcpy\",\"kind\":\"HostToDevice\",\"bytes\":%zu,\"to_host_buffer\":\"\","
                "\"from_host_buffer\":\"a\"},{\"api\":\"cudaMemcpy\",\"kind\":\"HostToDevice\",\"bytes\":%zu,"
                "\"to_host_buffer\":\"\",\"from_host_buffer\":\"b\"},{\"api\":\"cudaMemcpy\",\"kind\":\"DeviceToHost\","
                "\"bytes\":%zu,\"to_host_buffer\":\"c\",\"from_host_buffer\":\"\"}],"
                "\"launches\":[{\"kernel\":\"vector_add\",\"grid\":[%d,1,1],\"block\":[256,1,1],"
                "\"dynamic_shared_bytes\":0,\"static_shared_bytes\":0,\"duration_s\":0}]}",
                bytes, bytes, bytes, bytes, bytes, bytes, (n + 255) / 256);
  char text[8192];
  std::snprintf(text, sizeof text,
                "{\"status\":\"ok\",\"set\":0,\"message\":\"\",\"cuda_error\":\"\",\"solve_ms\":0,"
                "\"records\":%s,\"launches_recorded\":false,"
                "\"samples_s\":[%s],\"kernel_samples_s\":[],\"stop\":\"noise_target_met\",\"minimums_met\":true,"
                "\"wall_s\":0.01,\"calls\":1,\"witnessed\":[%s],\"clock_calls\":%zu}",
                records, times, witnessed.c_str(), clock_calls);
  (void)!write(4, text, std::char_traits<char>::length(text));
  std::_Exit(0);
}

/// One mark on the runner's clock pipe (fd 5).
inline void mark(char m) { (void)!write(5, &m, 1); }

/// The protocol's three rounds of clock marks, the batch with solve taking `with_solve` longer.
inline void clock_rounds(std::chrono::milliseconds with_solve) {
  for (int round = 0; round < 3; ++round) {
    mark('A');
    mark('B');
    std::this_thread::sleep_for(with_solve);
    mark('C');
  }
}

inline void add(const float* a, const float* b, float* c, int n) {
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

/// Computes c = a + b for every input set in the shared file (fd 3), where the spec says they lie,
/// so that the final check of each set finds its result.
inline void add_every_set(int n) {
  const std::string text = spec();
  const std::size_t end = text.find("],\"symbol\"");
  std::size_t at = text.find("\"sets\":[");
  const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(n);
  std::vector<float> a(n), b(n), c(n);
  while (at != std::string::npos && at < end) {
    std::size_t offsets[3];
    for (std::size_t& offset : offsets) offset = number_after(text, "\"offset\":", at);
    if (at == std::string::npos || at > end) break;
    (void)!pread(3, a.data(), bytes, static_cast<off_t>(offsets[0]));
    (void)!pread(3, b.data(), bytes, static_cast<off_t>(offsets[1]));
    add(a.data(), b.data(), c.data(), n);
    (void)!pwrite(3, c.data(), bytes, static_cast<off_t>(offsets[2]));
  }
}

}  // namespace forger
