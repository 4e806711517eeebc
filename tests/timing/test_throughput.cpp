// Throughput, percent of peak and speedup arithmetic, with numbers worked out by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "cudalab/timing.hpp"

namespace cudalab {
namespace {

const Peaks H100{3000, 60000, "test peaks"};

TEST(Throughput, MemoryBoundCost) {
  // 8 GB and 1 GFLOP in 10 ms: 800 GB/s (26.7 % of 3000), 100 GFLOP/s (0.17 % of 60000).
  const Throughput t = compute_throughput(Cost{8e9, 1e9}, 0.01, H100);
  ASSERT_TRUE(t.gbs && t.gflops && t.percent_bandwidth && t.percent_compute);
  EXPECT_DOUBLE_EQ(*t.gbs, 800);
  EXPECT_DOUBLE_EQ(*t.gflops, 100);
  EXPECT_DOUBLE_EQ(*t.percent_bandwidth, 100 * 800.0 / 3000);
  EXPECT_DOUBLE_EQ(*t.percent_compute, 100 * 100.0 / 60000);
  EXPECT_FALSE(t.compute_bound);
}

TEST(Throughput, ComputeBoundCost) {
  // SGEMM 4096³: 2·4096³ flops, 3·4096²·4 bytes, in 5 ms.
  const double n = 4096;
  const Throughput t = compute_throughput(Cost{3 * n * n * 4, 2 * n * n * n}, 5e-3, H100);
  EXPECT_DOUBLE_EQ(*t.gflops, 2 * n * n * n / 5e-3 / 1e9);  // 27487.8
  EXPECT_DOUBLE_EQ(*t.percent_compute, 100 * *t.gflops / 60000);
  EXPECT_TRUE(t.compute_bound);
}

// Each percentage names the peak it is taken against, and the peak is the one that bounds the
// measurement: the tensor cores for a TF32 run, the host link (both directions) for a call that
// copies across it.
TEST(Throughput, EachPercentageIsOfThePeakThatBoundsTheRunAndNamesIt) {
  Peaks peaks = H100;
  peaks.tf32_gflops = 480000;  // 8 × FP32
  peaks.host_link_gbs = 50;
  const Cost matmul{3 * 4096.0 * 4096 * 4, 2 * 4096.0 * 4096 * 4096};
  const Throughput fp32 = compute_throughput(matmul, 5e-3, peaks);
  EXPECT_EQ(fp32.compute_peak, "FP32");
  EXPECT_DOUBLE_EQ(*fp32.percent_compute, 100 * *fp32.gflops / 60000);

  peaks.tf32 = true;
  const Throughput tf32 = compute_throughput(matmul, 5e-3, peaks);
  EXPECT_EQ(tf32.compute_peak, "TF32 tensor");
  EXPECT_DOUBLE_EQ(*tf32.percent_compute, 100 * *tf32.gflops / 480000);  // 5.7 %, not 45.8 % of FP32
  peaks.tf32_gflops = 0;  // a device without TF32 tensor cores known: no percentage rather than a wrong one
  EXPECT_FALSE(compute_throughput(matmul, 5e-3, peaks).percent_compute.has_value());

  // 512 MB in and out across the link in 10 ms: 51.2 GB/s, 51.2 % of 2 × 50 GB/s (the duplex not
  // measured).
  Peaks link = H100;
  link.host_link_gbs = 50;
  link.host_link = true;
  const Throughput host = compute_throughput(Cost{512e6, 0}, 0.01, link);
  EXPECT_EQ(host.bandwidth_peak, "host link");
  EXPECT_DOUBLE_EQ(*host.percent_bandwidth, 100 * 51.2 / 100);
  // With both directions measured at once, that measurement is the peak: 51.2 of 80 GB/s.
  link.host_duplex_gbs = 80;
  EXPECT_DOUBLE_EQ(*compute_throughput(Cost{512e6, 0}, 0.01, link).percent_bandwidth, 100 * 51.2 / 80);
  link.host_link = false;
  const Throughput device = compute_throughput(Cost{512e6, 0}, 0.01, link);
  EXPECT_EQ(device.bandwidth_peak, "memory");
  EXPECT_DOUBLE_EQ(*device.percent_bandwidth, 100 * 51.2 / 3000);
}

TEST(Throughput, WithoutPeaksNoPercentagesAndTheIntensityDecides) {
  const Throughput mem = compute_throughput(Cost{4e9, 1e9}, 1, Peaks{});
  EXPECT_DOUBLE_EQ(*mem.gbs, 4);
  EXPECT_FALSE(mem.percent_bandwidth.has_value());
  EXPECT_FALSE(mem.percent_compute.has_value());
  EXPECT_FALSE(mem.compute_bound);                                             // 0.25 flop/byte
  EXPECT_TRUE(compute_throughput(Cost{1e9, 11e9}, 1, Peaks{}).compute_bound);  // 11 flop/byte
  EXPECT_TRUE(compute_throughput(Cost{0, 1e9}, 1, Peaks{}).compute_bound);     // flops only
  EXPECT_FALSE(compute_throughput(Cost{1e9, 0}, 1, H100).gflops.has_value());  // bytes only
  EXPECT_FALSE(compute_throughput(Cost{1e9, 0}, 1, H100).compute_bound);
}

TEST(Throughput, NoRatesWithoutATime) {
  for (double t : {0.0, -1.0, std::nan("")}) {
    const Throughput r = compute_throughput(Cost{1e9, 1e9}, t, H100);
    EXPECT_FALSE(r.gbs.has_value());
    EXPECT_FALSE(r.gflops.has_value());
  }
}

TEST(Speedup, BaselineOverMeasured) {
  EXPECT_DOUBLE_EQ(speedup(2.0, 0.5), 4);
  EXPECT_DOUBLE_EQ(speedup(0.5, 2.0), 0.25);  // slower than the baseline
}

TEST(Measurement, FillsThroughputAndNamesItsBaselines) {
  const std::vector<double> samples{1e-3, 2e-3, 3e-3};  // median 2 ms
  Case c{{{"n", 1000}}, true};
  const Measurement m = make_measurement("02_vector_add", c, "gpu", Cost{12e6, 1e6}, summarize(samples), H100,
                                         {{"cpu 1 thread", 0.1}, {"cpu 16 threads", 0.01}});
  ASSERT_TRUE(m.throughput.gbs);
  EXPECT_DOUBLE_EQ(*m.throughput.gbs, 12e6 / 2e-3 / 1e9);
  EXPECT_DOUBLE_EQ(*m.speedup_over("cpu 1 thread"), 50);
  EXPECT_DOUBLE_EQ(*m.speedup_over("cpu 16 threads"), 5);
  EXPECT_FALSE(m.speedup_over("cuBLAS").has_value());
  EXPECT_EQ(m.c.label(), "n=1000");
}

}  // namespace
}  // namespace cudalab
