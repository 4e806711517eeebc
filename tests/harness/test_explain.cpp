// `cudalab explain` on the simulator: every known-slow kernel of tests/explain/ gets the findings
// its header names, on their lines, and no other; every reference solution gets none. Each file
// of tests/explain/NN_name/ starts with one line per finding it must get:
//   // explain: <kind> | <line> | <text the finding's message or fix must contain>
// Then the pieces: targets, occupancy, ptxas's register counts, the profile's JSON, the CLI.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/cli.hpp"
#include "../support/files.hpp"
#include "../support/toolchains.hpp"
#include "cudalab/explain.hpp"
#include "cudalab/process.hpp"
#include "cudalab/protocol.hpp"
#include "cudalab/registry.hpp"
#include "cudalab/toolchain.hpp"

namespace cudalab {
namespace {

using testing_support::kSourceDir;
using testing_support::run_cudalab;

namespace fs = std::filesystem;
using nlohmann::json;

/// Register counts are assumed (32), not asked of nvcc: the same numbers with and without a CUDA
/// toolkit, and no nvcc run per file.
ExplainOptions test_options() {
  ExplainOptions o;
  o.seed = 20261125;
  o.registers_from_nvcc = false;
  return o;
}

std::string all_text(const ExplainResult& r) {
  std::string text = r.compile.diagnostics + r.message;
  for (const auto& f : r.findings) {
    text += fmt::format("\n{} line {}: {}\n  fix: {}", explain_kind_name(f.kind), f.place.line, f.message, f.fix);
  }
  return text;
}

std::string safe_name(std::string name) {
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

// ---- the corpus: tests/explain/NN_name/*.cu ----

struct Expected {
  std::string kind;
  int line = 0;
  std::string must_say;
};

struct SlowKernel {
  std::string exercise;
  fs::path file;
  std::vector<Expected> findings;
};

void PrintTo(const SlowKernel& k, std::ostream* os) { *os << k.exercise << "/" << k.file.filename().string(); }

std::vector<SlowKernel> slow_kernels() {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::recursive_directory_iterator(kSourceDir / "tests" / "explain", ec)) {
    if (entry.path().extension() == ".cu") files.push_back(entry.path());
  }
  std::ranges::sort(files);
  std::vector<SlowKernel> out;
  for (const auto& f : files) {
    SlowKernel k{f.parent_path().filename().string(), f, {}};
    std::ifstream in(f);
    std::string line;
    for (int i = 0; i < 8 && std::getline(in, line); ++i) {
      const std::string tag = "// explain: ";
      if (line.rfind(tag, 0) != 0) continue;
      const std::string text = line.substr(tag.size());
      const auto bar1 = text.find(" | ");
      const auto bar2 = bar1 == std::string::npos ? bar1 : text.find(" | ", bar1 + 3);
      if (bar2 == std::string::npos) continue;
      k.findings.push_back(
          {text.substr(0, bar1), std::atoi(text.substr(bar1 + 3, bar2 - bar1 - 3).c_str()), text.substr(bar2 + 3)});
    }
    out.push_back(std::move(k));
  }
  return out;
}

class ExplainCorpus : public testing::TestWithParam<SlowKernel> {};

TEST_P(ExplainCorpus, NamesEachProblemOnItsLineAndNothingElse) {
  const auto& k = GetParam();
  ASSERT_FALSE(k.findings.empty()) << k.file << " names no finding in its `// explain:` lines";
  REQUIRE_CHECKED_SIM(toolchain);
  const ExplainResult r = explain_exercise(*find_task(k.exercise), *toolchain, k.file, test_options());
  ASSERT_TRUE(r.compile.ok) << r.compile.diagnostics;
  // Each of these kernels is right: explain measures what works.
  ASSERT_TRUE(r.ran()) << verdict_name(r.verdict) << ": " << r.message;
  for (const auto& e : k.findings) {
    const auto match = std::ranges::find_if(r.findings, [&](const ExplainFinding& f) {
      return explain_kind_name(f.kind) == e.kind && f.place.line == e.line;
    });
    ASSERT_NE(match, r.findings.end()) << "no " << e.kind << " finding on line " << e.line << ":" << all_text(r);
    EXPECT_EQ(fs::path(match->place.file).filename(), k.file.filename());
    const std::string said = match->message + "\n" + match->fix;
    EXPECT_NE(said.find(e.must_say), std::string::npos) << "the finding should say \"" << e.must_say << "\":\n" << said;
    EXPECT_GT(match->cost_s, 0.0);
    EXPECT_FALSE(match->ncu_metric.empty());
  }
  EXPECT_EQ(r.findings.size(), k.findings.size()) << "findings the file does not name:" << all_text(r);
  // The costliest first.
  for (std::size_t i = 1; i < r.findings.size(); ++i) EXPECT_GE(r.findings[i - 1].cost_s, r.findings[i].cost_s);
  EXPECT_GT(r.estimated_s, r.best_s);
}

INSTANTIATE_TEST_SUITE_P(Corpus, ExplainCorpus, testing::ValuesIn(slow_kernels()),
                         [](const testing::TestParamInfo<SlowKernel>& info) {
                           return safe_name(info.param.exercise + "_" + info.param.file.stem().string());
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ExplainCorpus);

// ---- the reference solutions: nothing to explain ----

std::vector<std::string> exercises() {
  std::vector<std::string> ids;
  for (const auto& t : all_tasks()) ids.push_back(t->info().id);
  return ids;
}

class ExplainSolution : public testing::TestWithParam<std::string> {};

TEST_P(ExplainSolution, HasNoFinding) {
  const fs::path file = kSourceDir / "solutions" / GetParam() / "kernel.cu";
  if (!fs::exists(file)) GTEST_SKIP() << file << " is not in this distribution (cudalab export leaves it out)";
  REQUIRE_CHECKED_SIM(toolchain);
  const ExplainResult r = explain_exercise(*find_task(GetParam()), *toolchain, file, test_options());
  ASSERT_TRUE(r.compile.ok) << r.compile.diagnostics;
  ASSERT_EQ(r.verdict, Verdict::passed) << r.message;
  EXPECT_TRUE(r.findings.empty()) << all_text(r);
  ASSERT_FALSE(r.kernels.empty());
  ASSERT_FALSE(r.lines.empty());
  // What was counted is what the task moves, give or take rows that do not start on 32 bytes and
  // the re-reads of tiles: never less than the bytes every input and output take once (sampling
  // would show as less), and coalesced traffic under the traffic finding's threshold.
  EXPECT_GE(r.global_bytes, 0.95 * r.needed.bytes) << "counted " << r.global_bytes;
  EXPECT_LT(r.coalesced_bytes, 4 * r.needed.bytes);
  for (const auto& k : r.kernels) {
    // What the blocks allow; a small last pass (one block adding the partial sums) may reach less.
    EXPECT_GE(k.occupancy.theoretical, 0.25) << k.kernel;
    EXPECT_FALSE(k.registers.has_value());
    EXPECT_EQ(k.registers_used, kAssumedRegisters);
  }
}

INSTANTIATE_TEST_SUITE_P(Solutions, ExplainSolution, testing::ValuesIn(exercises()),
                         [](const testing::TestParamInfo<std::string>& info) { return safe_name(info.param); });

// ---- what the counts say, beyond the findings ----

// The interleaved tree halves its working lanes at every step: each stretch between barriers has
// half the active lanes of the one before, down to one lane in the warps that still work.
TEST(ExplainCounts, EachBarrierIntervalHasItsShareOfActiveLanes) {
  REQUIRE_CHECKED_SIM(toolchain);
  const fs::path file = kSourceDir / "tests" / "explain" / "05_reduce" / "interleaved_tree.cu";
  const ExplainResult r = explain_exercise(*find_task("05_reduce"), *toolchain, file, test_options());
  ASSERT_TRUE(r.ran()) << r.message;
  const auto k = std::ranges::find(r.kernels, std::string("block_sums"), &KernelExplain::kernel);
  ASSERT_NE(k, r.kernels.end());
  ASSERT_GE(k->intervals.size(), 6u);
  const auto share = [&](std::size_t i) { return k->intervals[i].active_lanes / (32 * k->intervals[i].requests); };
  // Loading the block's elements, up to the barrier on line 14: every lane.
  EXPECT_EQ(k->intervals[0].from_line, 0);
  EXPECT_EQ(k->intervals[0].to_line, 14);
  EXPECT_GT(share(0), 0.95);
  // The tree's steps, from barrier to barrier (line 19): 16, 8, 4, 2 of 32 lanes.
  EXPECT_EQ(k->intervals[1].from_line, 14);
  EXPECT_EQ(k->intervals[1].to_line, 19);
  for (std::size_t i = 1; i <= 4; ++i) EXPECT_NEAR(share(i), 0.5 / static_cast<double>(1u << (i - 1)), 0.01) << i;
  // Each warp reads 32 neighbouring x[i]: one request of 4 sectors, as coalesced as it gets.
  const auto load = std::ranges::find_if(r.lines, [](const LineCost& l) {
    return l.space == protocol::MemorySpace::global && !l.write && l.target == "x";
  });
  ASSERT_NE(load, r.lines.end());
  EXPECT_NEAR(load->active_lanes / load->requests, 32, 0.1);
  EXPECT_NEAR(load->ideal_units / load->requests, 4, 0.1);
  EXPECT_NEAR(load->units / load->requests, 4, 0.1);
}

// The checked build splits a float4 into four loads; counted as the one 16-byte access a GPU
// makes, a warp reading 32 float4 in a row touches 16 sectors, its ideal.
TEST(ExplainCounts, AFloat4IsOneSixteenByteAccess) {
  const fs::path file = kSourceDir / "solutions" / "05_reduce" / "kernel.cu";
  if (!fs::exists(file)) GTEST_SKIP() << file << " is not in this distribution";
  REQUIRE_CHECKED_SIM(toolchain);
  const ExplainResult r = explain_exercise(*find_task("05_reduce"), *toolchain, file, test_options());
  ASSERT_TRUE(r.ran()) << r.message;
  const auto load = std::ranges::find_if(
      r.lines, [](const LineCost& l) { return l.space == protocol::MemorySpace::global && !l.write && l.bytes == 16; });
  ASSERT_NE(load, r.lines.end()) << "no 16-byte load";
  EXPECT_NEAR(load->units / load->requests, 16, 0.5);
  EXPECT_NEAR(load->ideal_units / load->requests, 16, 0.5);
}

// ---- the pieces ----

TEST(ExplainSize, IsTheSimulatorsLargeCheckUnlessAnotherIsAskedFor) {
  const Task& matmul = *find_task("03_matmul");
  EXPECT_EQ(representative_case(matmul, {}).label(), "M=192 N=160 K=176");
  EXPECT_EQ(representative_case(matmul, {255}).label(), "M=255 N=257 K=129");
  EXPECT_EQ(representative_case(*find_task("09_transpose"), {}).label(), "M=1027 N=1021");
  EXPECT_THROW((void)representative_case(matmul, {999}), SelectionError);
}

TEST(ExplainTargets, KnowsTheH100FirstAndAFewOthersByName) {
  ASSERT_FALSE(gpu_targets().empty());
  EXPECT_EQ(gpu_targets().front().key, "h100");
  EXPECT_EQ(find_gpu_target("H100")->sms, 132u);
  EXPECT_EQ(find_gpu_target("NVIDIA A100")->arch, "sm_80");
  EXPECT_EQ(find_gpu_target("RTX 4090")->max_warps_per_sm, 48u);
  EXPECT_EQ(find_gpu_target("v100"), nullptr);
}

TEST(ExplainOccupancy, TheLimitThatBindsIsNamed) {
  const GpuTarget& h100 = *find_gpu_target("h100");
  // 256 threads, few registers, no shared memory: 8 blocks fill the 64 warps.
  Occupancy o = theoretical_occupancy(h100, 256, 32, 0);
  EXPECT_EQ(o.blocks_per_sm, 8u);
  EXPECT_EQ(o.warps_per_sm, 64u);
  EXPECT_EQ(o.limit, OccupancyLimit::warps);
  EXPECT_DOUBLE_EQ(o.fraction, 1.0);
  // Blocks of one warp: at most 32 blocks, half the warps.
  o = theoretical_occupancy(h100, 32, 32, 0);
  EXPECT_EQ(o.limit, OccupancyLimit::blocks);
  EXPECT_DOUBLE_EQ(o.fraction, 0.5);
  // 128 registers a thread: 4096 a warp, 16 warps in 65536.
  o = theoretical_occupancy(h100, 128, 128, 0);
  EXPECT_EQ(o.limit, OccupancyLimit::registers);
  EXPECT_EQ(o.warps_per_sm, 16u);
  // 40 KiB and the runtime's 1 KiB a block: 5 blocks in 228 KiB.
  o = theoretical_occupancy(h100, 64, 32, 40 * 1024);
  EXPECT_EQ(o.limit, OccupancyLimit::shared_memory);
  EXPECT_EQ(o.blocks_per_sm, 5u);
  EXPECT_EQ(o.warps_per_sm, 10u);
  // The RTX 4090 holds 24 blocks and 48 warps.
  o = theoretical_occupancy(*find_gpu_target("rtx4090"), 32, 32, 0);
  EXPECT_EQ(o.blocks_per_sm, 24u);
  EXPECT_DOUBLE_EQ(o.fraction, 0.5);
}

TEST(ExplainOccupancy, ATinyGridKeepsOnlyItsOwnWarps) {
  const GpuTarget& h100 = *find_gpu_target("h100");
  // One block of one thread: 1 warp on the one SM that runs it, not the 32 blocks an SM could hold.
  Occupancy o = theoretical_occupancy(h100, 1, 32, 0, 1);
  EXPECT_EQ(o.blocks_per_sm, 1u);
  EXPECT_EQ(o.warps_per_sm, 1u);
  EXPECT_EQ(o.limit, OccupancyLimit::grid);
  EXPECT_DOUBLE_EQ(o.fraction, 1.0 / 64);
  EXPECT_DOUBLE_EQ(o.theoretical, 0.5) << "ncu's theoretical occupancy ignores the grid";
  EXPECT_STREQ(occupancy_limit_name(o.limit), "blocks in the grid");
  // Two blocks of 256 threads per SM: 16 of 64 warps.
  o = theoretical_occupancy(h100, 256, 32, 0, 2 * std::uint64_t{h100.sms});
  EXPECT_EQ(o.blocks_per_sm, 2u);
  EXPECT_DOUBLE_EQ(o.fraction, 0.25);
  EXPECT_DOUBLE_EQ(o.theoretical, 1.0);
  // A grid that fills every SM leaves the limit where the blocks put it.
  o = theoretical_occupancy(h100, 256, 32, 0, 1 << 20);
  EXPECT_EQ(o.limit, OccupancyLimit::warps);
  EXPECT_DOUBLE_EQ(o.fraction, 1.0);
}

TEST(ExplainRegisters, PtxasCountsAreFoundByTheKernelsName) {
  // nvcc 13.0's -Xptxas -v for the reference matmul and transpose (abridged).
  const std::string output = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z17matmul_warp_tiledI6TilingILi64ELi64ELi16ELi32ELi32ELi1ELi2ELi4EELb0EEvPKfS3_Pfiii' for 'sm_90'
ptxas info    : Function properties for _Z17matmul_warp_tiledI6TilingILi64ELi64ELi16ELi32ELi32ELi1ELi2ELi4EELb0EEvPKfS3_Pfiii
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 121 registers, used 1 barriers, 16896 bytes smem
ptxas info    : Compiling entry function '_Z17matmul_warp_tiledI6TilingILi128ELi128ELi8ELi32ELi64ELi2ELi2ELi2EELb1EEvPKfS3_Pfiii' for 'sm_90'
ptxas info    : Used 128 registers, used 1 barriers, 8 bytes cumulative stack size, 16640 bytes smem
ptxas info    : Compiling entry function '_Z15transpose_tilesPKfPfii' for 'sm_90'
ptxas info    : Used 32 registers, used 1 barriers, 4224 bytes smem
)";
  const auto entries = parse_ptxas_registers(output);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries.at("_Z15transpose_tilesPKfPfii"), 32u);
  // A template kernel as launched: the most of its instantiations.
  EXPECT_EQ(registers_of(entries, "matmul_warp_tiled<T, true>"), 128u);
  EXPECT_EQ(registers_of(entries, "transpose_tiles"), 32u);
  // "tiles" is a part of a name, not a name of its own.
  EXPECT_FALSE(registers_of(entries, "tiles").has_value());
  EXPECT_FALSE(registers_of(entries, "reduce").has_value());
}

TEST(ExplainRegisters, ComeFromNvccWhereItIsInstalledElseAreAssumed) {
  const fs::path file = kSourceDir / "solutions" / "09_transpose" / "kernel.cu";
  if (!fs::exists(file)) GTEST_SKIP() << file << " is not in this distribution";
  REQUIRE_CHECKED_SIM(toolchain);
  ExplainOptions options = test_options();
  options.registers_from_nvcc = true;
  options.cache_dir = testing_support::test_module_cache();
  const ExplainResult r = explain_exercise(*find_task("09_transpose"), *toolchain, file, options);
  ASSERT_TRUE(r.ran()) << r.message;
  ASSERT_EQ(r.kernels.size(), 1u);
  if (r.registers_note.find("no nvcc") != std::string::npos) {
    EXPECT_FALSE(r.kernels.front().registers.has_value());
    EXPECT_NE(r.registers_note.find("assumed 32"), std::string::npos) << r.registers_note;
  } else {
    ASSERT_TRUE(r.kernels.front().registers.has_value()) << r.registers_note;
    EXPECT_GT(*r.kernels.front().registers, 0u);
    EXPECT_LE(*r.kernels.front().registers, 255u);
  }
}

TEST(ExplainProfile, TheReplysCountsRoundTripAndAreChecked) {
  protocol::AccessProfile p;
  p.kernels.push_back({"transpose_tiles", 1, 1056, 47, {{0, 19, 100, 3200}, {19, 0, 100, 3100}}});
  protocol::AccessSite s;
  s.kernel = "transpose_tiles";
  s.pc = 0x1234;
  s.space = protocol::MemorySpace::shared;
  s.bytes = 4;
  s.target = "tile";
  s.element_bytes = 4;
  s.row_elements = 32;
  s.target_bytes = 4096;
  s.requests = 100;
  s.active_lanes = 3200;
  s.units = 3200;
  s.ideal_units = 100;
  s.worst_units = 32;
  s.worst_ideal = 1;
  s.stride = 128;
  p.sites.push_back(s);
  protocol::Reply reply;
  reply.status = protocol::Status::ok;
  reply.profile = p;
  const protocol::Reply back = protocol::parse_reply(protocol::dump_reply(reply));
  ASSERT_EQ(back.profile.sites.size(), 1u);
  EXPECT_EQ(back.profile.sites.front().target, "tile");
  EXPECT_EQ(back.profile.sites.front().space, protocol::MemorySpace::shared);
  EXPECT_DOUBLE_EQ(back.profile.sites.front().units, 3200);
  EXPECT_EQ(back.profile.kernels.front().counted_blocks, 47u);
  ASSERT_EQ(back.profile.kernels.front().intervals.size(), 2u);
  EXPECT_EQ(back.profile.kernels.front().intervals.back().from_line, 19);
  // A forged reply: more lanes than 32 a request, more blocks counted than launched.
  json j = json::parse(protocol::dump_reply(reply));
  j["profile"]["sites"][0]["active_lanes"] = 3201 * 1000;
  EXPECT_THROW((void)protocol::parse_reply(j.dump()), protocol::ProtocolError);
  j = json::parse(protocol::dump_reply(reply));
  j["profile"]["kernels"][0]["counted_blocks"] = 2000;
  EXPECT_THROW((void)protocol::parse_reply(j.dump()), protocol::ProtocolError);
  j = json::parse(protocol::dump_reply(reply));
  j["profile"]["kernels"][0]["intervals"][1]["active_lanes"] = 3201;
  EXPECT_THROW((void)protocol::parse_reply(j.dump()), protocol::ProtocolError);
  j = json::parse(protocol::dump_reply(reply));
  j["profile"]["sites"][0]["units"] = -1;
  EXPECT_THROW((void)protocol::parse_reply(j.dump()), protocol::ProtocolError);
}

// ---- the command ----

TEST(ExplainCommand, SaysWhyInJsonAndExitsOneOnAFinding) {
  const fs::path file = kSourceDir / "tests" / "explain" / "09_transpose" / "unpadded_tile.cu";
  const ProcessResult p = run_cudalab({"explain", "9", "--file", file.string(), "--json"});
  ASSERT_EQ(p.status, ProcessResult::Status::exited) << p.output;
  EXPECT_EQ(p.exit_code, 1) << p.output;
  // stdout and stderr come together: the JSON is the object from the first brace on.
  const json j = json::parse(p.output.substr(p.output.find('{')));
  ASSERT_EQ(j.at("exercises").size(), 1u);
  const json& e = j.at("exercises").at(0);
  EXPECT_EQ(e.at("verdict"), "slow");
  EXPECT_EQ(e.at("size").at("M"), 1027);
  ASSERT_EQ(e.at("findings").size(), 1u);
  EXPECT_EQ(e.at("findings").at(0).at("kind"), "bank_conflict");
  EXPECT_EQ(e.at("findings").at(0).at("line"), 23);
  EXPECT_EQ(j.at("target").at("key"), "h100");
}

TEST(ExplainCommand, AnUnknownTargetIsAUsageError) {
  const ProcessResult p = run_cudalab({"explain", "9", "--target", "v100"});
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("unknown --target 'v100'"), std::string::npos) << p.output;
}

}  // namespace
}  // namespace cudalab
