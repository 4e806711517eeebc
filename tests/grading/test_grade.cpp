// `cudalab grade` end to end on the simulator: a class built from the project's own corpus (a
// correct student, a wrong answer, a compile error, a wrong signature, a crash, a hang, a flood,
// a CPU-computed result, an archive with `../` paths), graded with the right verdicts; the
// gradebook survives a SIGKILL and --resume finishes it with the rows an uninterrupted run writes.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "../support/files.hpp"
#include "../support/small_disk.hpp"
#include "cudalab/grading/gradebook.hpp"
#include "cudalab/grading/grader.hpp"
#include "cudalab/grading/rubric.hpp"
#include "cudalab/task.hpp"

namespace cudalab::grading {
namespace {

using testing_support::copy_file_to;
using testing_support::fresh_dir;
using testing_support::kSourceDir;
using testing_support::write_text;

namespace fs = std::filesystem;

/// A class of one student per kind of submission, each for one or two exercises.
fs::path make_corpus_class(const fs::path& root) {
  const fs::path c = root / "class";
  copy_file_to(kSourceDir / "solutions/01_increment/kernel.cu", c / "alice/exercises/01_increment/kernel.cu");
  copy_file_to(kSourceDir / "solutions/05_reduce/kernel.cu", c / "alice/exercises/05_reduce/kernel.cu");
  copy_file_to(kSourceDir / "tests/wrong/05_reduce/grid_too_small.cu", c / "bob/05_reduce/kernel.cu");
  write_text(c / "carol/01_increment/kernel.cu", "void solve(int* data, int n) { int x = ; }\n");
  copy_file_to(kSourceDir / "tests/misbehaving/wrong_signature.cu", c / "dave/increment.cu");
  copy_file_to(kSourceDir / "tests/misbehaving/crash.cu", c / "erin/01_increment/kernel.cu");
  copy_file_to(kSourceDir / "tests/misbehaving/hang.cu", c / "frank/01_increment/kernel.cu");
  copy_file_to(kSourceDir / "tests/misbehaving/flood.cu", c / "grace/01_increment/kernel.cu");
  copy_file_to(kSourceDir / "tests/wrong/05_reduce/cpu_sum.cu", c / "heidi/05_reduce/kernel.cu");
  // An archive whose entries try to leave the submission, beside a good kernel.
  const fs::path staging = root / "staging" / "inner";
  copy_file_to(kSourceDir / "solutions/01_increment/kernel.cu", staging / "01_increment/kernel.cu");
  write_text(root / "staging" / "escape.txt", "outside\n");
  const std::string tar = "cd '" + staging.string() + "' && tar -czPf '" + (c / "mallory.tar.gz").string() +
                          "' 01_increment/kernel.cu ../escape.txt";
  EXPECT_EQ(std::system(tar.c_str()), 0) << tar;
  write_text(c / "notes.txt", "not a submission\n");
  return c;
}

GradeOptions options_for(const fs::path& root) {
  setenv("CUDALAB_CACHE_DIR", CUDALAB_TEST_CACHE_DIR, 1);
  GradeOptions o;
  o.submissions = root / "class";
  o.out_dir = root / "out";
  o.backend = "sim";
  o.jobs = 2;
  o.timeout = std::chrono::seconds(2);
  o.seed = 20261123;
  return o;
}

const Attempt& at(const ClassResults& r, const std::string& student, const std::string& exercise) {
  const Attempt* a = r.find(student, exercise);
  if (a == nullptr) throw std::runtime_error(student + " has no attempt at " + exercise);
  return *a;
}

TEST(Grade, ACorpusOfSubmissionsGetsTheRightVerdictsScoresAndReports) {
  const fs::path root = fresh_dir("grade", "corpus");
  make_corpus_class(root);
  const GradeSummary s = grade_class(options_for(root));
  const ClassResults& r = s.results;
  EXPECT_EQ(s.students, 9u);
  EXPECT_NE(s.backend_line.find("backend: sim"), std::string::npos);
  ASSERT_EQ(s.skipped.size(), 1u);
  EXPECT_NE(s.skipped[0].find("notes.txt"), std::string::npos);

  EXPECT_EQ(at(r, "alice", "01_increment").verdict, "passed");
  EXPECT_EQ(at(r, "alice", "05_reduce").verdict, "passed");
  // On the simulator speed is not graded: full marks are the correctness points (rubric.toml).
  EXPECT_DOUBLE_EQ(at(r, "alice", "01_increment").score.total, 8);
  EXPECT_DOUBLE_EQ(at(r, "alice", "05_reduce").score.total, 17.5);
  EXPECT_FALSE(at(r, "alice", "05_reduce").speed_graded);
  EXPECT_EQ(r.find("alice", "03_matmul"), nullptr);
  EXPECT_EQ(at(r, "bob", "05_reduce").verdict, "wrong_output");
  EXPECT_LT(at(r, "bob", "05_reduce").score.total, 17.5);
  EXPECT_EQ(at(r, "carol", "01_increment").verdict, "compile_error");
  EXPECT_DOUBLE_EQ(at(r, "carol", "01_increment").score.total, 0);
  {
    // The compiler's messages name the student's file as submitted, not the instructor's folders.
    const Attempt& carol = at(r, "carol", "01_increment");
    ASSERT_FALSE(carol.checks.empty());
    ASSERT_FALSE(carol.checks[0].details.empty());
    const std::string& diagnostics = carol.checks[0].details[0];
    EXPECT_EQ(diagnostics.find(root.string()), std::string::npos) << diagnostics;
    EXPECT_NE(diagnostics.find(carol.source_path + ":"), std::string::npos) << diagnostics;
  }
  EXPECT_EQ(at(r, "dave", "01_increment").verdict, "wrong_signature");
  EXPECT_EQ(at(r, "erin", "01_increment").verdict, "crash");
  EXPECT_EQ(at(r, "frank", "01_increment").verdict, "timeout");
  EXPECT_EQ(at(r, "grace", "01_increment").verdict, "output_flood");
  EXPECT_EQ(at(r, "heidi", "05_reduce").verdict, "requirement_unmet");
  EXPECT_NEAR(at(r, "heidi", "05_reduce").score.total, 17.5 - 0.25 * 25, 1e-9);  // right output, penalised
  EXPECT_EQ(at(r, "mallory", "01_increment").verdict, "passed");
  bool refused = false;
  for (const auto& n : r.student_notes.at("mallory")) refused = refused || n.find("escape.txt") != std::string::npos;
  EXPECT_TRUE(refused) << "the ../ entry must be refused with a note";
  EXPECT_FALSE(fs::exists(root / "out" / "escape.txt"));
  EXPECT_FALSE(fs::exists(root / "out" / "work" / "escape.txt"));

  // Every report is written; none shows the secret seed.
  for (const char* f : {"grades.csv", "results.json", "junit.xml", "report.html", "summary.txt"}) {
    EXPECT_TRUE(fs::exists(root / "out" / f)) << f;
  }
  EXPECT_TRUE(fs::exists(root / "out" / "gradescope" / "alice" / "results.json"));
  EXPECT_TRUE(fs::exists(root / "out" / "feedback" / "bob.md"));
  for (const auto& entry : fs::recursive_directory_iterator(root / "out")) {
    if (!entry.is_regular_file() || entry.path().extension() == ".sqlite" ||
        entry.path().string().find("/work/") != std::string::npos) {
      continue;
    }
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(text.find("20261123"), std::string::npos) << entry.path() << " shows the grading seed";
  }
  fs::remove_all(root);
}

TEST(Grade, OnlyRegradesOneStudentAndLeavesTheOthersRowsAlone) {
  const fs::path root = fresh_dir("grade", "only");
  const fs::path c = root / "class";
  copy_file_to(kSourceDir / "solutions/01_increment/kernel.cu", c / "alice/01_increment/kernel.cu");
  copy_file_to(kSourceDir / "tests/wrong/01_increment/grid_too_small.cu", c / "bob/01_increment/kernel.cu");
  GradeOptions o = options_for(root);
  (void)grade_class(o);
  const auto before = Gradebook(o.out_dir / "gradebook.sqlite").attempts();
  ASSERT_EQ(before.size(), 2u);
  copy_file_to(kSourceDir / "solutions/01_increment/kernel.cu", c / "bob/01_increment/kernel.cu");  // bob fixes his
  o.only = {"bob"};
  const GradeSummary s = grade_class(o);
  const auto after = Gradebook(o.out_dir / "gradebook.sqlite").attempts();
  ASSERT_EQ(after.size(), 3u);
  EXPECT_EQ(after[0].id, before[0].id);
  EXPECT_EQ(after[0].graded_at, before[0].graded_at);
  EXPECT_EQ(after[2].student, "bob");
  EXPECT_EQ(at(s.results, "bob", "01_increment").verdict, "passed");
  const auto alice_before = std::ranges::find_if(before, [](const Attempt& a) { return a.student == "alice"; });
  ASSERT_NE(alice_before, before.end());
  EXPECT_EQ(at(s.results, "alice", "01_increment").id, alice_before->id) << "alice's row is the one graded before";
  // --resume with nothing changed grades nothing.
  o.only.clear();
  o.resume = true;
  const GradeSummary again = grade_class(o);
  EXPECT_EQ(again.graded, 0u);
  EXPECT_EQ(again.unchanged, 2u);
  // A name in --only that is not in the class is refused, naming the class, before any grading.
  o.resume = false;
  o.only = {"bobb"};
  try {
    (void)grade_class(o);
    ADD_FAILURE() << "--only bobb graded nobody and said nothing";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no submission named 'bobb' (the class: alice, bob)"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(Gradebook(o.out_dir / "gradebook.sqlite").attempts().size(), 3u);
  fs::remove_all(root);
}

TEST(Grade, AMalformedRubricStopsBeforeAnyGrading) {
  const fs::path root = fresh_dir("grade", "rubric");
  copy_file_to(kSourceDir / "solutions/01_increment/kernel.cu", root / "class/alice/01_increment/kernel.cu");
  write_text(root / "bad.toml", "[exercises.01_increment]\npoints = -3\n");
  GradeOptions o = options_for(root);
  o.rubric = root / "bad.toml";
  try {
    (void)grade_class(o);
    FAIL() << "a malformed rubric must stop grading";
  } catch (const RubricError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.toml:2: exercises.01_increment.points"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(root / "out" / "gradebook.sqlite")) << "nothing graded, nothing written";
  fs::remove_all(root);
}

/// Everything of an attempt a student is shown: its message, hints and every check's text.
std::string feedback_of(const Attempt& a) {
  std::string text = a.message;
  for (const auto& h : a.hints) text += "\n" + h;
  for (const auto& c : a.checks) {
    text += "\n" + c.message;
    for (const auto& d : c.details) text += "\n" + d;
    for (const auto& h : c.hints) text += "\n" + h;
  }
  return text;
}

TEST(Grade, NoSeedReachesASubmissionsFeedback) {
  // The class's secret seed, as `--seed-file` gives it; a submission that hunts for it through its
  // command line, environment, auxiliary vector and open descriptors, and throws with every number.
  constexpr std::uint64_t kSecret = 9876543210123456789ull;
  const std::string decimal = std::to_string(kSecret);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(kSecret));
  const fs::path root = fresh_dir("grade", "seed");
  copy_file_to(kSourceDir / "tests/grading/hunts_seed.cu", root / "class/mallory/01_increment/kernel.cu");
  GradeOptions o = options_for(root);
  o.seed = kSecret;
  const GradeSummary s = grade_class(o);
  const Attempt& a = at(s.results, "mallory", "01_increment");
  const std::string feedback = feedback_of(a);
  // The hunt itself worked: its numbers reached the feedback, among them the runner's thread-order
  // seed, which travels on the runner's command line (derived: it tells nothing of the seed).
  EXPECT_NE(feedback.find("numbers:"), std::string::npos) << feedback;
  EXPECT_NE(feedback.find(std::to_string(derive_from_seed(kSecret, "thread order"))), std::string::npos) << feedback;
  EXPECT_EQ(feedback.find(decimal), std::string::npos) << feedback;
  EXPECT_EQ(feedback.find(hex), std::string::npos) << feedback;
  // No file written for the class holds it either (the instructor's gradebook keeps it, in meta).
  std::size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(o.out_dir)) {
    if (!entry.is_regular_file() || entry.path().filename().string().starts_with("gradebook.sqlite")) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ++files;
    EXPECT_EQ(text.find(decimal), std::string::npos) << entry.path();
    EXPECT_EQ(text.find(hex), std::string::npos) << entry.path();
  }
  EXPECT_GE(files, 3u) << "the reports were written";
  for (const Attempt& row : Gradebook(o.out_dir / "gradebook.sqlite").attempts()) {
    EXPECT_EQ(feedback_of(row).find(decimal), std::string::npos);
  }
  fs::remove_all(root);
}

/// The rows that must not depend on whether grading was interrupted.
std::vector<std::string> comparable(const std::vector<Attempt>& attempts) {
  std::vector<std::string> rows;
  for (const auto& a : attempts) {
    std::string row = a.student + "|" + a.exercise + "|" + a.source_hash + "|" + a.verdict + "|" + a.message + "|" +
                      std::to_string(a.score.total);
    for (const auto& c : a.checks) row += "|" + c.label + ":" + c.verdict + ":" + c.message;
    rows.push_back(row);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

int run_grading(const std::vector<std::string>& args, pid_t* child_out = nullptr) {
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("CUDALAB_CACHE_DIR", CUDALAB_TEST_CACHE_DIR, 1);
    std::vector<char*> argv;
    const std::string program = std::string(CUDALAB_BIN_DIR) + "/cudalab-grading";
    argv.push_back(const_cast<char*>(program.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const int devnull = ::open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  if (child_out != nullptr) {
    *child_out = pid;
    return 0;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A disk too full to compile on stops the class with exit 2 and one line; nobody's row says their
// file does not compile; `--resume` on a fixed machine grades everyone.
TEST(Grade, AFullDiskStopsGradingAndResumeFinishesOnceItIsFixed) {
  const fs::path root = fresh_dir("grade", "disk");
  for (const char* student : {"s1", "s2", "s3"}) {
    copy_file_to(kSourceDir / "solutions/01_increment/kernel.cu", root / "class" / student / "01_increment/kernel.cu");
  }
  const fs::path cache = root / "cache";
  fs::create_directories(cache);
  const std::string grade = "'" CUDALAB_BIN_DIR "/cudalab-grading' grade '" + (root / "class").string() + "' --out '" +
                            (root / "out").string() + "' --backend sim --jobs 2 --seed 5 --color never";
  const auto full =
      testing_support::with_small_disk(cache, "64k", "CUDALAB_CACHE_DIR='" + cache.string() + "' " + grade + " 2>&1");
  if (!full) GTEST_SKIP() << "this machine lets no test make a mount namespace of its own (unshare -rm)";
  EXPECT_EQ(full->exit_code, 2) << full->output;
  EXPECT_NE(
      full->output.find("cudalab: grading stopped, no student's fault: " + (cache / "sim").string() + " has only"),
      std::string::npos)
      << full->output;
  EXPECT_NE(full->output.find("(then go on with --resume)"), std::string::npos) << full->output;
  if (fs::exists(root / "out" / "gradebook.sqlite")) {
    for (const Attempt& a : Gradebook(root / "out" / "gradebook.sqlite").attempts()) {
      EXPECT_EQ(a.verdict, "passed") << a.student << ": " << a.message;  // only what was graded before
    }
  }
  ASSERT_EQ(run_grading({"grade", (root / "class").string(), "--out", (root / "out").string(), "--backend", "sim",
                         "--jobs", "2", "--seed", "5", "--resume"}),
            0);
  const std::vector<Attempt> rows = Gradebook(root / "out" / "gradebook.sqlite").attempts();
  EXPECT_EQ(rows.size(), 3u);
  for (const Attempt& a : rows) EXPECT_EQ(a.verdict, "passed") << a.student << ": " << a.message;
  fs::remove_all(root);
}

TEST(Grade, ARunKilledMidwayAndResumedWritesTheRowsOfAnUninterruptedRun) {
  const fs::path root = fresh_dir("grade", "kill");
  const fs::path c = root / "class";
  for (const char* student : {"s1", "s2", "s3", "s4", "s5", "s6"}) {
    copy_file_to(kSourceDir / "solutions/01_increment/kernel.cu", c / student / "01_increment/kernel.cu");
    copy_file_to(kSourceDir / "tests/wrong/02_vector_add/ignores_b.cu", c / student / "02_vector_add/kernel.cu");
  }
  const std::vector<std::string> common = {"--backend", "sim", "--jobs", "1", "--seed", "77", "--timeout", "10"};
  auto args = [&](const std::string& out, bool resume) {
    std::vector<std::string> a = {"grade", c.string(), "--out", (root / out).string()};
    a.insert(a.end(), common.begin(), common.end());
    if (resume) a.push_back("--resume");
    return a;
  };
  ASSERT_EQ(run_grading(args("whole", false)), 0);
  const auto whole = comparable(Gradebook(root / "whole" / "gradebook.sqlite").attempts());
  ASSERT_EQ(whole.size(), 12u);

  // Kill it once some attempts are in the gradebook and others are not.
  pid_t pid = 0;
  run_grading(args("killed", false), &pid);
  const fs::path book = root / "killed" / "gradebook.sqlite";
  std::size_t rows = 0;
  for (int i = 0; i < 600 && rows < 3; ++i) {  // at most 60 s
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (fs::exists(book)) {
      try {
        rows = Gradebook(book).attempts().size();
      } catch (const GradebookError&) {
        rows = 0;  // being created
      }
    }
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  const std::size_t kept = Gradebook(book).attempts().size();
  ASSERT_GE(kept, 3u);
  ASSERT_LT(kept, 12u) << "the run finished before it could be killed; the test proves nothing";

  ASSERT_EQ(run_grading(args("killed", true)), 0);
  EXPECT_EQ(comparable(Gradebook(book).attempts()), whole);
  fs::remove_all(root);
}

}  // namespace
}  // namespace cudalab::grading
