// `cudalab show` on the simulator: the figure's data against a transpose small enough to check by
// hand (which thread wrote and read which element), a race and an out-of-bounds access placed on
// their elements, a warp's sectors, the page in headless Chromium, the text, and the command.
#include <algorithm>
#include <bit>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/chromium.hpp"
#include "../support/cli.hpp"
#include "../support/files.hpp"
#include "../support/toolchains.hpp"
#include "cudalab/process.hpp"
#include "cudalab/registry.hpp"
#include "cudalab/show.hpp"

namespace cudalab {
namespace {

using testing_support::kSourceDir;
using testing_support::run_cudalab;

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("cudalab-show-{}-{}", name, getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// A transpose by hand: thread (x, y) of an 8×8 block copies A[row][col] to B[col][row], row from
/// y and col from x. Line 6 reads A and writes B.
constexpr const char* kHandTranspose = R"(#include <cuda_runtime.h>
__global__ void transpose_by_hand(const float* A, float* B, int M, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N)
    B[col * M + row] = A[row * N + col];
}
void solve(const float* A, float* B, int M, int N) {
  const dim3 block(8, 8);
  transpose_by_hand<<<dim3((N + 7) / 8, (M + 7) / 8), block>>>(A, B, M, N);
  cudaDeviceSynchronize();
}
)";

ShowResult show_file(const Toolchain& tc, const std::string& exercise, const fs::path& file,
                     std::vector<std::int64_t> sizes = {}) {
  const Task* task = find_task(exercise);
  EXPECT_NE(task, nullptr) << exercise;
  ShowOptions options;
  options.only_sizes = std::move(sizes);
  return show_exercise(*task, tc, file, options);
}

/// The hand-checked transpose above, shown from a scratch folder of its own (`dir`, removed by the
/// caller).
ShowResult show_hand_transpose(const Toolchain& tc, const fs::path& dir) {
  const fs::path file = dir / "kernel.cu";
  std::ofstream(file) << kHandTranspose;
  return show_file(tc, "09_transpose", file);
}

const ShownTarget* target_named(const ShownLaunch& l, const std::string& name) {
  const auto it = std::ranges::find(l.targets, name, &ShownTarget::name);
  return it == l.targets.end() ? nullptr : &*it;
}

TEST(Show, RecordsWhichThreadWroteAndReadEachElementOfAHandCheckedTranspose) {
  REQUIRE_CHECKED_SIM(tc);
  const fs::path dir = scratch("hand");
  const ShowResult r = show_hand_transpose(*tc, dir);
  ASSERT_TRUE(r.compile.ok) << r.compile.diagnostics;
  // The naive transpose uses no shared memory: the requirement fails, the picture is still drawn.
  EXPECT_EQ(r.verdict, Verdict::requirement_unmet) << r.message;
  const auto M = static_cast<std::uint32_t>(r.c.dim("M"));
  const auto N = static_cast<std::uint32_t>(r.c.dim("N"));
  ASSERT_EQ(r.launches.size(), 1u);
  const ShownLaunch& l = r.launches.front();
  EXPECT_EQ(l.kernel, "transpose_by_hand");
  EXPECT_EQ(l.block, (std::array<unsigned, 3>{8, 8, 1}));
  EXPECT_EQ(l.grid, (std::array<unsigned, 3>{(N + 7) / 8, (M + 7) / 8, 1}));
  EXPECT_EQ(l.phases, 1u);
  const ShownTarget* A = target_named(l, "A");
  const ShownTarget* B = target_named(l, "B");
  ASSERT_NE(A, nullptr);
  ASSERT_NE(B, nullptr);
  EXPECT_FALSE(A->output);
  EXPECT_TRUE(B->output);
  EXPECT_EQ(A->rows, M);
  EXPECT_EQ(A->cols, N);
  EXPECT_EQ(B->rows, N);
  EXPECT_EQ(B->cols, M);
  for (std::uint32_t row = 0; row < M; ++row) {
    for (std::uint32_t col = 0; col < N; ++col) {
      const std::uint32_t thread = col % 8 + 8 * (row % 8);
      const std::uint32_t block = col / 8 + l.grid[0] * (row / 8);
      const auto& wrote = B->elements.at(col * M + row);
      const auto& read = A->elements.at(row * N + col);
      ASSERT_EQ(wrote.size(), 1u) << "B[" << col << "][" << row << "]";
      ASSERT_EQ(read.size(), 1u) << "A[" << row << "][" << col << "]";
      EXPECT_EQ(wrote[0].kind, protocol::TraceKind::write);
      EXPECT_EQ(read[0].kind, protocol::TraceKind::read);
      EXPECT_EQ(wrote[0].thread, thread);
      EXPECT_EQ(wrote[0].block, block);
      EXPECT_EQ(read[0].thread, thread);
      EXPECT_EQ(read[0].block, block);
      EXPECT_EQ(wrote[0].line, 6);
      EXPECT_EQ(read[0].line, 6);
      EXPECT_EQ(wrote[0].bits, read[0].bits) << "the value written is the value read";
    }
  }
  EXPECT_TRUE(A->outside.empty());
  EXPECT_TRUE(B->outside.empty());
  // Warp 0 is rows 0-3 of the block, 8 columns each: its load of A is four runs of 32 bytes; its
  // store to B puts each lane in another row of B, so it touches many more sectors than it needs.
  ASSERT_EQ(l.warps.size(), 2u);
  const auto load = std::ranges::find_if(l.warps, [](const WarpAccessPicture& w) { return !w.write; });
  const auto store = std::ranges::find_if(l.warps, [](const WarpAccessPicture& w) { return w.write; });
  ASSERT_NE(load, l.warps.end());
  ASSERT_NE(store, l.warps.end());
  EXPECT_EQ(load->ideal, 4u);
  EXPECT_EQ(store->ideal, 4u);
  EXPECT_GT(store->units, 2 * store->ideal) << "the store is uncoalesced";
  EXPECT_LT(load->units, store->units);
  // Every thread of the grid reads once and writes once.
  std::array<std::size_t, 4> total{};
  for (const auto& b : l.block_counts) {
    for (std::size_t i = 0; i < 4; ++i) total[i] += b[i];
  }
  EXPECT_EQ(total, (std::array<std::size_t, 4>{std::size_t{M} * N, std::size_t{M} * N, 0, 0}));
  fs::remove_all(dir);
}

TEST(Show, PlacesARaceOnTheSharedElementsItNames) {
  REQUIRE_CHECKED_SIM(tc);
  REQUIRE_FILE(kSourceDir / "tests/sanitize/03_matmul/missing_second_sync.cu");
  const ShowResult r = show_file(*tc, "03_matmul", kSourceDir / "tests/sanitize/03_matmul/missing_second_sync.cu");
  ASSERT_TRUE(r.ran()) << r.message;
  EXPECT_EQ(r.verdict, Verdict::data_race) << r.message;
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings.front().verdict, Verdict::data_race);
  const ShownLaunch& l = r.launches.front();
  EXPECT_GE(l.phases, 2u) << "the tile loop passes a barrier";
  const ShownTarget* As = target_named(l, "As");
  ASSERT_NE(As, nullptr);
  EXPECT_TRUE(As->shared);
  // The race: thread (0,0) overwrites As[0][0] (line 15) while thread (1,0) reads it (line 18).
  bool marked_write = false;
  bool marked_read = false;
  for (const auto& a : As->elements.at(0)) {
    if (!a.finding) continue;
    marked_write = marked_write || (a.kind == protocol::TraceKind::write && a.thread == 0 && a.line == 15);
    marked_read = marked_read || (a.kind == protocol::TraceKind::read && a.thread == 1 && a.line == 18);
  }
  EXPECT_TRUE(marked_write);
  EXPECT_TRUE(marked_read);
}

TEST(Show, AnOutOfBoundsAccessLiesBesideItsBuffer) {
  REQUIRE_CHECKED_SIM(tc);
  REQUIRE_FILE(kSourceDir / "tests/sanitize/01_increment/no_bounds_test_32_threads.cu");
  const ShowResult r =
      show_file(*tc, "01_increment", kSourceDir / "tests/sanitize/01_increment/no_bounds_test_32_threads.cu");
  ASSERT_TRUE(r.ran()) << r.message;
  EXPECT_EQ(r.verdict, Verdict::out_of_bounds);
  const auto n = static_cast<std::int64_t>(r.c.dim("n"));
  ASSERT_EQ(r.launches.front().targets.size(), 1u);
  const ShownTarget& data = r.launches.front().targets.front();
  EXPECT_FALSE(data.harness_buffer) << "a host-pointer exercise's device memory is the submission's";
  ASSERT_FALSE(data.outside.empty());
  for (const auto& [element, a] : data.outside) {
    EXPECT_GE(element, n) << "past the end, never before the start";
    EXPECT_EQ(a.thread, static_cast<std::uint32_t>(element)) << "thread i touches element i";
    EXPECT_TRUE(a.finding);
  }
}

TEST(Show, AScanThatReadsPastNIsDrawnBesideItsInput) {
  REQUIRE_CHECKED_SIM(tc);
  const fs::path file = kSourceDir / "tests/sanitize/11_scan/loads_past_n.cu";
  REQUIRE_FILE(file);
  const ShowResult r = show_file(*tc, "11_scan", file);
  ASSERT_TRUE(r.ran()) << r.message;
  EXPECT_EQ(r.verdict, Verdict::out_of_bounds);
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings.front().line, 13);
  const ShownTarget* x = target_named(r.launches.front(), "x");
  ASSERT_NE(x, nullptr);
  ASSERT_FALSE(x->outside.empty());
  const auto n = static_cast<std::int64_t>(r.c.dim("n"));
  for (const auto& [element, a] : x->outside) {
    EXPECT_GE(element, n);
    EXPECT_EQ(a.kind, protocol::TraceKind::read);
    EXPECT_EQ(a.line, 13);
  }
}

/// A transpose staged through a `__shared__` struct of 292 bytes, wider than any element a trace
/// names: thread (x, y) writes tile.v[y][x] (line 9) and reads it back after the barrier (line 12).
constexpr const char* kStructTranspose = R"(#include <cuda_runtime.h>
struct Tile {
  float v[8][9];
  int count;
};
__global__ void transpose_through_a_struct(const float* A, float* B, int M, int N) {
  __shared__ Tile tile;
  const int col = blockIdx.x * 8 + threadIdx.x, row = blockIdx.y * 8 + threadIdx.y;
  if (row < M && col < N) tile.v[threadIdx.y][threadIdx.x] = A[row * N + col];
  __syncthreads();
  if (row < M && col < N)
    B[col * M + row] = tile.v[threadIdx.y][threadIdx.x];
}
void solve(const float* A, float* B, int M, int N) {
  transpose_through_a_struct<<<dim3((N + 7) / 8, (M + 7) / 8), dim3(8, 8)>>>(A, B, M, N);
}
)";

TEST(Show, ASharedStructIsDrawnByItsWords) {
  REQUIRE_CHECKED_SIM(tc);
  const fs::path dir = scratch("struct");
  std::ofstream(dir / "kernel.cu") << kStructTranspose;
  const ShowResult r = show_file(*tc, "09_transpose", dir / "kernel.cu", {17});
  fs::remove_all(dir);
  ASSERT_TRUE(r.ran()) << r.message;
  EXPECT_EQ(r.verdict, Verdict::passed) << r.message;
  ASSERT_FALSE(r.launches.empty());
  const ShownTarget* tile = target_named(r.launches.front(), "tile");
  ASSERT_NE(tile, nullptr);
  EXPECT_TRUE(tile->shared);
  ASSERT_EQ(tile->elements.size(), 73u) << "sizeof(Tile) / 4 words";
  // Thread (1, 0) of the drawn block wrote word 1 (v[0][1]) at line 9 and read it at line 12.
  std::vector<std::pair<protocol::TraceKind, int>> seen;
  for (const auto& a : tile->elements[1]) seen.emplace_back(a.kind, a.line);
  EXPECT_EQ(seen, (std::vector<std::pair<protocol::TraceKind, int>>{{protocol::TraceKind::write, 9},
                                                                    {protocol::TraceKind::read, 12}}));
}

TEST(Show, AnUncoalescedMatmulsLoadsArePicturedOnTheirLines) {
  REQUIRE_CHECKED_SIM(tc);
  // Threads laid out the wrong way round: a warp's lanes walk down the rows of A and B (explain's
  // findings: uncoalesced at lines 19 and 20).
  const fs::path file = kSourceDir / "tests/explain/03_matmul/rows_across_lanes.cu";
  REQUIRE_FILE(file);
  const ShowResult r = show_file(*tc, "03_matmul", file);
  ASSERT_TRUE(r.ran()) << r.message;
  std::set<int> uncoalesced;
  for (const auto& w : r.launches.front().warps) {
    if (!w.shared && !w.write && w.units > 2 * w.ideal) uncoalesced.insert(w.line);
  }
  EXPECT_EQ(uncoalesced, (std::set<int>{19, 20}));
}

TEST(Show, TheTextDrawsEachElementsWriter) {
  REQUIRE_CHECKED_SIM(tc);
  const fs::path dir = scratch("text");
  const ShowResult r = show_hand_transpose(*tc, dir);
  ASSERT_TRUE(r.ran());
  std::ostringstream out;
  write_show_text(out, r, ReportStyle{}, 64);
  const std::string text = out.str();
  EXPECT_NE(text.find("launch 1: transpose_by_hand<<<"), std::string::npos) << text;
  EXPECT_NE(text.find("phase 1 of 1: the thread that wrote each element"), std::string::npos) << text;
  // B's first row is A's first column: threads 0, 8, 16, … of block 0 wrote it (threads are numbered
  // across the grid); A's first row was read by threads 0, 1, 2, … ("r": read only).
  const auto first_row = [&](const std::string& caption) {
    std::size_t at = text.find(caption);
    at = text.find("phase 1 of 1", at);
    at = text.find('\n', at) + 1;
    std::istringstream row(text.substr(at, text.find('\n', at) - at));
    std::vector<std::string> cells;
    for (std::string cell; row >> cell && cells.size() < 8;) cells.push_back(cell);
    return cells;
  };
  EXPECT_EQ(first_row("  B ("), (std::vector<std::string>{"0", "8", "16", "24", "32", "40", "48", "56"})) << text;
  EXPECT_EQ(first_row("  A ("), (std::vector<std::string>{"0r", "1r", "2r", "3r", "4r", "5r", "6r", "7r"})) << text;
  EXPECT_NE(text.find("uncoalesced"), std::string::npos) << text;
  fs::remove_all(dir);
}

TEST(Show, ThePageRendersInHeadlessChromiumWithoutConsoleErrors) {
  REQUIRE_CHECKED_SIM(tc);
  if (!fs::exists(testing_support::kChromium)) GTEST_SKIP() << "/usr/bin/chromium is not installed";
  REQUIRE_FILE(kSourceDir / "tests/sanitize/03_matmul/missing_second_sync.cu");
  REQUIRE_FILE(kSourceDir / "solutions/09_transpose/kernel.cu");
  const fs::path dir = scratch("page");
  const std::vector<std::pair<std::string, ShowResult>> pages = {
      {"race", show_file(*tc, "03_matmul", kSourceDir / "tests/sanitize/03_matmul/missing_second_sync.cu")},
      {"coalescing", show_file(*tc, "09_transpose", kSourceDir / "solutions/09_transpose/kernel.cu")},
  };
  for (const auto& [name, r] : pages) {
    const fs::path html = dir / (name + ".html");
    std::ofstream(html) << show_page_html(r);
    // The DOM after the page's script ran, and Chromium's log of the page's console.
    const fs::path log = dir / (name + ".log");
    const std::string command = fmt::format(
        "timeout 120 {} --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking "
        "--user-data-dir='{}' --enable-logging=stderr --v=0 --dump-dom 'file://{}' >'{}' 2>'{}'",
        testing_support::kChromium.string(), (dir / (name + ".profile")).string(), html.string(),
        (dir / (name + ".dom")).string(), log.string());
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    std::ifstream dom_in(dir / (name + ".dom"));
    const std::string dom((std::istreambuf_iterator<char>(dom_in)), {});
    std::ifstream log_in(log);
    const std::string console((std::istreambuf_iterator<char>(log_in)), {});
    EXPECT_NE(dom.find("class=\"phase-label\">after the launch<"), std::string::npos)
        << name << ": the page's script did not run";
    EXPECT_EQ(console.find("Uncaught"), std::string::npos) << name << ":\n" << console;
    EXPECT_EQ(console.find(":ERROR:CONSOLE"), std::string::npos) << name << ":\n" << console;
    const fs::path png = dir / (name + ".png");
    ASSERT_EQ(testing_support::screenshot(html, png, 1300, 2400), "");
    EXPECT_GT(fs::file_size(png), 40u * 1024) << "a page with figures, not a blank one";
    if (const char* keep = std::getenv("CUDALAB_REPORT_SCREENSHOTS")) {
      fs::copy_file(png, fs::path(keep) / ("cudalab-show-" + name + ".png"), fs::copy_options::overwrite_existing);
      fs::copy_file(html, fs::path(keep) / ("cudalab-show-" + name + ".html"), fs::copy_options::overwrite_existing);
    }
  }
  fs::remove_all(dir);
}

// ---- the exercise READMEs' pictures ----

class Figure : public testing::TestWithParam<std::string> {};

TEST_P(Figure, IsTheReferenceSolutionsPictureNow) {
  REQUIRE_CHECKED_SIM(tc);
  const std::string id = GetParam();
  const fs::path solution = kSourceDir / "solutions" / id / "kernel.cu";
  REQUIRE_FILE(solution);
  const fs::path picture = kSourceDir / "exercises" / id / (id + "-threads.svg");
  ASSERT_TRUE(fs::exists(picture)) << picture << " is missing: run scripts/make-show-figures.sh";
  const ShowResult r = show_file(*tc, id, solution);
  ASSERT_EQ(r.verdict, Verdict::passed) << r.message;
  std::ifstream in(picture);
  const std::string committed((std::istreambuf_iterator<char>(in)), {});
  EXPECT_TRUE(committed == show_figure_svg(r))
      << picture << " is not what `cudalab show " << id
      << " --solution --svg` draws now: run scripts/make-show-figures.sh (and look at the pictures)";
  std::ifstream readme_in(kSourceDir / "exercises" / id / "README.md");
  const std::string readme((std::istreambuf_iterator<char>(readme_in)), {});
  EXPECT_NE(readme.find("](" + id + "-threads.svg)"), std::string::npos)
      << "exercises/" << id << "/README.md does not show its picture";
}

std::vector<std::string> exercise_ids() {
  std::vector<std::string> ids;
  for (const auto& t : all_tasks()) ids.push_back(t->info().id);
  return ids;
}

INSTANTIATE_TEST_SUITE_P(ShowFigures, Figure, testing::ValuesIn(exercise_ids()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(ShowCommand, WritesThePageSaysWhereAndExitsOneOnAFailure) {
  REQUIRE_CHECKED_SIM(tc);
  const fs::path file = kSourceDir / "tests/sanitize/01_increment/no_bounds_test_32_threads.cu";
  REQUIRE_FILE(file);
  const fs::path dir = scratch("cli");
  const ProcessResult p = run_cudalab({"show", "1", "--file", file.string(), "-o", (dir / "page.html").string(),
                                       "--svg", (dir / "figure.svg").string()});
  EXPECT_EQ(p.exit_code, 1) << p.output;
  EXPECT_NE(p.output.find("01_increment at n="), std::string::npos) << p.output;
  EXPECT_NE(p.output.find("page: " + (dir / "page.html").string()), std::string::npos) << p.output;
  EXPECT_TRUE(fs::is_regular_file(dir / "page.html"));
  std::ifstream svg(dir / "figure.svg");
  const std::string figure((std::istreambuf_iterator<char>(svg)), {});
  EXPECT_TRUE(figure.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\"")) << figure.substr(0, 100);
  EXPECT_EQ(figure.find("<title>thread"), std::string::npos) << "the README figure has no tooltips";
  fs::remove_all(dir);
}

TEST(ShowCommand, DrawsOneExercise) {
  const ProcessResult p = run_cudalab({"show", "1", "3"});
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("show draws one exercise"), std::string::npos) << p.output;
}

TEST(ShowCommand, AFailingCheckEndsWithTheCommandThatDrawsIt) {
  REQUIRE_CHECKED_SIM(tc);
  const fs::path file = kSourceDir / "tests/sanitize/01_increment/no_bounds_test_32_threads.cu";
  REQUIRE_FILE(file);
  const ProcessResult p = run_cudalab({"check", "1", "--backend", "sim", "--file", file.string()});
  EXPECT_EQ(p.exit_code, 1) << p.output;
  const std::size_t see = p.output.find("see it: cudalab show 01_increment --size ");
  ASSERT_NE(see, std::string::npos) << p.output;
  const std::string line = p.output.substr(see, p.output.find('\n', see) - see);
  EXPECT_NE(line.find("--file "), std::string::npos) << line;
  EXPECT_NE(line.find("no_bounds_test_32_threads.cu"), std::string::npos) << line;
  // The size drawn is a failing one with room for a picture (n=31 or more, not n=1).
  EXPECT_GE(std::stoll(line.substr(line.find("--size ") + 7)), 8) << line;
}

}  // namespace
}  // namespace cudalab
