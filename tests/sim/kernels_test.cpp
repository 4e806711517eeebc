// CUDA constructs run through the simulator: each scenario lives in tests/sim/kernels/*.cu,
// compiled by the real sim toolchain, and is checked here against a host computation.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#include "records/records.hpp"
#include "sim_module.hpp"

namespace cudalab::sim::test {
namespace {

#define ENTRY(file, name, type)          \
  auto* name = entry<type>(file, #name); \
  ASSERT_NE(name, nullptr)

// ---- blocks.cu -------------------------------------------------------------------------------

TEST(SimBlocks, Grid3dCoversEveryElementOnce) {
  ENTRY("blocks.cu", grid_3d, int(int*, int, int, int, unsigned, unsigned, unsigned));
  for (auto [nx, ny, nz, bx, by, bz] :
       {std::array<unsigned, 6>{33, 17, 5, 8, 4, 2}, std::array<unsigned, 6>{7, 3, 9, 32, 1, 1},
        std::array<unsigned, 6>{16, 16, 1, 16, 16, 1}, std::array<unsigned, 6>{5, 70, 3, 1, 32, 2}}) {
    std::vector<int> out(nx * ny * nz, 0);
    ASSERT_EQ(grid_3d(out.data(), nx, ny, nz, bx, by, bz), cudaSuccess);
    for (unsigned z = 0; z < nz; ++z)
      for (unsigned y = 0; y < ny; ++y)
        for (unsigned x = 0; x < nx; ++x)
          ASSERT_EQ(out[(z * ny + y) * nx + x], static_cast<int>(x + 1000 * y + 1000000 * z))
              << "at (" << x << "," << y << "," << z << ") with block " << bx << "x" << by << "x" << bz;
  }
}

TEST(SimBlocks, BarrierReleasesWhenRemainingThreadsHaveExited) {
  ENTRY("blocks.cu", early_exit, int(const int*, int*, int));
  for (int n : {1, 31, 256, 300, 513}) {
    std::vector<int> in(n), out(n, -7);
    std::iota(in.begin(), in.end(), 100);
    ASSERT_EQ(early_exit(in.data(), out.data(), n), cudaSuccess) << "n=" << n;
    for (int i = 0; i < n; ++i) {
      const int block = i / 256, start = block * 256, live = std::min(256, n - start);
      ASSERT_EQ(out[i], in[start + live - 1 - (i - start)]) << "n=" << n << " i=" << i;
    }
  }
}

TEST(SimBlocks, SyncthreadsCountAndOr) {
  ENTRY("blocks.cu", syncthreads_votes, int(int*, int));
  int out[5] = {-1, -1, -1, -1, -1};
  ASSERT_EQ(syncthreads_votes(out, 100), cudaSuccess);
  EXPECT_EQ(out[0], 34);  // t % 3 == 0 for t in [0, 100)
  EXPECT_EQ(out[1], 1);
  EXPECT_EQ(out[2], 0);
  EXPECT_EQ(out[3], 1);
  EXPECT_EQ(out[4], 0);
}

TEST(SimBlocks, StaticSharedMemoryIsPerBlock) {
  ENTRY("blocks.cu", shared_per_block, int(int*, int));
  int bad = -1;
  ASSERT_EQ(shared_per_block(&bad, 64), cudaSuccess);
  EXPECT_EQ(bad, 0);
}

TEST(SimBlocks, DynamicSharedMemoryAtFileAndFunctionScope) {
  ENTRY("blocks.cu", dynamic_shared, int(const float*, float*, int, int, int*));
  const int n = 1000, threads = 128, blocks = (n + threads - 1) / threads;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<float>(i % 7) - 2.0f;
  std::vector<float> sums(blocks, NAN);
  std::vector<int> split(128, -1);
  ASSERT_EQ(dynamic_shared(in.data(), sums.data(), n, threads, split.data()), cudaSuccess);
  for (int b = 0; b < blocks; ++b) {
    float expect = 0;
    for (int i = b * threads; i < std::min(n, (b + 1) * threads); ++i) expect += in[i];
    EXPECT_FLOAT_EQ(sums[b], expect) << "block " << b;
  }
  for (int i = 0; i < 128; ++i) {
    const int j = 63 - i % 64;
    EXPECT_EQ(split[i], 2 * j) << i;
  }
}

TEST(SimBlocks, TemplatedKernelsExplicitDeducedQualified) {
  ENTRY("blocks.cu", templates_int, int(int*, int));
  ENTRY("blocks.cu", templates_double, int(double*, int));
  std::vector<int> vi(100);
  std::iota(vi.begin(), vi.end(), -50);
  std::vector<int> ei(vi);
  for (int& v : ei) v = v * 3 + 3;
  ASSERT_EQ(templates_int(vi.data(), 100), cudaSuccess);
  EXPECT_EQ(vi, ei);
  std::vector<double> vd(70, 0.25);
  ASSERT_EQ(templates_double(vd.data(), 70), cudaSuccess);
  for (double v : vd) EXPECT_DOUBLE_EQ(v, 3.75);
}

TEST(SimBlocks, DivergentBarrierIsAStickyLaunchFailure) {
  ENTRY("blocks.cu", faults, int(int));
  EXPECT_EQ(faults(0), cudaErrorLaunchFailure);
}

TEST(SimBlocks, DeadlockIsReportedNotHung) {
  ENTRY("blocks.cu", faults, int(int));
  EXPECT_EQ(faults(1), cudaErrorLaunchFailure);
}

}  // namespace
}  // namespace cudalab::sim::test

namespace cudalab::sim::test {
namespace {

// ---- warp.cu -----------------------------------------------------------------------------------

TEST(SimWarp, ShufflesVotesAndReductions) {
  ENTRY("warp.cu", warp_shuffles, int(int*, float*, int));
  for (int threads : {64, 96}) {
    std::vector<int> out(threads * 8, -1);
    std::vector<float> fout(threads, NAN);
    ASSERT_EQ(warp_shuffles(out.data(), fout.data(), threads), cudaSuccess);
    for (int t = 0; t < threads; ++t) {
      const int lane = t % 32, base = t - lane;
      const int* o = &out[t * 8];
      EXPECT_EQ(o[0], (base + 3) * 10) << t;
      EXPECT_EQ(o[1], lane >= 2 ? t - 2 : t) << t;
      EXPECT_EQ(o[2], lane % 16 + 5 < 16 ? t + 5 : t) << t;
      EXPECT_EQ(o[3], t ^ 1) << t;
      EXPECT_EQ(o[4], 32 * base + 496) << t;
      EXPECT_EQ(static_cast<unsigned>(o[5]), 0x49249249u) << t;
      EXPECT_EQ(o[6], (base == 32 ? 10 : 0) + 1) << t;
      EXPECT_EQ(o[7], 496) << t;
      EXPECT_FLOAT_EQ(fout[t], 0.5f * (lane == 31 ? t : t + 1)) << t;
    }
  }
}

TEST(SimWarp, PartialMasksRendezvousSeparately) {
  ENTRY("warp.cu", warp_partial_masks, int(int*));
  std::vector<int> out(128, 0);
  ASSERT_EQ(warp_partial_masks(out.data()), cudaSuccess);
  for (int t = 0; t < 64; ++t) {
    const int lane = t % 32;
    EXPECT_EQ(out[t], lane % 2 == 0 ? 256 : 272) << t;
    EXPECT_EQ(out[64 + t], lane < 16 ? 30 : -1) << t;
  }
}

TEST(SimWarp, PartialLastWarpAndActivemask) {
  ENTRY("warp.cu", warp_partial_warp, int(int*));
  std::vector<int> out(50, 0);
  ASSERT_EQ(warp_partial_warp(out.data()), cudaSuccess);
  EXPECT_EQ(out[0], 32);
  EXPECT_EQ(out[1], 16);
  for (int t = 0; t < 48; ++t) {
    EXPECT_EQ(static_cast<unsigned>(out[2 + t]), t < 32 ? 0xffffffffu : 0x0000ffffu) << t;
  }
}

TEST(SimWarp, ExitedLaneInMaskIsReported) {
  ENTRY("warp.cu", warp_exit_fault, int());
  EXPECT_EQ(warp_exit_fault(), cudaErrorLaunchFailure);
}

// What an H100 gave for the same kernels: a source lane in range of the width that takes no part
// (outside the mask, beyond a partial warp) reads 0; out of range, the caller's own value.
TEST(SimWarp, AbsentSourceLanesReadZeroAsOnAnH100) {
  ENTRY("warp.cu", warp_absent_sources, int(int*, int));
  std::vector<int> out(256, 0);
  ASSERT_EQ(warp_absent_sources(out.data(), 0), cudaSuccess);
  for (int t = 0; t < 32; ++t) {
    const int* o = &out[t * 8];
    EXPECT_EQ(o[0], t < 8 ? 0 : -1) << t;
    EXPECT_EQ(o[1], t < 4 ? 1004 + t : (t < 8 ? 0 : -1)) << t;
    EXPECT_EQ(o[2], t < 16 ? 1000 + t : 1000 + t - 16) << t;
    EXPECT_EQ(o[3], t >= 1 ? 999 + t : 1000) << t;
  }
  std::fill(out.begin(), out.end(), 0);
  ASSERT_EQ(warp_absent_sources(out.data(), 1), cudaSuccess);
  for (int t = 0; t < 8; ++t) {
    const int* o = &out[t * 8];
    EXPECT_EQ(o[0], t < 4 ? 1004 + t : 0) << t;
    EXPECT_EQ(o[1], 0) << t;
    EXPECT_EQ(o[2], 0) << t;
    EXPECT_EQ(o[3], t < 4 ? 1004 + t : 1000 + t) << t;
    EXPECT_EQ(o[4], 0xff) << t;  // lanes that do not exist are not in the mask
    EXPECT_EQ(o[5], 10) << t;
  }
}

// reduce7's second stage: lane 0 adds the lanes of the ballot's mask, and the lanes outside it
// (which hold other values) give 0, so the sum is right, as on an H100.
TEST(SimWarp, BallotMaskStageSumsOnlyItsLanes) {
  ENTRY("warp.cu", warp_ballot_stage, float(int));
  for (int active : {1, 2, 8, 20, 32}) EXPECT_EQ(warp_ballot_stage(active), active * (active + 1) / 2.0f) << active;
}

// fmaxf/fminf, fmax/fmin and max/min of floats with a NaN operand (the harness poisons outputs
// with a signalling NaN) give the other operand, as an H100 does; glibc gives NaN for a
// signalling one.
TEST(SimWarp, DeviceMinMaxIgnoreSignallingNaN) {
  ENTRY("warp.cu", warp_nan_minmax, int(float*, const float*));
  const std::uint32_t snan_bits = 0x7fa00000u, qnan_bits = 0x7fc00000u;
  float in[3] = {0, 0, -1};
  std::memcpy(&in[0], &snan_bits, 4);
  std::memcpy(&in[1], &qnan_bits, 4);
  std::array<float, 10> out{};
  ASSERT_EQ(warp_nan_minmax(out.data(), in), cudaSuccess);
  const float want[10] = {1, 1, 2, 2, 3, 4, 5, 6, NAN, -1};
  for (int k = 0; k < 10; ++k) {
    if (k == 8) {
      EXPECT_TRUE(std::isnan(out[k]));  // NaN only when both are
    } else {
      EXPECT_EQ(out[k], want[k]) << k;
    }
  }
}

}  // namespace
}  // namespace cudalab::sim::test

namespace cudalab::sim::test {
namespace {

// ---- memory.cu ---------------------------------------------------------------------------------

struct AtomicResults {
  int i;
  unsigned u;
  unsigned long long ull;
  float f;
  double d;
  int mx, mn;
  unsigned bits[3];
  unsigned wrap;
  int cas_count;
  int ticket[2];
};

TEST(SimMemory, AtomicsFromManyBlocksAreExact) {
  ENTRY("memory.cu", atomics, int(AtomicResults*, int, int));
  const int blocks = 64, threads = 128, total = blocks * threads;
  AtomicResults r{};
  ASSERT_EQ(atomics(&r, blocks, threads), cudaSuccess);
  EXPECT_EQ(r.i, -total);
  EXPECT_EQ(r.u, 3u * total);
  EXPECT_EQ(r.ull, static_cast<unsigned long long>(total) << 33);
  EXPECT_EQ(r.f, 0.5f * total);  // exact: every partial sum is representable
  EXPECT_EQ(r.d, 0.25 * total);
  EXPECT_EQ(r.mx, total - 1);
  EXPECT_EQ(r.mn, -(total - 1));
  EXPECT_EQ(r.bits[0], 0xffffffffu);
  unsigned x = 0;
  for (int t = 0; t < total; ++t) x ^= 1u << (t % 7);
  EXPECT_EQ(r.bits[1], x);
  EXPECT_EQ(r.bits[2], ~0x1fffu);
  EXPECT_EQ(r.wrap, static_cast<unsigned>(total % 100));
  EXPECT_EQ(r.cas_count, total);
  EXPECT_EQ(r.ticket[0], total);
}

struct LibcuResults {
  int sum;
  int min, max;
  float fmax;
  unsigned block_hits;
  unsigned counter;
  unsigned std_or;
  int exchanged;
  float total;
};

// <cuda/atomic> and <cuda/std/atomic>: the simulator's own headers, over the host's atomics.
TEST(SimMemory, LibcuAtomicsAndTheAcquireReleaseTicket) {
  ENTRY("libcu_atomic.cu", libcu_atomics, int(const float*, int, int, LibcuResults*));
  const int blocks = 48, threads = 64, total = blocks * threads;
  std::vector<float> x(total);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& v : x) v = dist(rng);
  for (int round = 0; round < 2; ++round) {  // the last block resets the ticket and the counter
    LibcuResults r{};
    ASSERT_EQ(libcu_atomics(x.data(), blocks, threads, &r), cudaSuccess);
    EXPECT_EQ(r.sum, 2 * total);
    EXPECT_EQ(r.min, -(total - 1));
    EXPECT_EQ(r.max, total - 1);
    EXPECT_EQ(r.fmax, *std::max_element(x.begin(), x.end()));
    EXPECT_EQ(r.block_hits, static_cast<unsigned>(total));
    EXPECT_EQ(r.counter, static_cast<unsigned>(blocks)) << "round " << round;
    EXPECT_EQ(r.std_or, 0xffffffffu);
    EXPECT_EQ(r.exchanged, 16);
    float expected = 0.0f;  // the kernel's order: each block's elements, then the blocks in order
    for (int b = 0; b < blocks; ++b) {
      float part = 0.0f;
      for (int i = 0; i < threads; ++i) part += x[b * threads + i];
      expected += part;
    }
    EXPECT_EQ(r.total, expected) << "round " << round;
  }
}

struct LibcuStd {
  float max;
  float min;
  int sorted_pairs;
  std::uint32_t bits;
  unsigned blocks;
  unsigned rounded_up;
  unsigned rounded_down;
};

// <cuda/std/...> and <cuda/cmath>: the host's standard library as cuda::std, and ceil_div.
TEST(SimMemory, LibcuStdHeadersAndCeilDiv) {
  ENTRY("libcu_std.cu", libcu_std, int(const float*, int, int, LibcuStd*));
  for (const int n : {1, 31, 1000, 4097}) {
    std::vector<float> x(n);
    std::mt19937 rng(n);
    std::uniform_real_distribution<float> dist(0.5f, 100.0f);
    for (float& v : x) v = dist(rng);
    LibcuStd r{};
    ASSERT_EQ(libcu_std(x.data(), n, 128, &r), cudaSuccess) << "n=" << n;
    EXPECT_EQ(r.max, *std::max_element(x.begin(), x.end())) << "n=" << n;
    EXPECT_EQ(r.min, *std::min_element(x.begin(), x.end())) << "n=" << n;
    EXPECT_EQ(r.sorted_pairs, n) << "n=" << n;
    EXPECT_EQ(r.bits, static_cast<std::uint32_t>(std::bit_width(static_cast<unsigned>(n)))) << "n=" << n;
    EXPECT_EQ(r.blocks, static_cast<unsigned>((n + 127) / 128)) << "n=" << n;
    EXPECT_EQ(r.rounded_up, static_cast<unsigned>((n + 31) / 32 * 32)) << "n=" << n;
    EXPECT_EQ(r.rounded_down, static_cast<unsigned>(n / 32 * 32)) << "n=" << n;
  }
}

TEST(SimMemory, ConstantMemoryAndDeviceVariables) {
  ENTRY("memory.cu", constant_memory, int(const float*, int, const float*, float*, int, int*, int*));
  const float c[4] = {1.0f, -2.0f, 0.5f, 0.25f};
  const int n = 300;
  std::vector<float> x(n), y(n, NAN);
  for (int i = 0; i < n; ++i) x[i] = 0.01f * static_cast<float>(i) - 1.0f;
  int launches = -1, bad = -1;
  ASSERT_EQ(constant_memory(c, 7, x.data(), y.data(), n, &launches, &bad), cudaSuccess);
  for (int i = 0; i < n; ++i) {
    const float v = x[i];
    EXPECT_FLOAT_EQ(y[i], c[0] + v * (c[1] + v * (c[2] + v * c[3])) + 7) << i;
  }
  EXPECT_EQ(launches, 2);
  EXPECT_EQ(bad, cudaErrorInvalidValue);
}

TEST(SimMemory, VectorTypesAndMath) {
  ENTRY("memory.cu", vectors_and_math, int(const float*, float*, int));
  const int n = 40;
  std::vector<float> in(4 * n), out(8 * n, NAN);
  for (int i = 0; i < 4 * n; ++i) in[i] = 0.37f * static_cast<float>(i % 11) - 1.2f;
  ASSERT_EQ(vectors_and_math(in.data(), out.data(), n), cudaSuccess);
  for (int i = 0; i < n; ++i) {
    const float vx = 2 * in[4 * i], vy = 2 * in[4 * i + 1], vz = 2 * in[4 * i + 2], vw = 2 * in[4 * i + 3];
    const int px = static_cast<int>(vx), py = static_cast<int>(std::nearbyint(vy));
    const float* o = &out[8 * i];
    EXPECT_FLOAT_EQ(o[0], std::sqrt(std::fabs(vx)) + 0.5f);
    EXPECT_FLOAT_EQ(o[1], vy * 2 + 1 + 0.25f);
    EXPECT_FLOAT_EQ(o[2], 2.0f);
    EXPECT_FLOAT_EQ(o[3], vz + vw);
    EXPECT_FLOAT_EQ(o[4], static_cast<float>(px + py));
    EXPECT_FLOAT_EQ(o[5], vx + vy + vz + vw);
    EXPECT_FLOAT_EQ(o[6], vx * 0.5f + vy + 4);
    EXPECT_FLOAT_EQ(o[7], std::clamp(vw, 0.0f, 1.0f) + 0.5f + 31 + 4);
  }
}

TEST(SimMemory, PrintfInKernels) {
  ENTRY("memory.cu", kernel_printf, int(int));
  testing::internal::CaptureStdout();
  const int err = kernel_printf(1234);
  const std::string printed = testing::internal::GetCapturedStdout();
  EXPECT_EQ(err, cudaSuccess);
  EXPECT_NE(printed.find("hello from block 0 thread 1 tag 1234"), std::string::npos) << printed;
  EXPECT_NE(printed.find("hello from block 1 thread 1 tag 1234"), std::string::npos) << printed;
}

// ---- launch.cu ---------------------------------------------------------------------------------

TEST(SimLaunch, ConfigurationErrorsAsCudaReportsThem) {
  ENTRY("launch.cu", launch_errors, void(int*, int*));
  std::vector<int> e(15, -1);
  int counter = -1;
  launch_errors(e.data(), &counter);
  const std::vector<int> expect = {cudaErrorInvalidConfiguration,
                                   cudaErrorInvalidConfiguration,
                                   cudaErrorInvalidConfiguration,
                                   cudaErrorInvalidConfiguration,
                                   cudaErrorInvalidConfiguration,
                                   cudaErrorInvalidConfiguration,
                                   cudaErrorInvalidValue,
                                   cudaSuccess,
                                   cudaSuccess,
                                   cudaErrorInvalidValue,
                                   cudaErrorInvalidResourceHandle,
                                   cudaErrorInvalidConfiguration,
                                   cudaErrorInvalidConfiguration,
                                   cudaSuccess,
                                   cudaSuccess};
  EXPECT_EQ(e, expect);
  EXPECT_EQ(counter, 43);  // only the two valid launches ran
}

TEST(SimLaunch, RecordsAllocationsCopiesAndLaunches) {
  ENTRY("launch.cu", recorded_run, int(const float*, float*, int));
  records::clear_records();
  records::start_recording();
  const int n = 200;
  std::vector<float> in(n, 1.5f), out(n, 0.0f);
  const int err = recorded_run(in.data(), out.data(), n);
  records::stop_recording();
  const protocol::Records rec = records::snapshot_records();
  ASSERT_EQ(err, cudaSuccess);
  EXPECT_EQ(out, in);
  ASSERT_EQ(rec.allocations.size(), 3u);
  EXPECT_EQ(rec.allocations[0].bytes, n * sizeof(float));
  EXPECT_TRUE(rec.allocations[0].freed);
  EXPECT_TRUE(rec.allocations[1].freed);
  EXPECT_FALSE(rec.allocations[2].freed);  // the leaked counter
  EXPECT_EQ(rec.allocations[0].kind, protocol::MemoryKind::device);
  ASSERT_EQ(rec.copies.size(), 3u);
  EXPECT_EQ(rec.copies[0].kind, protocol::CopyKind::host_to_device);
  EXPECT_EQ(rec.copies[1].kind, protocol::CopyKind::device_to_device);
  EXPECT_EQ(rec.copies[2].kind, protocol::CopyKind::device_to_host);
  for (const auto& c : rec.copies) EXPECT_EQ(c.bytes, n * sizeof(float));
  ASSERT_EQ(rec.launches.size(), 2u);
  EXPECT_EQ(rec.launches[0].kernel, "tiled_copy");
  EXPECT_EQ(rec.launches[0].grid[0], 4u);
  EXPECT_EQ(rec.launches[0].block[0], 64u);
  EXPECT_EQ(rec.launches[0].dynamic_shared_bytes, 0u);
  EXPECT_EQ(rec.launches[0].static_shared_bytes, (64 + 16 + 8) * sizeof(float));
  EXPECT_EQ(rec.launches[1].kernel, "big_dynamic");
  EXPECT_EQ(rec.launches[1].dynamic_shared_bytes, 32 * sizeof(int));
  EXPECT_EQ(rec.launches[1].static_shared_bytes, 0u);
  records::clear_records();
}

TEST(SimLaunch, EveryLaunchFormRunsOnceAndDecoysDoNot) {
  ENTRY("launch.cu", launch_syntax, int());
  EXPECT_EQ(launch_syntax(), 5);
}

TEST(SimLaunch, StreamsEventsAsyncCopies) {
  ENTRY("launch.cu", streams_and_events, int(float*, int*));
  float ms = -1;
  int value = 0;
  ASSERT_EQ(streams_and_events(&ms, &value), cudaSuccess);
  EXPECT_GE(ms, 0.0f);
  EXPECT_LT(ms, 1000.0f);
  EXPECT_EQ(value, 42);
}

}  // namespace
}  // namespace cudalab::sim::test

namespace cudalab::sim::test {
namespace {

// ---- poison.cu ---------------------------------------------------------------------------------

bool all_nan(const std::vector<float>& v) {
  return std::all_of(v.begin(), v.end(), [](float x) { return std::isnan(x); });
}

TEST(SimPoison, UnwrittenSharedReadsGarbageInEveryBlock) {
  ENTRY("poison.cu", unwritten_shared, int(int, float*, int*, float*, float*));
  // 4 blocks of 32 threads run one after the other on one host thread: blocks 1-3 would see what
  // block 0 wrote if shared memory were not poisoned per block. 128 blocks run on all threads.
  for (int blocks : {1, 4, 128}) {
    const int n = blocks * 32;
    std::vector<float> f(n, 0.0f), ns(n, 0.0f), dyn(n, 0.0f);
    std::vector<int> i(n, 0);
    ASSERT_EQ(unwritten_shared(blocks, f.data(), i.data(), ns.data(), dyn.data()), cudaSuccess);
    EXPECT_TRUE(all_nan(f)) << "static __shared__ float, " << blocks << " blocks";
    EXPECT_EQ(i, std::vector<int>(n, -1)) << "static __shared__ int, " << blocks << " blocks";
    EXPECT_TRUE(all_nan(ns)) << "namespace-scope __shared__, " << blocks << " blocks";
    EXPECT_TRUE(all_nan(dyn)) << "extern __shared__, " << blocks << " blocks";
  }
}

TEST(SimPoison, TemplatesVolatileAndNamespacedSharedToo) {
  ENTRY("poison.cu", unwritten_shared_templates, int(int, float*, int*, int*));
  for (int blocks : {1, 4}) {
    const int n = blocks * 32;
    std::vector<float> f(2 * n, 0.0f);
    std::vector<int> i(2 * n, 0), ns(2 * n, 0);
    ASSERT_EQ(unwritten_shared_templates(blocks, f.data(), i.data(), ns.data()), cudaSuccess);
    EXPECT_TRUE(all_nan(f)) << blocks << " blocks";
    EXPECT_EQ(i, std::vector<int>(2 * n, -1)) << blocks << " blocks";
    EXPECT_EQ(ns, std::vector<int>(2 * n, -1)) << blocks << " blocks";
  }
}

TEST(SimPoison, ReductionThatLeavesSharedUnwrittenIsWrongOnOneBlock) {
  ENTRY("poison.cu", buggy_reduction, int(const float*, int, float*));
  const std::vector<float> in(128, 1.0f);
  float sum = 0.0f;
  ASSERT_EQ(buggy_reduction(in.data(), 128, &sum), cudaSuccess);  // every slot written: correct
  EXPECT_EQ(sum, 128.0f);
  ASSERT_EQ(buggy_reduction(in.data(), 100, &sum), cudaSuccess);  // 28 slots never written
  EXPECT_TRUE(std::isnan(sum)) << sum;
}

TEST(SimPoison, OncePerBlockNotOncePerPass) {
  ENTRY("poison.cu", poisoned_once_per_block, int(int, int*));
  for (int blocks : {1, 3, 64}) {
    std::vector<int> out(blocks * 64, -7);
    ASSERT_EQ(poisoned_once_per_block(blocks, out.data()), cudaSuccess);
    for (int g = 0; g < blocks * 64; ++g) ASSERT_EQ(out[g], (g % 64 + 1) % 64) << g << " of " << blocks << " blocks";
  }
}

TEST(SimPoison, StaticSharedBytesInRecordsAreUnchanged) {
  ENTRY("launch.cu", recorded_run, int(const float*, float*, int));
  records::clear_records();
  records::start_recording();
  std::vector<float> in(200, 1.5f), out(200, 0.0f);
  const int err = recorded_run(in.data(), out.data(), 200);
  records::stop_recording();
  const protocol::Records rec = records::snapshot_records();
  records::clear_records();
  ASSERT_EQ(err, cudaSuccess);
  ASSERT_EQ(rec.launches.size(), 2u);
  // Four blocks each reach the declarations; block 0's first pass alone sizes them.
  EXPECT_EQ(rec.launches[0].static_shared_bytes, (64 + 16 + 8) * sizeof(float));
}

// ---- host_pointers.cu ----------------------------------------------------------------------------

TEST(SimHostPointers, HostPointerArgumentIsAnIllegalAddress) {
  ENTRY("host_pointers.cu", launch_on_host_pointer, int(int*, int, int*));
  std::vector<int> data(32, 4);
  int later = -1;
  records::clear_records();
  records::start_recording();
  testing::internal::CaptureStderr();
  const int err = launch_on_host_pointer(data.data(), 32, &later);
  const std::string printed = testing::internal::GetCapturedStderr();
  records::stop_recording();
  const protocol::Records rec = records::snapshot_records();
  records::clear_records();
  EXPECT_EQ(err, cudaErrorIllegalAddress);
  EXPECT_EQ(later, cudaErrorIllegalAddress);  // sticky, as after a fault on a GPU
  EXPECT_EQ(data, std::vector<int>(32, 4));   // the kernel did not run
  EXPECT_EQ(printed,
            "cudalab-sim: kernel 'increment_by_one' argument 1 (data) is a host pointer: device code cannot read or "
            "write host memory; cudaMalloc device memory, cudaMemcpy the data there and pass that pointer\n");
  ASSERT_TRUE(rec.first_failed_call.has_value());
  EXPECT_EQ(rec.first_failed_call->call, "increment_by_one<<<(1,1,1), (32,1,1)>>>(data, n)");
  EXPECT_EQ(rec.first_failed_call->error, "cudaErrorIllegalAddress");
  EXPECT_EQ(rec.first_failed_call->cause.rfind("argument 1 (data) is a host pointer", 0), 0u)
      << rec.first_failed_call->cause;
}

TEST(SimHostPointers, MessageNamesTheArgumentAsWritten) {
  ENTRY("host_pointers.cu", second_argument_is_host, int(int*));
  ENTRY("host_pointers.cu", address_of_device_variable, int());
  int host = 1;
  testing::internal::CaptureStderr();
  EXPECT_EQ(second_argument_is_host(&host), cudaErrorIllegalAddress);
  EXPECT_EQ(address_of_device_variable(), cudaErrorIllegalAddress);
  const std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("kernel 'add_to' argument 2 (host) is a host pointer"), std::string::npos) << printed;
  EXPECT_NE(printed.find("kernel 'add_to' argument 1 (&device_counter) is a host pointer"), std::string::npos)
      << printed;
  EXPECT_EQ(std::count(printed.begin(), printed.end(), '\n'), 2) << printed;
}

TEST(SimHostPointers, DeviceManagedPinnedNullAndEndPointersAreAccepted) {
  ENTRY("host_pointers.cu", legitimate_pointers, int(int*));
  std::vector<int> values(20, -1);
  testing::internal::CaptureStderr();
  const int err = legitimate_pointers(values.data());
  const std::string printed = testing::internal::GetCapturedStderr();
  ASSERT_EQ(err, cudaSuccess) << printed;
  EXPECT_EQ(printed, "");
  for (int i = 0; i < 16; ++i) EXPECT_EQ(values[i], i == 10 ? 3 : 2) << i;
  EXPECT_EQ(values[16], 11);  // managed
  EXPECT_EQ(values[17], 11);  // pinned
  EXPECT_EQ(values[18], 13);  // __device__ symbol through cudaGetSymbolAddress
  EXPECT_EQ(values[19], 16);  // __managed__ variable
}

// ---- shared_guard.cu: writes past a __shared__ array in the plain build -------------------------

TEST(SimSharedGuard, HistogramInBoundsCountsAndWritesNothingPast) {
  ENTRY("shared_guard.cu", histogram_of, int(int, int, int*, int*));
  int later = -1;
  int bin0 = -1;
  testing::internal::CaptureStderr();
  EXPECT_EQ(histogram_of(0, 100, &later, &bin0), cudaSuccess);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(later, cudaSuccess);
  EXPECT_EQ(bin0, 100);  // the last block's count of value 0
}

TEST(SimSharedGuard, WritePastAStaticArrayFailsTheLaunchNamingTheArray) {
  ENTRY("shared_guard.cu", histogram_of, int(int, int, int*, int*));
  records::clear_records();
  records::start_recording();
  int later = -1;
  int bin0 = -1;
  testing::internal::CaptureStderr();
  const int err = histogram_of(200, 100, &later, &bin0);  // bin 200 of 64: 544 bytes past the end
  const std::string printed = testing::internal::GetCapturedStderr();
  records::stop_recording();
  const protocol::Records rec = records::snapshot_records();
  records::clear_records();
  EXPECT_EQ(err, cudaErrorLaunchFailure);
  EXPECT_EQ(later, cudaErrorLaunchFailure);  // sticky
  EXPECT_EQ(printed,
            "cudalab-sim: kernel 'byte_histogram' wrote past the end of the __shared__ array 'hist' (64 elements): "
            "block (0,0,0) wrote hist[200]; keep every index below the array's size, or declare it as large as the "
            "indices reach\n");
  ASSERT_TRUE(rec.first_failed_call.has_value());
  EXPECT_EQ(rec.first_failed_call->call, "byte_histogram<<<(4,1,1), (32,1,1)>>>(values, n, out)");
  EXPECT_EQ(rec.first_failed_call->error, "cudaErrorLaunchFailure");
  EXPECT_NE(rec.first_failed_call->cause.find("wrote past the end of the __shared__ array 'hist'"), std::string::npos)
      << rec.first_failed_call->cause;
}

TEST(SimSharedGuard, WritePastATwoDimensionalArrayNamesTheByte) {
  ENTRY("shared_guard.cu", tile_written_past, int(int));
  testing::internal::CaptureStderr();
  EXPECT_EQ(tile_written_past(-1), cudaSuccess);  // the last element: in bounds
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  testing::internal::CaptureStderr();
  EXPECT_EQ(tile_written_past(3), cudaErrorLaunchFailure);
  const std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("kernel 'tile_past' wrote past the end of the __shared__ array 'tile' (128 bytes): block "
                         "(0,0,0) changed byte 12 past its end"),
            std::string::npos)
      << printed;
  EXPECT_EQ(printed.find("'fine'"), std::string::npos) << printed;
}

TEST(SimSharedGuard, WritePastTheDynamicSharedMemoryFailsTheLaunch) {
  ENTRY("shared_guard.cu", dynamic_written_past, int(int, int));
  testing::internal::CaptureStderr();
  EXPECT_EQ(dynamic_written_past(32, 32 * sizeof(int)), cudaSuccess);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  testing::internal::CaptureStderr();
  EXPECT_EQ(dynamic_written_past(40, 32 * sizeof(int)), cudaErrorLaunchFailure);
  std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("kernel 'dynamic_past' wrote past the end of the extern __shared__ array (128 bytes at this "
                         "launch, the third <<<>>> parameter): block (0,0,0) changed byte 0 past its end"),
            std::string::npos)
      << printed;
  // No third <<<>>> parameter: the dynamic area is empty, and the first write is past its end.
  testing::internal::CaptureStderr();
  EXPECT_EQ(dynamic_written_past(32, 0), cudaErrorLaunchFailure);
  printed = testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("extern __shared__ array (0 bytes at this launch"), std::string::npos) << printed;
}

// ---- macro_launch.cu, header_launch.cu: launches in #define bodies and in quoted headers ------

TEST(SimLaunch, LaunchesInDefineBodiesRun) {
  ENTRY("macro_launch.cu", macro_launches, int(int*, int, int*));
  for (int n : {1, 300}) {
    std::vector<int> v(n);
    std::iota(v.begin(), v.end(), 5);
    int touches = -1;
    ASSERT_EQ(macro_launches(v.data(), n, &touches), cudaSuccess) << "n=" << n;
    for (int i = 0; i < n; ++i) ASSERT_EQ(v[i], (5 + i + 1) * 3 * 2) << "n=" << n << " i=" << i;
    EXPECT_EQ(touches, 64) << "LAUNCH_ON(touch, 2): two blocks of 32, no arguments";
  }
}

TEST(SimHostPointers, MessageNamesWhatTheMacroWasGiven) {
  ENTRY("macro_launch.cu", macro_launch_on_host, int(int*));
  std::vector<int> host(4, 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(macro_launch_on_host(host.data()), cudaErrorIllegalAddress);
  const std::string printed = testing::internal::GetCapturedStderr();
  // LAUNCH(k, n) is `k<<<...>>>(d, n)`: the kernel is the macro's argument, not `k`.
  EXPECT_NE(printed.find("kernel 'add_one' argument 1 (d) is a host pointer"), std::string::npos) << printed;
  EXPECT_EQ(host, std::vector<int>(4, 1));
}

TEST(SimLaunch, LaunchesInQuotedHeadersRun) {
  ENTRY("header_launch.cu", header_launches, int(int*, int));
  for (int n : {1, 64, 150}) {
    std::vector<int> v(n);
    std::iota(v.begin(), v.end(), 1);
    ASSERT_EQ(header_launches(v.data(), n), cudaSuccess) << "n=" << n;
    int sum = 0;
    for (int i = 0; i < n; ++i) {
      if (i % 64 == 0) sum = 0;
      sum += 2 * (i + 1);  // doubled in launch.cuh, then scanned per block of 64
      ASSERT_EQ(v[i], sum) << "n=" << n << " i=" << i;
    }
  }
}

}  // namespace
}  // namespace cudalab::sim::test

namespace cudalab::sim::test {
namespace {

// ---- cg.cu -------------------------------------------------------------------------------------

constexpr int kOut = 8;

TEST(SimCooperativeGroups, BlockAndGridRanksAndShapes) {
  ENTRY("cg.cu", cg_groups, int(int*));
  std::vector<int> out(128 * kOut, 0);
  ASSERT_EQ(cg_groups(out.data()), cudaSuccess);
  for (int g = 0; g < 128; ++g) {
    const int b = g / 64, r = g % 64;
    const int* o = &out[g * kOut];
    EXPECT_EQ(o[0], r) << g;
    EXPECT_EQ(o[1], 64) << g;
    EXPECT_EQ(o[2], b * 100 + (r / 8 % 4) * 10 + r / 32) << g;
    EXPECT_EQ(o[3], 842) << g;
    EXPECT_EQ(o[4], 128) << g;
    EXPECT_EQ(o[5], 64) << g;
  }
}

TEST(SimCooperativeGroups, TilesShuffleAndVoteWithinThemselves) {
  ENTRY("cg.cu", cg_tiles, int(int*, int));
  for (int threads : {64, 48, 8}) {
    std::vector<int> out(threads * kOut, 0);
    ASSERT_EQ(cg_tiles(out.data(), threads), cudaSuccess);
    for (int t = 0; t < threads; ++t) {
      const int* o = &out[t * kOut];
      const int rank = t % 16, half = t / 16, lane = t % 32;
      EXPECT_EQ(o[0], rank * 1000 + half * 10 + (threads + 15) / 16) << t;
      EXPECT_EQ(o[1], half * 16 + 3) << t;
      // shfl_down within the tile; a lane that does not exist (a block of 8) reads 0.
      EXPECT_EQ(o[2], rank + 4 < 16 ? (t + 4 < threads ? t + 4 : 0) : t) << t;
      EXPECT_EQ(o[3], (t ^ 5) - (rank >= 1 ? 100 : 0)) << t;
      unsigned bits = 0;
      for (int i = 0; i < 16 && half * 16 + i < threads; ++i) bits |= ((half * 16 + i) % 3 == 0 ? 1u : 0u) << i;
      // all() is false in a tile that reaches past the block's last thread (as on an H100).
      const bool half_whole = half * 16 + 16 <= threads, warp_whole = t / 32 * 32 + 32 <= threads;
      EXPECT_EQ(o[4], static_cast<int>(bits) * 100 + (half == 0 ? 10 : 0) + (half_whole ? 1 : 0)) << t;
      EXPECT_EQ(o[5], (lane % 4) * 100 + (lane / 4) * 10 + 8 + (warp_whole ? 10000 : 0) + 100000) << t;
      EXPECT_EQ(o[6], (t % 8) * 1000 + 800) << t;
      const int last = t / 32 * 32 + 31;
      EXPECT_EQ(o[7], (t / 32) * 100 + (threads + 31) / 32 + (last < threads ? last : 0) * 1000) << t;
    }
  }
}

TEST(SimCooperativeGroups, ReduceScanAndCoalescedGroups) {
  ENTRY("cg.cu", cg_reductions, int(int*, double*));
  std::vector<int> out(64 * kOut, 0);
  std::vector<double> dout(64, 0.0);
  ASSERT_EQ(cg_reductions(out.data(), dout.data()), cudaSuccess);
  for (int t = 0; t < 64; ++t) {
    const int* o = &out[t * kOut];
    const int warp = t / 32, base8 = t / 8 * 8, r8 = t % 8;
    EXPECT_EQ(o[0], warp == 0 ? 496 : 1520) << t;
    EXPECT_EQ(o[1], (t / 16 * 16 + 15) * 100 + t / 16 * 16) << t;
    EXPECT_EQ(o[2], 255) << t;
    EXPECT_EQ(o[3], ((r8 + 1) * base8 + r8 * (r8 + 1) / 2) * 1000 + r8) << t;
    EXPECT_DOUBLE_EQ(dout[t], warp == 0 ? 248.0 : 760.0) << t;
    if (t % 3 == 0) {
      // Every third thread: lanes 0, 3, ... 30 of warp 0; lanes 1, 4, ... 31 of warp 1.
      const int first = warp == 0 ? 0 : 33;
      const int r = (t - first) / 3;
      EXPECT_EQ(o[4], 1100 + r) << t;
      EXPECT_EQ(o[5], (first + 3) * 1000 + (r + 1 < 11 ? t + 3 : t)) << t;
      EXPECT_EQ(o[6], warp == 0 ? 0x555 : 0x2aa) << t;
      EXPECT_EQ(o[7], 11) << t;
    } else {
      EXPECT_EQ(o[4], -1) << t;
    }
  }
}

TEST(SimCooperativeGroups, GridSyncFailsTheLaunchClearly) {
  ENTRY("cg.cu", cg_grid_sync, int());
  EXPECT_EQ(cg_grid_sync(), cudaErrorNotSupported);
}

}  // namespace
}  // namespace cudalab::sim::test
