// Interpreting launch and copy records (as the runners write them) into requirement verdicts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cudalab/judge.hpp"
#include "cudalab/registry.hpp"

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
  EXPECT_NE(f[0].find("03_matmul must use shared memory, and none of its 1 launch did"), std::string::npos) << f[0];
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

}  // namespace
}  // namespace cudalab
