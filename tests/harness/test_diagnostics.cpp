// A check's results placed in the student's file (diagnostics.hpp): GCC's `file:line:col:` lines
// for editors and problem matchers, and the SARIF log, from a hand-made result whose every line
// is known.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalab/diagnostics.hpp"
#include "cudalab/registry.hpp"

namespace cudalab {
namespace {

namespace fs = std::filesystem;

/// A kernel file whose `solve` is defined on line 6, in a fresh folder.
fs::path kernel_file() {
  const fs::path dir = fs::path(testing::TempDir()) / "cudalab-diagnostics";
  fs::create_directories(dir);
  const fs::path file = dir / "kernel.cu";
  std::ofstream(file) << "#include <cuda_runtime.h>\n"
                         "__global__ void add(float* x, int n) {\n"
                         "  x[threadIdx.x] += 1;\n"
                         "}\n"
                         "\n"
                         "void solve(float* x, int n) {\n"
                         "  add<<<1, 256>>>(x, n);\n"
                         "}\n";
  return file;
}

CaseResult failing_case(std::int64_t n, Verdict verdict, std::string message) {
  CaseResult c;
  c.c.dims = {{"n", n}};
  c.verdict = verdict;
  c.message = std::move(message);
  return c;
}

ExerciseResult result_with(const fs::path& source) {
  ExerciseResult r;
  r.task = find_task("01_increment");
  r.source = source;
  r.compile.ok = true;
  return r;
}

std::vector<std::string> gcc_lines_of(const ExerciseResult& r) {
  std::vector<std::string> out;
  for (const SourceDiagnostic& d : source_diagnostics(r)) out.push_back(gcc_line(d));
  return out;
}

TEST(Diagnostics, FindingsAtTheirLinesFailuresAtSolveAndEachSaidOnce) {
  const fs::path file = kernel_file();
  const std::string f = file.string();  // outside the working folder: the path stays absolute
  ExerciseResult r = result_with(file);
  r.compile.diagnostics =
      f + ":3:5: warning: unused variable 'y' [-Wunused-variable]\n" + f + ": In function 'void add(float*, int)':\n";
  CaseResult race = failing_case(1, Verdict::data_race, "data race at n=1: …");
  race.placed = {
      {Verdict::data_race, 3, "thread (1) of block (0) read x[1]\nbefore thread (0) wrote it", "add a barrier"},
      {Verdict::uninitialized_read, 0, "x[7] read before anything wrote it", "write it first"}};
  CaseResult same_race = race;  // the next size finds the same: said once
  same_race.c.dims = {{"n", 2}};
  CaseResult wrong =
      failing_case(1000, Verdict::wrong_output, "wrong output at n=1000: 744 of 1000 elements of x wrong");
  wrong.hints = {"does the grid cover all n elements?"};
  CaseResult wrong_again = failing_case(4097, Verdict::wrong_output, "wrong output at n=4097: 3841 of 4097 …");
  r.cases = {race, same_race, failing_case(7, Verdict::passed, ""), wrong, wrong_again};
  r.hints = {"fails exactly when n > 256"};
  r.verdict = Verdict::data_race;

  const std::vector<std::string> expected = {
      f + ":3:5: warning: unused variable 'y' [-Wunused-variable] [compiler]",
      f + ":3:1: error: data race at n=1: thread (1) of block (0) read x[1] before thread (0) wrote it [data_race]",
      f + ":3:1: note: add a barrier [data_race]",
      // A finding without a line is shown where solve is defined.
      f + ":6:1: error: uninitialised read at n=1: x[7] read before anything wrote it [uninitialized_read]",
      f + ":6:1: note: write it first [uninitialized_read]",
      f + ":6:1: error: wrong output at n=1000: 744 of 1000 elements of x wrong [wrong_output]",
      f + ":6:1: note: does the grid cover all n elements? [wrong_output]",
      f + ":6:1: note: fails exactly when n > 256 [data_race]"};
  EXPECT_EQ(gcc_lines_of(r), expected);
}

TEST(Diagnostics, CompilerMessagesKeepTheirPlaceAndAFailureWithoutOneIsTheFiles) {
  const fs::path file = kernel_file();
  ExerciseResult r = result_with(file);
  r.compile.ok = false;
  r.verdict = Verdict::compile_error;
  // nvcc's messages once gcc_style_locations has rewritten them: a line, no column.
  r.compile.diagnostics = gcc_style_locations(file.string() + "(7): error: identifier \"ad\" is undefined\n");
  EXPECT_EQ(gcc_lines_of(r),
            std::vector<std::string>{file.string() + ":7:1: error: identifier \"ad\" is undefined [compiler]"});
  r.compile.diagnostics = "ld: cannot find -lcudalab_sim\n";
  EXPECT_EQ(gcc_lines_of(r),
            std::vector<std::string>{file.string() + ":1:1: error: the file does not compile [compile_error]"});
  // A pass says nothing.
  ExerciseResult passed = result_with(file);
  passed.cases = {failing_case(1, Verdict::passed, "")};
  EXPECT_TRUE(source_diagnostics(passed).empty());
}

TEST(Diagnostics, SarifHasARulePerVerdictAndAResultPerDiagnostic) {
  const fs::path file = kernel_file();
  ExerciseResult r = result_with(file);
  CaseResult race = failing_case(1, Verdict::data_race, "data race at n=1: …");
  race.placed = {{Verdict::data_race, 3, "thread (1) read x[1] before thread (0) wrote it", "add a barrier"}};
  r.cases = {race};
  const nlohmann::json log = sarif_log({r});
  EXPECT_EQ(log["version"], "2.1.0");
  ASSERT_EQ(log["runs"].size(), 1u);
  const auto& run = log["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "cudalab");
  ASSERT_EQ(run["tool"]["driver"]["rules"].size(), 1u);
  EXPECT_EQ(run["tool"]["driver"]["rules"][0]["id"], "data_race");
  EXPECT_EQ(run["tool"]["driver"]["rules"][0]["shortDescription"]["text"], "data race");
  ASSERT_EQ(run["results"].size(), 2u);  // the finding, and its fix as a note
  const auto& first = run["results"][0];
  EXPECT_EQ(first["ruleId"], "data_race");
  EXPECT_EQ(first["level"], "error");
  EXPECT_EQ(run["results"][1]["level"], "note");
  const auto& place = first["locations"][0]["physicalLocation"];
  EXPECT_EQ(place["artifactLocation"]["uri"], "file://" + file.generic_string());
  EXPECT_EQ(place["region"]["startLine"], 3);
  EXPECT_NE(first["message"]["text"].get<std::string>().find("01_increment: data race at n=1: thread (1)"),
            std::string::npos)
      << first.dump();
}

}  // namespace
}  // namespace cudalab
