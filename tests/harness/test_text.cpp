// The number formats every stage prints with (text.hpp).
#include "cudalab/text.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace cudalab {
namespace {

TEST(FormatSeconds, PicksAUnitAndFourDigits) {
  EXPECT_EQ(format_seconds(1.234e-3), "1.234 ms");
  EXPECT_EQ(format_seconds(12.3456e-6), "12.35 µs");
  EXPECT_EQ(format_seconds(456.78e-9), "456.8 ns");
  EXPECT_EQ(format_seconds(999.96e-6), "1.000 ms");  // rounds up into the next unit
  EXPECT_EQ(format_seconds(2), "2.000 s");
  EXPECT_EQ(format_seconds(1234.7), "1235 s");
  EXPECT_EQ(format_seconds(0.5e-9), "0.500 ns");
  EXPECT_EQ(format_seconds(NAN), "-");
}

TEST(FormatSeconds, EstimatesTakeThreeDigits) {
  EXPECT_EQ(format_seconds(4.1666e-6, 3), "4.17 µs");
  EXPECT_EQ(format_seconds(511.2e-9, 3), "511 ns");
  EXPECT_EQ(format_seconds(27.16e-3, 3), "27.2 ms");
  EXPECT_EQ(format_seconds(999.6e-9, 3), "1.00 µs");  // rounds up into the next unit
}

TEST(FormatBytes, WholeUnitsPlainOthersWithOneDecimal) {
  EXPECT_EQ(format_bytes(4.0 * (1 << 30)), "4 GiB");
  EXPECT_EQ(format_bytes(64.0 * (1 << 20)), "64 MiB");
  EXPECT_EQ(format_bytes(1.5 * (1 << 20)), "1.5 MiB");
  EXPECT_EQ(format_bytes(1536.0 * (1 << 20)), "1.5 GiB");
  EXPECT_EQ(format_bytes(4096), "4 KiB");
  EXPECT_EQ(format_bytes(1023), "1023 bytes");
  EXPECT_EQ(format_bytes(1), "1 byte");
  EXPECT_EQ(format_bytes(0), "0 bytes");
}

TEST(FormatPercent, ThreeDigitsAtLeastOneDecimal) {
  EXPECT_EQ(format_percent(29), "29.0%");
  EXPECT_EQ(format_percent(1.234), "1.23%");
  EXPECT_EQ(format_percent(0.03251), "0.0325%");
}

// CUPTI's and Nsight Compute's demangled names, as a launch or a report shows them.
TEST(KernelDisplayName, DropsTheReturnTypeParametersAndQualifiers) {
  EXPECT_EQ(kernel_display_name("void reduce<256>(const float *, int)"), "reduce<256>");
  EXPECT_EQ(kernel_display_name("(anonymous namespace)::prep_kernel(const float *, float *, int)"), "prep_kernel");
  EXPECT_EQ(kernel_display_name("void (anonymous namespace)::gemm<256>(CUtensorMap_st, float *, int)"), "gemm<256>");
  EXPECT_EQ(kernel_display_name("void ex::matmul<Tiling<128, 8>, true>(const float *, float *)"),
            "matmul<Tiling<128, 8>, true>");
  EXPECT_EQ(kernel_display_name("increment_all"), "increment_all");  // a name without parameters
}

}  // namespace
}  // namespace cudalab
