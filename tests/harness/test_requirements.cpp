// Interpreting launch and copy records (as the runners write them) into requirement verdicts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cudalab/judge.hpp"
#include "cudalab/registry.hpp"
#include "cudalab/timeline.hpp"

namespace cudalab {
namespace {

using nlohmann::json;

// Recorded from `cudalab check 2 --solution --json --size 1000 --backend sim`; read through the
// protocol's own JSON mapping, as the parent reads a reply.
const json vector_add_records = json::parse(R"json({
  "allocations": [{"api": "cudaMalloc", "bytes": 4000, "freed": true, "kind": "device"},
                  {"api": "cudaMalloc", "bytes": 4000, "freed": true, "kind": "device"},
                  {"api": "cudaMalloc", "bytes": 4000, "freed": true, "kind": "device"}],
  "copies": [{"api": "cudaMemcpy", "bytes": 4000, "from_host_buffer": "a", "kind": "HostToDevice", "to_host_buffer": ""},
             {"api": "cudaMemcpy", "bytes": 4000, "from_host_buffer": "b", "kind": "HostToDevice", "to_host_buffer": ""},
             {"api": "cudaMemcpy", "bytes": 4000, "from_host_buffer": "", "kind": "DeviceToHost", "to_host_buffer": "c"}],
  "launches": [{"block": [256, 1, 1], "duration_s": 0.0, "dynamic_shared_bytes": 0, "grid": [4, 1, 1],
                "kernel": "vector_add", "static_shared_bytes": 0}]})json");

// A launch as CUPTI reports it on the GPU: demangled name with parameters, measured duration.
const json matmul_launch = json::parse(R"json({"block": [16, 16, 1], "duration_s": 1.2e-05, "dynamic_shared_bytes": 0,
  "grid": [2, 2, 1], "kernel": "matmul_tiled(const float*, const float*, float*, int, int, int)",
  "static_shared_bytes": 2048})json");

std::vector<Buffer> buffers_of(const Task& task, const Case& c) {
  Rng rng(1);
  return task.make_buffers(c, rng);
}

protocol::Records records(const json& j) { return j.get<protocol::Records>(); }

json copy(const char* kind, const char* from, const char* to) {
  return {{"api", "cudaMemcpy"}, {"bytes", 4000}, {"from_host_buffer", from}, {"kind", kind}, {"to_host_buffer", to}};
}

TEST(Requirements, CorrectTransfersPass) {
  const Task& t = *find_task("02_vector_add");
  EXPECT_TRUE(
      requirement_failures(t.info(), buffers_of(t, Case{{{"n", 1000}}}), records(vector_add_records), true).empty());
}

TEST(Requirements, AKernelOnTheHostPointersThemselvesFailsTheCopyRequirement) {
  // What a GPU that can reach host memory records for 01 launched on `data` itself: a launch,
  // no allocation, no copy.
  const Task& t = *find_task("01_increment");
  json r = vector_add_records;
  r["allocations"] = json::array();
  r["copies"] = json::array();
  const auto f = requirement_failures(t.info(), buffers_of(t, Case{{{"n", 1000}}}), records(r), true);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_NE(f[0].find("data was never copied to the device: the kernel must work on device memory"), std::string::npos)
      << f[0];
  EXPECT_NE(f[1].find("data was never copied back to the host"), std::string::npos) << f[1];
}

TEST(Requirements, InputCopiedBackIsNamed) {
  const Task& t = *find_task("02_vector_add");
  json r = vector_add_records;
  r["copies"].push_back(copy("DeviceToHost", "", "b"));
  auto f = requirement_failures(t.info(), buffers_of(t, Case{{{"n", 1000}}}), records(r), true);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0], "b was copied back to the host but never changed: copy back only the result");
}

TEST(Requirements, OutputCopiedInAndDoubleCopiesAreNamed) {
  const Task& t = *find_task("02_vector_add");
  json r = vector_add_records;
  r["copies"].push_back(copy("HostToDevice", "c", ""));
  r["copies"].push_back(copy("HostToDevice", "a", ""));
  auto f = requirement_failures(t.info(), buffers_of(t, Case{{{"n", 1000}}}), records(r), true);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_NE(f[0].find("a was copied to the device 2 times"), std::string::npos) << f[0];
  EXPECT_NE(f[1].find("c was copied to the device, but solve only writes it"), std::string::npos) << f[1];
}

TEST(Requirements, NoLaunchFailsButOnlyWhenLaunchesWereTraced) {
  const Task& t = *find_task("02_vector_add");
  json r = vector_add_records;
  r["launches"] = json::array();
  auto f = requirement_failures(t.info(), buffers_of(t, Case{{{"n", 1000}}}), records(r), true);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].find("no kernel ran on the GPU"), std::string::npos);
  EXPECT_TRUE(requirement_failures(t.info(), buffers_of(t, Case{{{"n", 1000}}}), records(r), false).empty());
}

TEST(Requirements, MatmulWithoutSharedMemoryFailsAndWithItPasses) {
  const Task& t = *find_task("03_matmul");
  ASSERT_TRUE(t.info().requires_shared_memory);
  const Case c{{{"M", 32}, {"N", 32}, {"K", 32}}};
  json r{{"allocations", json::array()}, {"copies", json::array()}, {"launches", json::array({matmul_launch})}};
  EXPECT_TRUE(requirement_failures(t.info(), buffers_of(t, c), records(r), true).empty());
  r["launches"][0]["static_shared_bytes"] = 0;
  auto f = requirement_failures(t.info(), buffers_of(t, c), records(r), true);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].find("03_matmul must use shared memory, and its launch did not"), std::string::npos) << f[0];
  EXPECT_NE(f[0].find("matmul_tiled<<<(2,2,1), (16,16,1)>>> 0 B shared"), std::string::npos) << f[0];
}

TEST(Requirements, DescribeLaunchesShortensLongLists) {
  json r{{"allocations", json::array()}, {"copies", json::array()}, {"launches", json::array()}};
  for (int i = 0; i < 5; ++i) r["launches"].push_back(matmul_launch);
  const std::string d = describe_launches(records(r));
  EXPECT_EQ(d.rfind("5 launches: matmul_tiled<<<(2,2,1), (16,16,1)>>> 2048 B shared", 0), 0u) << d;
  EXPECT_NE(d.find("(2 more)"), std::string::npos) << d;
  EXPECT_EQ(describe_launches(protocol::Records{}), "no launches");
}

TEST(Requirements, TwoDLaunchAndConstantMemoryAreReadFromTheRecords) {
  const Task& scale = *find_task("06_scale_2d");
  const Case square{{{"M", 2}, {"N", 2}}};
  json r = vector_add_records;  // one 1D launch
  auto f = requirement_failures(scale.info(), buffers_of(scale, square), records(r), true);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].find("must launch a 2D grid"), std::string::npos) << f[0];
  r["launches"][0]["block"] = json::array({32u, 8u, 1u});
  EXPECT_TRUE(requirement_failures(scale.info(), buffers_of(scale, square), records(r), true).empty());

  const Task& poly = *find_task("07_polynomial_map");
  const Case small{{{"n", 1000}}};
  json p = vector_add_records;
  p["copies"] = json::array();
  f = requirement_failures(poly.info(), buffers_of(poly, small), records(p), true);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].find("__constant__"), std::string::npos) << f[0];
  p["copies"].push_back({{"api", "cudaMemcpyToSymbolAsync"},
                         {"bytes", 32},
                         {"from_host_buffer", ""},
                         {"kind", "DeviceToDevice"},
                         {"to_host_buffer", ""}});
  EXPECT_TRUE(requirement_failures(poly.info(), buffers_of(poly, small), records(p), true).empty());
}

/// Records of 14_streams at n elements: `chunks` chunks round robin on `streams` streams, each an
/// async copy in, a launch and an async copy out; on the GPU (`timed`), with CUPTI's times, the
/// chunks either pipelined or one after another.
json streams_records(int n, int chunks, int streams, bool timed, bool pipelined) {
  json r = {{"allocations", json::array()}, {"copies", json::array()}, {"launches", json::array()}};
  const int chunk = (n + chunks - 1) / chunks;
  json transfers = json::array();
  for (int c = 0; c < chunks; ++c) {
    const int count = std::min(chunk, n - c * chunk);
    const std::uint64_t stream = 100 + static_cast<std::uint64_t>(c % streams);
    const std::uint64_t t0 = pipelined ? 1000 * static_cast<std::uint64_t>(c) : 3000 * static_cast<std::uint64_t>(c);
    for (const char* kind : {"HostToDevice", "DeviceToHost"}) {
      r["copies"].push_back({{"api", "cudaMemcpyAsync"},
                             {"bytes", 4 * count},
                             {"from_host_buffer", ""},
                             {"kind", kind},
                             {"to_host_buffer", ""},
                             {"stream", stream}});
    }
    r["launches"].push_back({{"block", json::array({256u, 1u, 1u})},
                             {"duration_s", 1e-6},
                             {"dynamic_shared_bytes", 0},
                             {"grid", json::array({1u, 1u, 1u})},
                             {"kernel", "hypotenuse"},
                             {"static_shared_bytes", 0},
                             {"stream", stream},
                             {"start_ns", timed ? t0 + 1000 : 0},
                             {"end_ns", timed ? t0 + 2000 : 0}});
    transfers.push_back(
        {{"kind", "HostToDevice"}, {"bytes", 4 * count}, {"stream", stream}, {"start_ns", t0}, {"end_ns", t0 + 1000}});
    transfers.push_back({{"kind", "DeviceToHost"},
                         {"bytes", 4 * count},
                         {"stream", stream},
                         {"start_ns", t0 + 2000},
                         {"end_ns", t0 + 3000}});
  }
  if (timed) r["transfers"] = transfers;
  return r;
}

TEST(Requirements, StreamsWantAsyncChunksOnSeveralStreamsAndOnTheGpuOverlap) {
  const Task& t = *find_task("14_streams");
  ASSERT_TRUE(t.info().requires_streams);
  const int large = 1 << 20;  // 4 MiB of x: chunks and streams required
  const auto bufs = buffers_of(t, Case{{{"n", large}}});
  auto failures = [&](const json& r) { return requirement_failures(t.info(), bufs, records(r), true); };

  EXPECT_TRUE(failures(streams_records(large, 8, 4, false, true)).empty());  // the simulator: no times
  EXPECT_TRUE(failures(streams_records(large, 8, 4, true, true)).empty());
  EXPECT_TRUE(copies_overlap(records(streams_records(large, 8, 4, true, true))));

  auto f = failures(streams_records(large, 8, 4, true, false));  // a wait per chunk: no overlap
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].find("no copy ran at the same time as a kernel"), std::string::npos) << f[0];

  f = failures(streams_records(large, 8, 1, true, true));
  ASSERT_EQ(f.size(), 2u);
  EXPECT_NE(f[0].find("the copies used 1 stream"), std::string::npos) << f[0];
  EXPECT_NE(f[1].find("every kernel ran on one stream"), std::string::npos) << f[1];

  f = failures(streams_records(large, 1, 1, false, true));
  ASSERT_GE(f.size(), 1u);
  EXPECT_NE(f[0].find("x went to the device in one copy"), std::string::npos) << f[0];

  // Small sizes may move everything at once, but asynchronously, on a stream of one's own.
  const auto small = buffers_of(t, Case{{{"n", 1000}}});
  EXPECT_TRUE(requirement_failures(t.info(), small, records(streams_records(1000, 1, 1, false, true)), true).empty());
  json sync = streams_records(1000, 1, 1, false, true);
  sync["copies"][0]["api"] = "cudaMemcpy";
  f = requirement_failures(t.info(), small, records(sync), true);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].find("use cudaMemcpyAsync"), std::string::npos) << f[0];
  json on_default = streams_records(1000, 1, 1, false, true);
  on_default["copies"][1]["stream"] = 0;
  f = requirement_failures(t.info(), small, records(on_default), true);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].find("default stream"), std::string::npos) << f[0];
  json twice = streams_records(1000, 1, 1, false, true);
  twice["copies"].push_back(twice["copies"][0]);
  f = requirement_failures(t.info(), small, records(twice), true);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].find("8000 bytes were copied to the device, and x holds 4000"), std::string::npos) << f[0];

  // Past the runner's limit per kind, copies are counted, not kept (4096 chunks of a GPU-sized n):
  // their bytes are unknown, so the bytes are not judged.
  json many = streams_records(large, 8, 4, false, true);
  many["copies"].erase(many["copies"].begin() + 8, many["copies"].end());
  EXPECT_FALSE(failures(many).empty()) << "half the copies, all of them kept: half the bytes";
  many["dropped"] = 8;
  EXPECT_TRUE(failures(many).empty());
}

// The work is done by kernels: in a device-pointer exercise an input copied into host memory, or
// a whole output copied from it, fails; a one-element accumulator zeroed from the host does not.
TEST(Requirements, DataCopiedToTheHostAndBackFailsTheWorkMustBeDoneByKernels) {
  const Task& matmul = *find_task("03_matmul");
  const auto bufs = buffers_of(matmul, Case{{{"M", 8}, {"N", 8}, {"K", 8}}});
  json r = {{"allocations", json::array()}, {"copies", json::array()}, {"launches", json::array({matmul_launch})}};
  auto device_copy = [](const char* kind, int bytes, const char* from, const char* to, bool from_host, bool to_host) {
    return json{{"api", "cudaMemcpy"},      {"kind", kind},
                {"bytes", bytes},           {"to_host_buffer", ""},
                {"from_host_buffer", ""},   {"from_device_buffer", from},
                {"to_device_buffer", to},   {"from_host_memory", from_host},
                {"to_host_memory", to_host}};
  };
  EXPECT_TRUE(requirement_failures(matmul.info(), bufs, records(r), true).empty());
  r["copies"].push_back(device_copy("DeviceToHost", 256, "A", "", false, true));
  r["copies"].push_back(device_copy("HostToDevice", 256, "", "C", true, false));
  const auto f = requirement_failures(matmul.info(), bufs, records(r), true);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_NE(f[0].find("A was copied to host memory (cudaMemcpy, 256 bytes): the work must be done by kernels"),
            std::string::npos)
      << f[0];
  EXPECT_NE(f[1].find("C was written by a copy from the host (cudaMemcpy, 256 bytes)"), std::string::npos) << f[1];
  // Reading the output back (to print it), or copying device memory to device memory, is no host work.
  json fine = {{"allocations", json::array()}, {"copies", json::array()}, {"launches", json::array({matmul_launch})}};
  fine["copies"].push_back(device_copy("DeviceToHost", 256, "C", "", false, true));
  fine["copies"].push_back(device_copy("DeviceToDevice", 256, "A", "", false, false));
  EXPECT_TRUE(requirement_failures(matmul.info(), bufs, records(fine), true).empty());

  const Task& reduce = *find_task("05_reduce");
  const auto sum_bufs = buffers_of(reduce, Case{{{"n", 1000}}});
  json zeroed = {{"allocations", json::array()}, {"copies", json::array()}, {"launches", json::array({matmul_launch})}};
  zeroed["copies"].push_back(device_copy("HostToDevice", 4, "", "sum", true, false));
  EXPECT_TRUE(requirement_failures(reduce.info(), sum_bufs, records(zeroed), true).empty());
}

TEST(Timeline, DrawsEachStreamsCopiesAndKernelsInTimeOrder) {
  const auto r = records(streams_records(1 << 20, 2, 2, true, true));
  const auto lines = draw_timeline(r, 40);
  ASSERT_EQ(lines.size(), 3u);  // two streams and the scale
  // Chunk 0 on stream 100 from 0 to 3000 ns, chunk 1 on stream 101 from 1000 to 4000 ns: 10
  // columns per 1000 ns.
  EXPECT_EQ(lines[0], "stream 100  |HHHHHHHHHHKKKKKKKKKKDDDDDDDDDD          |");
  EXPECT_EQ(lines[1], "stream 101  |          HHHHHHHHHHKKKKKKKKKKDDDDDDDDDD|");
  EXPECT_NE(lines[2].find("4.0 µs   H copy to the device"), std::string::npos) << lines[2];
  EXPECT_TRUE(draw_timeline(records(streams_records(1 << 20, 2, 2, false, true))).empty());  // no GPU times
}

}  // namespace
}  // namespace cudalab
