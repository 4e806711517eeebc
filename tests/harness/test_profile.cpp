// `cudalab bench --profile`: Nsight Compute's log read into per-kernel counters (a real log of an
// H100, tests/fixtures/ncu/), the simulator's counts of the known-slow kernels, the report that
// sets them side by side, the one line when counters are not permitted; on a GPU with ncu, the
// simulator's counts against the hardware's for an unpadded transpose tile.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/files.hpp"
#include "../support/toolchains.hpp"
#include "cudalab/gpu_probe.hpp"
#include "cudalab/process.hpp"
#include "cudalab/profile.hpp"
#include "cudalab/registry.hpp"
#include "cudalab/toolchain.hpp"

namespace cudalab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path source_dir = CUDALAB_SOURCE_DIR;
const fs::path module_cache = testing_support::test_module_cache();

// ---- ncu's log ----

TEST(NcuLog, ReadsEachKernelOfARealLogAddingUpItsLaunches) {
  const NcuLog log = parse_ncu_log(testing_support::read_text(source_dir / "tests/fixtures/ncu/four_launches.log"));
  EXPECT_EQ(log.problem, "");
  ASSERT_EQ(log.kernels.size(), 3U);  // strided twice, conflict, tmpl<4>
  EXPECT_EQ(log.kernels[0].kernel, "strided");
  EXPECT_EQ(log.kernels[1].kernel, "conflict");
  EXPECT_EQ(log.kernels[2].kernel, "tmpl<4>");

  const KernelCounters& strided = log.kernels[0];
  EXPECT_EQ(strided.launches, 2U);
  EXPECT_EQ(strided.grid, (std::array<unsigned, 3>{4096, 1, 1}));
  EXPECT_EQ(strided.block, (std::array<unsigned, 3>{256, 1, 1}));
  // 32768 requests each; 4 sectors per request at stride 1, 32 at stride 33 ("1,048,576" in the CSV).
  EXPECT_DOUBLE_EQ(strided.global_loads.requests, 65536);
  EXPECT_DOUBLE_EQ(strided.global_loads.units, 131072 + 1048576);
  EXPECT_DOUBLE_EQ(*strided.global_stores.per_request(), 4.0);
  EXPECT_FALSE(strided.shared_loads.per_request().has_value());
  EXPECT_EQ(strided.registers, 16U);
  ASSERT_TRUE(strided.duration_s.has_value());
  EXPECT_NEAR(*strided.duration_s, (5792 + 10592) * 1e-9, 1e-12);
  // Achieved occupancy weighted by duration: 72.35 % for 5.8 µs, 80.58 % for 10.6 µs.
  EXPECT_NEAR(*strided.achieved_occupancy, (0.7235 * 5792 + 0.8058 * 10592) / (5792 + 10592), 1e-6);
  EXPECT_NEAR(*strided.dram_bytes, 2 * 4197376.0, 1);

  const KernelCounters& conflict = log.kernels[1];
  // t[threadIdx.x][threadIdx.y]: 32 wavefronts per request; the load beside it 1.
  EXPECT_DOUBLE_EQ(*conflict.shared_stores.per_request(), 32.0);
  EXPECT_DOUBLE_EQ(*conflict.shared_loads.per_request(), (32.0 + 1.0) / 2);
  EXPECT_DOUBLE_EQ(conflict.shared_stores.conflicts, 992);  // 31 extra wavefronts in each of 32 requests
  EXPECT_DOUBLE_EQ(conflict.shared_loads.conflicts, 992);
  EXPECT_DOUBLE_EQ(*conflict.theoretical_occupancy, 1.0);
  EXPECT_NEAR(*conflict.active_lanes, 32.0, 1e-9);
  EXPECT_NEAR(*log.kernels[2].active_lanes, 23.27, 1e-9);
  // Without the branch counters in the log, no uniformity is made up.
  EXPECT_FALSE(conflict.branch_uniformity.has_value());
}

TEST(NcuLog, NamesLoseReturnTypeParametersAndQualifiersButKeepTemplateArguments) {
  const std::string log =
      "==PROF== Connected to process 1\n"
      "\"ID\",\"Kernel Name\",\"Grid Size\",\"Block Size\",\"smsp__sass_branch_targets.sum\","
      "\"smsp__sass_branch_targets_threads_uniform.sum\"\n"
      "\"\",\"\",\"\",\"\",\"\",\"\"\n"
      "\"0\",\"(anonymous namespace)::scale(float *, int)\",\"(8, 2, 1)\",\"(32, 8, 1)\",\"1,000\",\"750\"\n"
      "\"1\",\"void ns::reduce<256, (Op)1>(const float *, float *)\",\"(1, 1, 1)\",\"(256, 1, 1)\",\"0\",\"0\"\n"
      "\"2\",\"(anonymous namespace)::scale(float *, int)\",\"(8, 2, 1)\",\"(32, 8, 1)\",\"1,000\",\"250\"\n";
  const NcuLog parsed = parse_ncu_log(log);
  ASSERT_EQ(parsed.kernels.size(), 2U);
  EXPECT_EQ(parsed.kernels[0].kernel, "scale");
  EXPECT_EQ(parsed.kernels[0].launches, 2U);
  EXPECT_EQ(parsed.kernels[0].grid, (std::array<unsigned, 3>{8, 2, 1}));
  // 1000 of 2000 branches had all their lanes go one way.
  EXPECT_DOUBLE_EQ(*parsed.kernels[0].branch_uniformity, 0.5);
  EXPECT_EQ(parsed.kernels[1].kernel, "reduce<256, (Op)1>");
  EXPECT_FALSE(parsed.kernels[1].branch_uniformity.has_value()) << "no branch ran: nothing to say";
}

TEST(NcuLog, CountersNotPermittedIsOneLineThatSaysHowToOpenThem) {
  const std::string log =
      "==PROF== Connected to process 4242 (/usr/lib/cudalab/cudalab-runner-gpu)\n"
      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on "
      "the target device 0. For instructions on enabling permissions and to get more information see "
      "https://developer.nvidia.com/ERR_NVGPUCTRPERM\n"
      "==PROF== Disconnected from process 4242\n"
      "==WARNING== No kernels were profiled.\n";
  const NcuLog parsed = parse_ncu_log(log);
  EXPECT_TRUE(parsed.kernels.empty());
  EXPECT_EQ(parsed.problem.find('\n'), std::string::npos) << parsed.problem;
  EXPECT_NE(parsed.problem.find("not open to this user"), std::string::npos) << parsed.problem;
  EXPECT_NE(parsed.problem.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << parsed.problem;
}

TEST(NcuLog, AnyOtherFailureOrAnEmptyLogIsSaid) {
  EXPECT_EQ(parse_ncu_log("==ERROR== Failed to profile \"k\" in process 12\n").problem,
            "Nsight Compute failed: Failed to profile \"k\" in process 12");
  EXPECT_NE(parse_ncu_log("").problem.find("no counters"), std::string::npos);
  EXPECT_NE(parse_ncu_log("\"ID\",\"Kernel Name\"\n\"\",\"\"\n").problem.find("profiled no kernel"), std::string::npos);
}

TEST(Profile, TheGpuNamesItsTarget) {
  EXPECT_EQ(target_for_device("NVIDIA H100 80GB HBM3"), "h100");
  EXPECT_EQ(target_for_device("NVIDIA A100-SXM4-40GB"), "a100");
  EXPECT_EQ(target_for_device("NVIDIA GeForce RTX 4090"), "rtx4090");
  EXPECT_EQ(target_for_device("Tesla T4"), "h100") << "an unknown GPU: the default target";
}

TEST(Profile, NcuIsFoundWhereCudalabNcuSays) {
  const char* before = std::getenv("CUDALAB_NCU");
  const std::string saved = before != nullptr ? before : "";
  ::setenv("CUDALAB_NCU", "/opt/somewhere/ncu", 1);
  EXPECT_EQ(find_ncu(), fs::path("/opt/somewhere/ncu"));
  if (before != nullptr) {
    ::setenv("CUDALAB_NCU", saved.c_str(), 1);
  } else {
    ::unsetenv("CUDALAB_NCU");
  }
}

// ---- the simulator's side ----

const Toolchain* checked_sim(std::string& why) { return testing_support::toolchain_of(Backend::sim, true, why); }

ExplainResult explained(const Toolchain& sim, const char* exercise, const fs::path& file) {
  ExplainOptions o;
  o.seed = 20261126;
  o.registers_from_nvcc = false;
  return explain_exercise(*find_task(exercise), sim, file, o);
}

TEST(SimulatedCounters, AnUnpaddedTileConflictsOnItsColumnReadsOnly) {
  std::string why;
  const Toolchain* sim = checked_sim(why);
  if (sim == nullptr) GTEST_SKIP() << "sim backend unavailable: " << why;
  REQUIRE_FILE(source_dir / "tests/explain/09_transpose/unpadded_tile.cu");
  const ExplainResult r = explained(*sim, "09_transpose", source_dir / "tests/explain/09_transpose/unpadded_tile.cu");
  ASSERT_TRUE(r.ran()) << r.message;
  const auto counters = simulated_counters(r);
  ASSERT_EQ(counters.size(), 1U);
  const KernelCounters& k = counters.front();
  // Rows into the tile without conflicts, columns out of it with 32-way conflicts (fewer at the
  // edges, where a warp has fewer lanes).
  EXPECT_NEAR(*k.shared_stores.per_request(), 1.0, 0.05);
  EXPECT_GT(*k.shared_loads.per_request(), 28.0);
  EXPECT_NEAR(*k.shared_loads.ideal_per_request(), 1.0, 0.05);
  EXPECT_NEAR(k.shared_loads.conflicts, k.shared_loads.units - k.shared_loads.requests, 1.0);
  EXPECT_NEAR(k.shared_stores.conflicts, 0.0, 1.0);
  // Global memory both ways in whole rows: 32 floats in 4 sectors, 5 where a row does not start
  // on 32 bytes (the representative matrix has an odd width), as done well.
  EXPECT_NEAR(*k.global_loads.per_request(), *k.global_loads.ideal_per_request(), 0.05);
  EXPECT_NEAR(*k.global_stores.per_request(), *k.global_stores.ideal_per_request(), 0.05);
  EXPECT_GE(*k.global_loads.ideal_per_request(), 4.0);
  EXPECT_LE(*k.global_loads.ideal_per_request(), 5.0);
  EXPECT_GT(k.global_loads.requests, 0);
  ASSERT_TRUE(k.theoretical_occupancy.has_value());
  EXPECT_FALSE(k.achieved_occupancy.has_value()) << "only a GPU measures achieved occupancy";
}

TEST(SimulatedCounters, ColumnWritesTakeASectorPerLane) {
  std::string why;
  const Toolchain* sim = checked_sim(why);
  if (sim == nullptr) GTEST_SKIP() << "sim backend unavailable: " << why;
  REQUIRE_FILE(source_dir / "tests/explain/09_transpose/naive_column_writes.cu");
  const ExplainResult r =
      explained(*sim, "09_transpose", source_dir / "tests/explain/09_transpose/naive_column_writes.cu");
  ASSERT_TRUE(r.ran()) << r.message;
  const auto counters = simulated_counters(r);
  ASSERT_FALSE(counters.empty());
  const KernelCounters& k = counters.front();
  EXPECT_GT(*k.global_stores.per_request(), 28.0);
  EXPECT_LE(*k.global_stores.ideal_per_request(), 5.0);
  EXPECT_NEAR(*k.global_loads.per_request(), *k.global_loads.ideal_per_request(), 0.05);
}

// ---- the report ----

/// A result as profile_exercise makes it, from the real log and made-up predictions.
ProfileResult made_up_result(double predicted_conflict_wavefronts) {
  ProfileResult r;
  r.task = find_task("09_transpose");
  r.source = "/tmp/x/kernel.cu";
  r.device = "NVIDIA H100 80GB HBM3";
  r.tool = "Nsight Compute 2025.3.1.0";
  r.measured = parse_ncu_log(testing_support::read_text(source_dir / "tests/fixtures/ncu/four_launches.log")).kernels;
  r.predicted = r.measured;
  for (auto& k : r.predicted) {
    k.achieved_occupancy.reset();
    k.dram_bytes.reset();
    k.branch_uniformity.reset();
  }
  r.predicted[1].shared_stores.units = predicted_conflict_wavefronts * r.predicted[1].shared_stores.requests;
  r.predicted[1].shared_stores.ideal = r.predicted[1].shared_stores.requests;
  r.predicted.pop_back();  // tmpl<4> only on the GPU
  return r;
}

TEST(ProfileReport, SetsTheGpuBesideTheSimulatorAndMarksWhereTheyDiffer) {
  std::ostringstream agreeing;
  write_profile_report(agreeing, {made_up_result(32.0)}, {});
  const std::string text = agreeing.str();
  EXPECT_NE(text.find("NVIDIA H100 80GB HBM3, Nsight Compute 2025.3.1.0"), std::string::npos) << text;
  EXPECT_NE(text.find("strided<<<4096, 256>>> × 2 launches"), std::string::npos) << text;
  EXPECT_NE(text.find("conflict<<<1, (32,32)>>>"), std::string::npos) << text;
  EXPECT_NE(text.find("tmpl<4><<<1, 64>>>  (only the GPU ran it)"), std::string::npos) << text;
  EXPECT_NE(text.find("shared stores: wavefronts per request"), std::string::npos) << text;
  EXPECT_EQ(text.find("≠"), std::string::npos) << text;

  std::ostringstream differing;
  write_profile_report(differing, {made_up_result(4.0)}, {});
  const std::string other = differing.str();
  const auto row = other.find("shared stores: wavefronts per request");
  ASSERT_NE(row, std::string::npos) << other;
  const std::string line = other.substr(row, other.find('\n', row) - row);
  EXPECT_NE(line.find("32.00"), std::string::npos) << line;
  EXPECT_NE(line.find("4.00"), std::string::npos) << line;
  EXPECT_NE(line.find("≠"), std::string::npos) << line;
}

TEST(ProfileReport, JsonAndMarkdownCarryBothSides) {
  const json j = profile_report_json({made_up_result(4.0)});
  ASSERT_EQ(j["profiles"].size(), 1U);
  const json& kernels = j["profiles"][0]["kernels"];
  ASSERT_EQ(kernels.size(), 3U);
  EXPECT_EQ(kernels[1]["kernel"], "conflict");
  EXPECT_DOUBLE_EQ(kernels[1]["gpu"]["shared_stores"]["per_request"].get<double>(), 32.0);
  EXPECT_DOUBLE_EQ(kernels[1]["simulator"]["shared_stores"]["per_request"].get<double>(), 4.0);
  EXPECT_EQ(kernels[1]["differ"], json::array({"shared stores: wavefronts per request"}));
  EXPECT_TRUE(kernels[2]["simulator"].is_null());

  std::ostringstream md;
  write_profile_markdown(md, {made_up_result(32.0)}, true);
  std::istringstream lines(md.str());
  std::string line;
  std::vector<std::string> all;
  while (std::getline(lines, line)) all.push_back(line);
  ASSERT_EQ(all.size(), 2U + 3U) << md.str();  // header, rule, one row per kernel
  EXPECT_NE(all[3].find("| 09_transpose | `conflict` | — | 4.00 / 4.00 | 16.50 / 16.50 | 32.00 / 32.00 |"),
            std::string::npos)
      << all[3];
}

TEST(ProfileReport, InstantiationsTheSimulatorNamesAsOneAreAddedUpOnBothSides) {
  ProfileResult r;
  r.task = find_task("15_reduce_any");
  r.source = "/tmp/x/kernel.cu";
  for (const char* name : {"reduce<Sum>", "reduce<Max>", "reduce<Min>"}) {
    KernelCounters k;
    k.kernel = name;
    k.launches = 1;
    k.global_loads = {100, 400, 0};
    r.measured.push_back(k);
  }
  KernelCounters sim;
  sim.kernel = "reduce<Op>";  // as the launch is written in the template
  sim.launches = 3;
  sim.global_loads = {300, 1200, 1200};
  r.predicted.push_back(sim);
  const json j = profile_report_json({r});
  const json& kernels = j["profiles"][0]["kernels"];
  ASSERT_EQ(kernels.size(), 1U) << kernels.dump(2);
  EXPECT_EQ(kernels[0]["kernel"], "reduce<…>");
  EXPECT_DOUBLE_EQ(kernels[0]["gpu"]["global_loads"]["requests"].get<double>(), 300);
  EXPECT_EQ(kernels[0]["gpu"]["launches"], 3);
  EXPECT_DOUBLE_EQ(kernels[0]["simulator"]["global_loads"]["requests"].get<double>(), 300);
  EXPECT_TRUE(kernels[0]["differ"].empty());
}

TEST(ProfileReport, NoCountersIsSaidInsteadOfATable) {
  ProfileResult r = made_up_result(32.0);
  r.measured.clear();
  r.problem = "the GPU's performance counters are not open to this user (ERR_NVGPUCTRPERM): …";
  std::ostringstream out;
  write_profile_report(out, {r}, {});
  EXPECT_NE(out.str().find("no counters: the GPU's performance counters are not open"), std::string::npos) << out.str();
  EXPECT_FALSE(r.profiled());
}

// ---- on a GPU ----

TEST(ProfileOnGpu, TheSimulatorCountsWhatTheHardwareCountsForAnUnpaddedTile) {
  ToolchainConfig config;
  config.cache_dir = module_cache;
  config.runner_dir = CUDALAB_BIN_DIR;
  auto gpu = make_gpu_toolchain(config);
  std::string why;
  if (!gpu->available(why)) GTEST_SKIP() << "no GPU here: " << why;
  const auto device = probe_gpu(gpu->runner(), why);
  if (!device) GTEST_SKIP() << "no GPU here: " << why;
  if (find_ncu().empty()) GTEST_SKIP() << "no ncu here (Nsight Compute comes with the CUDA toolkit)";
  REQUIRE_FILE(source_dir / "tests/explain/09_transpose/unpadded_tile.cu");
  const Toolchain* sim = checked_sim(why);
  ASSERT_NE(sim, nullptr) << why;
  ProfileOptions options;
  options.device_name = device->name;
  options.cache_dir = module_cache;
  const ProfileResult r = profile_exercise(*find_task("09_transpose"), *gpu, *sim,
                                           source_dir / "tests/explain/09_transpose/unpadded_tile.cu", options);
  if (r.problem.find("ERR_NVGPUCTRPERM") != std::string::npos) GTEST_SKIP() << r.problem;
  ASSERT_TRUE(r.profiled()) << r.problem << r.message;
  ASSERT_EQ(r.measured.size(), 1U);
  ASSERT_EQ(r.predicted.size(), 1U);
  const KernelCounters& hw = r.measured.front();
  const KernelCounters& simulated = r.predicted.front();
  EXPECT_NEAR(*hw.shared_loads.per_request(), *simulated.shared_loads.per_request(), 0.1);
  EXPECT_NEAR(*hw.shared_stores.per_request(), *simulated.shared_stores.per_request(), 0.1);
  EXPECT_NEAR(hw.shared_loads.conflicts, simulated.shared_loads.conflicts, 0.01 * hw.shared_loads.conflicts);
  EXPECT_NEAR(*hw.global_loads.per_request(), *simulated.global_loads.per_request(), 0.1);
  EXPECT_NEAR(*hw.global_stores.per_request(), *simulated.global_stores.per_request(), 0.1);
  EXPECT_NEAR(*hw.theoretical_occupancy, *simulated.theoretical_occupancy, 0.01);
}

}  // namespace
}  // namespace cudalab
