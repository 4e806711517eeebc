// `cudalab export`: the student distribution holds the skeletons and the tools and no solution,
// refuses to write where it must not, and (the one slow test) builds and runs as a student's CI
// would run it. The CI templates call one script, .ci/student-check.sh, which the slow test runs in
// the exported tree; the Gradescope scripts are checked as far as a machine without Gradescope
// allows (syntax, the autograder zip's contents, run_autograder around a stand-in cudalab).
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/files.hpp"
#include "cudalab/diagnostics.hpp"
#include "cudalab/grading/export.hpp"

namespace cudalab::grading {
namespace {

using testing_support::kSourceDir;
using testing_support::read_text;
using testing_support::write_text;

namespace fs = std::filesystem;

struct Run {
  int rc = -1;
  std::string output;
};

/// Runs a shell command line, stdout and stderr together.
Run sh(const std::string& command) {
  Run r;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf{};
  while (const std::size_t n = std::fread(buf.data(), 1, buf.size(), p)) r.output.append(buf.data(), n);
  const int status = ::pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

bool executable(const fs::path& p) { return ::access(p.c_str(), X_OK) == 0; }

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

std::vector<std::string> exercise_ids() {
  std::vector<std::string> ids;
  for (const auto& e : fs::directory_iterator(kSourceDir / "exercises")) {
    if (e.is_directory() && fs::exists(e.path() / "task.cpp")) ids.push_back(e.path().filename().string());
  }
  std::ranges::sort(ids);
  return ids;
}

class ExportTest : public testing::Test {
 protected:
  void SetUp() override {
    const auto* info = testing::UnitTest::GetInstance()->current_test_info();
    base_ = fs::temp_directory_path() / ("cudalab-export-" + std::string(info->test_suite_name()) + "-" + info->name() +
                                         "-" + std::to_string(::getpid()));
    fs::remove_all(base_);
    fs::create_directories(base_);
  }
  void TearDown() override { fs::remove_all(base_); }

  /// A minimal project: enough for the export's checks, nothing to build.
  fs::path fake_project() {
    const fs::path p = base_ / "project";
    write_text(p / "README.md", "# course\n");
    write_text(p / "CMakeLists.txt", "project(x)\n");
    write_text(p / "harness/include/x.hpp", "// x\n");
    write_text(p / "exercises/01_a/kernel.cu", "// skeleton: TODO\n");
    write_text(p / "solutions/01_a/kernel.cu", "// the answer\n");
    fs::create_directories(p / "grading/ci");
    for (const char* f : {"github-actions.yml", "gitlab-ci.yml", "student-check.sh", "cudalab-problem-matcher.json"}) {
      fs::copy_file(kSourceDir / "grading/ci" / f, p / "grading/ci" / f, fs::copy_options::none);
    }
    return p;
  }

  fs::path base_;
};

using ExportCi = ExportTest;
using ExportGradescope = ExportTest;

TEST_F(ExportTest, DistributionHasTheSkeletonsAndNoSolution) {
  const fs::path out = base_ / "student";
  export_distribution(kSourceDir, out);

  // Every exercise's student-facing files, unchanged.
  const auto ids = exercise_ids();
  ASSERT_FALSE(ids.empty());
  for (const auto& id : ids) {
    for (const char* f : {"README.md", "kernel.cu", "task.cpp"}) {
      const fs::path rel = fs::path("exercises") / id / f;
      ASSERT_TRUE(fs::exists(out / rel)) << rel;
      EXPECT_EQ(read_text(out / rel), read_text(kSourceDir / rel)) << rel;
    }
  }
  for (const char* f : {"README.md",
                        "CMakeLists.txt",
                        "CMakePresets.json",
                        ".clang-format",
                        ".clang-tidy",
                        ".gitignore",
                        "cudalab",
                        ".ci/run",
                        "cmake/CudalabTasks.cmake",
                        "scripts/setup.sh",
                        "scripts/test.sh",
                        "scripts/debian-packages.txt",
                        "harness/CMakeLists.txt",
                        "docs/architecture.md",
                        "bench/CMakeLists.txt",
                        "bench/cpu/CMakeLists.txt",
                        "tests/CMakeLists.txt",
                        "tests/fixtures/CMakeLists.txt",
                        ".github/workflows/cudalab.yml",
                        ".gitlab-ci.yml",
                        ".ci/student-check.sh",
                        ".github/cudalab-problem-matcher.json"}) {
    EXPECT_TRUE(fs::is_regular_file(out / f)) << f;
  }
  for (const char* f : {"cudalab", "scripts/setup.sh", "scripts/test.sh", ".ci/run", ".ci/student-check.sh"}) {
    EXPECT_TRUE(executable(out / f)) << f << " must stay executable";
  }
  EXPECT_EQ(read_text(out / ".github/workflows/cudalab.yml"), read_text(kSourceDir / "grading/ci/github-actions.yml"));
  EXPECT_EQ(read_text(out / ".gitlab-ci.yml"), read_text(kSourceDir / "grading/ci/gitlab-ci.yml"));

  // Nothing that reveals a solution or the grading.
  for (const char* gone : {"solutions", "grading", "tests/grading", "tests/wrong", "tests/sanitize", "tests/explain",
                           "bench/sim", "scripts/device.sh", "scripts/gpu_acceptance.py", "build"}) {
    EXPECT_FALSE(fs::exists(out / gone)) << gone;
  }
  std::set<std::string> solution_texts;
  for (const auto& e : fs::recursive_directory_iterator(kSourceDir / "solutions")) {
    if (e.is_regular_file() && e.path().extension() == ".cu") solution_texts.insert(read_text(e.path()));
  }
  ASSERT_GE(solution_texts.size(), ids.size());
  std::size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    EXPECT_FALSE(e.is_symlink()) << e.path();
    if (!e.is_regular_file()) continue;
    ++files;
    EXPECT_FALSE(solution_texts.contains(read_text(e.path()))) << e.path() << " is a reference solution";
    EXPECT_NE(e.path().filename(), "CMakeCache.txt") << "a build tree was exported: " << e.path();
    EXPECT_NE(e.path().filename(), "rubric.toml") << e.path();
  }
  EXPECT_GT(files, 100u);
}

TEST_F(ExportTest, RefusesAnOutDirInsideTheProjectOrNotEmptyBeforeWritingAnything) {
  const fs::path project = fake_project();
  auto refusal = [&](const fs::path& out) {
    try {
      export_distribution(project, out);
    } catch (const ExportError& e) {
      return std::string(e.what());
    }
    return std::string("(no refusal)");
  };
  EXPECT_EQ(refusal(project / "dist"), "refusing to export into " + (project / "dist").string() +
                                           ": it is inside the project " + project.string() +
                                           " (choose a folder outside it)");
  EXPECT_FALSE(fs::exists(project / "dist"));
  EXPECT_NE(refusal(project).find("it is inside the project"), std::string::npos);
  EXPECT_NE(refusal(project / "exercises/../dist").find("it is inside the project"), std::string::npos);

  write_text(base_ / "full/keep.txt", "mine");
  EXPECT_EQ(refusal(base_ / "full"), "refusing to export into " + (base_ / "full").string() + ": it is not empty");
  EXPECT_EQ(read_text(base_ / "full/keep.txt"), "mine");
  write_text(base_ / "a-file", "x");
  EXPECT_NE(refusal(base_ / "a-file").find("it is a file, not a folder"), std::string::npos);

  fs::create_directories(base_ / "empty");
  EXPECT_EQ(refusal(base_ / "empty"), "(no refusal)") << "an existing empty folder is fine";
  EXPECT_TRUE(fs::exists(base_ / "empty/exercises/01_a/kernel.cu"));
  EXPECT_FALSE(fs::exists(base_ / "empty/solutions"));

  write_text(base_ / "not-a-project/README.md", "x");
  try {
    export_distribution(base_ / "not-a-project", base_ / "out2");
    FAIL() << "not a project";
  } catch (const ExportError& e) {
    EXPECT_NE(std::string(e.what()).find("is not a cudalab project (it has no CMakeLists.txt)"), std::string::npos)
        << e.what();
  }
}

TEST_F(ExportTest, RefusesASkeletonThatIsASolution) {
  const fs::path project = fake_project();
  fs::copy_file(project / "solutions/01_a/kernel.cu", project / "exercises/01_a/kernel.cu",
                fs::copy_options::overwrite_existing);
  try {
    export_distribution(project, base_ / "out");
    FAIL() << "a solution would have been exported";
  } catch (const ExportError& e) {
    EXPECT_EQ(std::string(e.what()),
              "refusing to export: exercises/01_a/kernel.cu is identical to solutions/01_a/kernel.cu, a reference "
              "solution");
  }
  EXPECT_FALSE(fs::exists(base_ / "out")) << "a refused export writes nothing";
}

TEST_F(ExportTest, LeavesOutHiddenFilesBuildTreesAndBackups) {
  const fs::path project = fake_project();
  write_text(project / "exercises/01_a/.notes", "private");
  write_text(project / "exercises/01_a/kernel.cu~", "backup");
  write_text(project / "exercises/build/CMakeCache.txt", "a build tree");
  write_text(project / "exercises/build/x.o", "object");
  write_text(project / "tests/wrong/01_a/off_by_one.cu", "near-solution");
  write_text(project / "tests/unit/test_x.cpp", "kept");
  write_text(project / "grading/rubric.toml", "secret");
  export_distribution(project, base_ / "out");
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(base_ / "out")) {
    if (e.is_regular_file()) files.push_back(e.path().lexically_relative(base_ / "out").generic_string());
  }
  std::ranges::sort(files);
  EXPECT_EQ(files,
            (std::vector<std::string>{".ci/student-check.sh", ".github/cudalab-problem-matcher.json",
                                      ".github/workflows/cudalab.yml", ".gitlab-ci.yml", "CMakeLists.txt", "README.md",
                                      "exercises/01_a/kernel.cu", "harness/include/x.hpp", "tests/unit/test_x.cpp"}));
}

/// The commands of the CI templates: GitHub's `run:` values and GitLab's `script:` items.
std::vector<std::string> ci_commands(const fs::path& file) {
  std::vector<std::string> out;
  std::istringstream in(read_text(file));
  bool in_script = false;
  for (std::string line; std::getline(in, line);) {
    const auto start = line.find_first_not_of(' ');
    if (start == std::string::npos || line[start] == '#') continue;
    const std::string text = line.substr(start);
    if (text.starts_with("run:") || text.starts_with("- run:")) {
      out.push_back(text.substr(text.find(':') + 2));
    } else if (text == "script:") {
      in_script = true;
      continue;
    } else if (in_script && text.starts_with("- ")) {
      out.push_back(text.substr(2));
      continue;
    }
    in_script = false;
  }
  return out;
}

TEST_F(ExportCi, BothTemplatesRunTheOneScriptThatTheSlowTestRuns) {
  const std::vector<std::string> expected{"bash .ci/student-check.sh"};
  EXPECT_EQ(ci_commands(kSourceDir / "grading/ci/github-actions.yml"), expected);
  EXPECT_EQ(ci_commands(kSourceDir / "grading/ci/gitlab-ci.yml"), expected);
  const std::string gitlab = read_text(kSourceDir / "grading/ci/gitlab-ci.yml");
  EXPECT_NE(gitlab.find("reports:\n      junit: report.xml"), std::string::npos);
  const std::string github = read_text(kSourceDir / "grading/ci/github-actions.yml");
  EXPECT_NE(github.find("actions/upload-artifact"), std::string::npos);
  EXPECT_NE(github.find("report_paths: report.xml"), std::string::npos);
  const std::string script = read_text(kSourceDir / "grading/ci/student-check.sh");
  EXPECT_NE(script.find("check --all --backend sim --junit report.xml"), std::string::npos);
  EXPECT_NE(script.find("GITHUB_STEP_SUMMARY"), std::string::npos);
  EXPECT_NE(script.find("::add-matcher::.github/cudalab-problem-matcher.json"), std::string::npos);
}

TEST_F(ExportCi, TheProblemMatcherReadsCheckLinesAsAnnotations) {
  // GitHub runs the matcher's regexp (JavaScript's) on each line of the job's log; std::regex's
  // ECMAScript grammar is the same for what it uses.
  const auto matcher = nlohmann::json::parse(read_text(kSourceDir / "grading/ci/cudalab-problem-matcher.json"));
  const auto& pattern = matcher["problemMatcher"][0]["pattern"][0];
  const std::regex regexp(pattern["regexp"].get<std::string>());
  const auto group = [&](const std::smatch& m, const char* name) { return m[pattern[name].get<int>()].str(); };
  const SourceDiagnostic race{"exercises/03_matmul/kernel.cu",
                              18,
                              1,
                              Severity::error,
                              "data_race",
                              "data race at M=1 N=1 K=1: thread (0,0) read As[0][1] [twice]"};
  std::smatch m;
  const std::string line = gcc_line(race);
  ASSERT_TRUE(std::regex_match(line, m, regexp)) << line;
  EXPECT_EQ(group(m, "file"), "exercises/03_matmul/kernel.cu");
  EXPECT_EQ(group(m, "line"), "18");
  EXPECT_EQ(group(m, "column"), "1");
  EXPECT_EQ(group(m, "severity"), "error");
  EXPECT_EQ(group(m, "message"), race.message);
  EXPECT_EQ(group(m, "code"), "data_race");
  const SourceDiagnostic warning{"k.cu", 3, 5, Severity::warning, "compiler", "unused variable 'y'"};
  const std::string warning_line = gcc_line(warning);
  ASSERT_TRUE(std::regex_match(warning_line, m, regexp)) << warning_line;
  EXPECT_EQ(group(m, "severity"), "warning");
  // A fix is a note: in the log, not an annotation of its own.
  EXPECT_FALSE(std::regex_match(gcc_line({"k.cu", 3, 1, Severity::note, "data_race", "add a barrier"}), regexp));
}

TEST_F(ExportCi, ShellScriptsParse) {
  for (const char* f : {"grading/ci/student-check.sh", "grading/gradescope/setup.sh",
                        "grading/gradescope/run_autograder", "grading/gradescope/make-autograder.sh"}) {
    const auto r = sh("bash -n " + quoted(kSourceDir / f));
    EXPECT_EQ(r.rc, 0) << f << ":\n" << r.output;
    EXPECT_TRUE(executable(kSourceDir / f)) << f;
  }
}

TEST_F(ExportGradescope, AutograderZipHoldsTheProjectButNoSecrets) {
  const fs::path zip = base_ / "autograder.zip";
  const auto made = sh(quoted(kSourceDir / "grading/gradescope/make-autograder.sh") + " " + quoted(zip));
  ASSERT_EQ(made.rc, 0) << made.output;
  const auto listed = sh("cd " + quoted(base_) + " && cmake -E tar tf " + quoted(zip));
  ASSERT_EQ(listed.rc, 0) << listed.output;
  std::set<std::string> names;
  std::istringstream in(listed.output);
  for (std::string line; std::getline(in, line);) names.insert(line);
  for (const char* f : {"setup.sh", "run_autograder", "cudalab/CMakeLists.txt", "cudalab/grading/rubric.toml",
                        "cudalab/exercises/03_matmul/task.cpp", "cudalab/scripts/debian-packages.txt"}) {
    EXPECT_TRUE(names.contains(f)) << f;
  }
  for (const auto& n : names) {
    for (const char* secret :
         {"cudalab/solutions/", "cudalab/tests/wrong/", "cudalab/bench/", "cudalab/build/", "cudalab/.git/"}) {
      EXPECT_FALSE(n.starts_with(secret)) << n;
    }
  }
}

TEST_F(ExportGradescope, RunAutograderAlwaysWritesResults) {
  const fs::path ag = base_ / "autograder";
  write_text(ag / "submission/exercises/03_matmul/kernel.cu", "// mine\n");
  write_text(ag / "submission/.git/HEAD", "ref\n");
  // A stand-in for `cudalab grade DIR --out OUT`: writes OUT/gradescope/<student>/results.json
  // naming what it was given.
  const fs::path stub = base_ / "cudalab-stub";
  write_text(stub,
             "#!/usr/bin/env bash\n"
             "[ \"$1\" = grade ] && [ \"$3\" = --out ] || exit 9\n"
             "mkdir -p \"$4/gradescope/submission\"\n"
             "files=$(cd \"$2\" && find . -type f | sort | tr '\\n' ' ')\n"
             "printf '{\"score\": 7, \"output\": \"%s\"}' \"$files\" > \"$4/gradescope/submission/results.json\"\n");
  fs::permissions(stub, fs::perms::owner_all);
  const std::string env = "AUTOGRADER_DIR=" + quoted(ag) + " CUDALAB_BIN=" + quoted(stub) + " ";
  const fs::path script = kSourceDir / "grading/gradescope/run_autograder";
  auto r = sh(env + quoted(script));
  ASSERT_EQ(r.rc, 0) << r.output;
  auto results = nlohmann::json::parse(read_text(ag / "results/results.json"));
  EXPECT_EQ(results["score"], 7);
  EXPECT_EQ(results["output"], "./submission/.git/HEAD ./submission/exercises/03_matmul/kernel.cu ");

  // One archive uploaded as it is: the class folder gets it as the student's archive.
  fs::remove_all(ag / "submission");
  write_text(ag / "submission/Work.TGZ", "archive bytes");
  r = sh(env + quoted(script));
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(read_text(ag / "results/results.json"))["output"], "./submission.tgz ");

  // Grading fails outright: still valid JSON, score 0, and the reason.
  write_text(stub, "#!/usr/bin/env bash\necho 'cudalab: \"rubric\" is broken\\here\t(tab)'\nexit 2\n");
  r = sh(env + quoted(script));
  ASSERT_EQ(r.rc, 0) << r.output;
  results = nlohmann::json::parse(read_text(ag / "results/results.json"));
  EXPECT_EQ(results["score"], 0);
  EXPECT_NE(results["output"].get<std::string>().find("could not grade this submission (exit 2)"), std::string::npos);
  EXPECT_NE(results["output"].get<std::string>().find("cudalab: \"rubric\" is broken\\here\t(tab)"), std::string::npos)
      << results["output"];
}

// run_autograder around the real `cudalab grade`, in a stand-in /autograder whose source/cudalab
// is this project: a repository-style submission gets its Gradescope results (a few seconds: one
// kernel compiled for the simulator).
TEST_F(ExportGradescope, RunAutograderGradesARepositorySubmission) {
  const fs::path ag = base_ / "autograder";
  fs::create_directories(ag / "source");
  fs::create_directory_symlink(kSourceDir, ag / "source/cudalab");
  fs::create_directories(ag / "submission/exercises/01_increment");
  fs::copy_file(kSourceDir / "solutions/01_increment/kernel.cu", ag / "submission/exercises/01_increment/kernel.cu");
  const auto r = sh("AUTOGRADER_DIR=" + quoted(ag) + " CUDALAB_BIN=" + quoted(fs::path(CUDALAB_BIN_DIR) / "cudalab") +
                    " " + quoted(kSourceDir / "grading/gradescope/run_autograder"));
  ASSERT_EQ(r.rc, 0) << r.output;
  const auto results = nlohmann::json::parse(read_text(ag / "results/results.json"));
  ASSERT_TRUE(results.contains("tests")) << results.dump(2) << "\n" << read_text(ag / "cudalab-work/grade.log");
  EXPECT_GT(results["score"].get<double>(), 0) << results.dump(2);
  bool passed = false;
  for (const auto& t : results["tests"]) passed = passed || (t["name"] == "01_increment" && t["status"] == "passed");
  EXPECT_TRUE(passed) << results.dump(2);
}

// The slow one: the exported tree configures and builds with no GPU backend, and the commands a
// student's CI runs give the skeletons' verdicts. The CI script is run with the same build folder,
// so the tree is built once. Where ccache is installed the build takes the objects the project's
// own build made from the same sources (same build type, the build folder as deep below the root:
// ccache hashes paths relative to it), seconds instead of about three minutes on 2 cores.
TEST_F(ExportTest, ExportedTreeBuildsAndChecks) {
  const fs::path out = base_ / "student";
  export_distribution(kSourceDir, out);
  const std::string env = "unset CUDALAB_ROOT; export CUDALAB_CACHE_DIR=" + quoted(out / "build/module-cache") + "; ";
  const fs::path build_dir = out / "build/default";
  const auto configure = sh(env + "cmake -S " + quoted(out) + " -B " + quoted(build_dir) +
                            " -G Ninja -DCUDALAB_BUILD_BENCH=OFF -DBUILD_TESTING=OFF -DCUDALAB_ENABLE_CUDA=OFF"
                            " -DCMAKE_BUILD_TYPE=RelWithDebInfo");
  ASSERT_EQ(configure.rc, 0) << configure.output
                             << (configure.output.find("add_subdirectory given source") != std::string::npos
                                     ? "\nthe project's CMakeLists.txt files must add grading/ and tests/grading/ "
                                       "only where they exist (if(EXISTS ...)): the export leaves them out"
                                     : "");
  const auto build = sh("cmake --build " + quoted(build_dir) + " --target cudalab -j2");
  ASSERT_EQ(build.rc, 0) << build.output.substr(build.output.size() > 8000 ? build.output.size() - 8000 : 0);

  const std::string cudalab = quoted(build_dir / "bin/cudalab");
  const auto check = sh(env + "cd " + quoted(out) + " && " + cudalab + " check --all --backend sim --color never");
  EXPECT_EQ(check.rc, 1) << check.output;
  const auto ids = exercise_ids();
  for (const auto& id : ids) {
    EXPECT_NE(check.output.find(id), std::string::npos) << id << "\n" << check.output;
  }
  EXPECT_GE(count(check.output, "not implemented"), ids.size()) << check.output;
  const auto list = sh(env + "cd " + quoted(out) + " && " + cudalab + " list");
  EXPECT_EQ(list.rc, 0) << list.output;
  for (const auto& id : ids) EXPECT_NE(list.output.find(id), std::string::npos) << list.output;

  // The student CI's own script, in the same build folder.
  const fs::path summary = base_ / "step-summary.md";
  const auto ci = sh(env + "CUDALAB_BUILD_DIR=build/default GITHUB_STEP_SUMMARY=" + quoted(summary) + " bash " +
                     quoted(out / ".ci/student-check.sh"));
  EXPECT_EQ(ci.rc, 1) << ci.output;
  const std::string junit = read_text(out / "report.xml");
  EXPECT_NE(junit.find("<testsuites"), std::string::npos) << junit.substr(0, 2000);
  for (const auto& id : ids) EXPECT_NE(junit.find(id), std::string::npos) << id;
  EXPECT_GE(count(junit, "not implemented"), ids.size());
  EXPECT_GE(count(read_text(out / "check.txt"), "not implemented"), ids.size());
  EXPECT_NE(read_text(summary).find("### cudalab check --all --backend sim: exit 1"), std::string::npos)
      << read_text(summary);

  // With the test suite on, the tree still configures without solutions/ and grading/.
  const auto tests = sh("cmake -S " + quoted(out) + " -B " + quoted(out / "build-tests") +
                        " -G Ninja -DCUDALAB_BUILD_BENCH=OFF -DBUILD_TESTING=ON -DCUDALAB_ENABLE_CUDA=OFF");
  EXPECT_EQ(tests.rc, 0) << tests.output;
}

}  // namespace
}  // namespace cudalab::grading
