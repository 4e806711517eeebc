// The rubric: the documented default reads, a malformed one is one line naming the key and the
// line, and scores follow the rules (CS149-like speed curve, penalties, lateness).
#include <gtest/gtest.h>

#include "cudalab/grading/rubric.hpp"
#include "cudalab/registry.hpp"

namespace cudalab::grading {
namespace {

/// A course of three, for the rules and the messages: the tests follow the course's rubric, never
/// pin its list or its total (adding an exercise is its folder, its solution and its rubric line).
const std::vector<std::string> kKnown = {"01_increment", "03_matmul", "05_reduce"};

/// The course as the registry has it.
std::vector<std::string> course() {
  std::vector<std::string> ids;
  for (const auto& t : all_tasks()) ids.push_back(t->info().id);
  return ids;
}

std::string refusal(const std::string& text) {
  try {
    (void)parse_rubric(text, "rubric.toml", kKnown);
    return "";
  } catch (const RubricError& e) {
    return e.what();
  }
}

TEST(Rubric, TheDocumentedDefaultReadsAndGradesEveryExercise) {
  const std::vector<std::string> ids = course();
  ASSERT_FALSE(ids.empty());
  const Rubric r = load_rubric(CUDALAB_SOURCE_DIR "/grading/rubric.toml", ids);
  for (const auto& id : ids) {
    ASSERT_TRUE(r.exercises.contains(id)) << id << " has no line in grading/rubric.toml: it would not be graded";
    EXPECT_GT(r.exercises.at(id).points, 0) << id;
  }
  EXPECT_EQ(r.exercises.size(), ids.size());
  EXPECT_DOUBLE_EQ(r.performance.full_at, 1.2);
  EXPECT_EQ(r.exercises.at("03_matmul").correctness, CorrectnessRule::per_check);
  EXPECT_FALSE(r.late.deadline.has_value());
}

TEST(Rubric, MalformedRubricsNameTheKeyAndTheLine) {
  EXPECT_EQ(refusal("[exercises.03_matmul]\npoints = \"ten\"\n"),
            "rubric.toml:2: exercises.03_matmul.points must be a number from 0 to 1000000");
  EXPECT_EQ(refusal("[exercises.03_matmul]\npoints = 10\n\n[exercises.09_nothing]\npoints = 5\n"),
            "rubric.toml:4: exercises.09_nothing is not an exercise (known: 01_increment, 03_matmul, 05_reduce)");
  EXPECT_EQ(refusal("[exercises.03_matmul]\npoints = 10\npoints_share = 0.2\n"),
            "rubric.toml:3: exercises.03_matmul.points_share is not a rubric key (known here: correctness, "
            "performance_share, points)");
  EXPECT_NE(refusal("[exercises.03_matmul\npoints = 10\n").find("rubric.toml:1: "), std::string::npos);
  EXPECT_EQ(refusal("[late]\ndeadline = \"friday\"\n[exercises.03_matmul]\npoints = 1\n"),
            "rubric.toml:2: late.deadline must be a UTC time such as 2026-12-01T23:59:00Z");
  EXPECT_EQ(refusal("[exercises.03_matmul]\npoints = 0\n"),
            "rubric.toml:2: exercises.03_matmul.points must be a number > 0");
  EXPECT_EQ(refusal("version = 1\n"), "rubric.toml: no [exercises.NN_name] table: the rubric grades nothing");
  EXPECT_EQ(refusal("[performance]\nfull_at = 2\nfloor_at = 1.5\n[exercises.03_matmul]\npoints = 1\n"),
            "rubric.toml:3: performance.floor_at must be greater than performance.full_at");
}

Attempt attempt(const std::vector<std::string>& verdicts, bool speed, double slowdown = 1) {
  Attempt a;
  a.exercise = "03_matmul";
  a.backend = speed ? "gpu" : "sim";
  a.speed_graded = speed;
  for (const auto& v : verdicts) a.checks.push_back({"n", v, "", {}, {}, 0});
  a.verdict = verdicts.empty() ? "compile_error" : verdicts.front();
  if (speed) a.timing = Timing{"M=2048", slowdown * 1e-3, 1e-3, 1, "GFLOP/s", 50};
  return a;
}

TEST(Rubric, SpeedPointsFollowTheCurveAgainstTheReference) {
  const Rubric r = parse_rubric("[exercises.03_matmul]\npoints = 10\nperformance_share = 0.4\n", "r", kKnown);
  EXPECT_DOUBLE_EQ(r.score(attempt({"passed", "passed"}, true, 1.0)).total, 10);
  EXPECT_DOUBLE_EQ(r.score(attempt({"passed", "passed"}, true, 1.2)).total, 10);          // full marks up to 1.2×
  EXPECT_NEAR(r.score(attempt({"passed", "passed"}, true, 2.6)).performance, 2.0, 1e-9);  // half way to 4×
  EXPECT_DOUBLE_EQ(r.score(attempt({"passed", "passed"}, true, 9.0)).total, 6);           // the floor: 0
  // On the simulator speed is not graded: out of the correctness points, and said so.
  const Score sim = r.score(attempt({"passed", "passed"}, false));
  EXPECT_DOUBLE_EQ(sim.total, 6);
  EXPECT_DOUBLE_EQ(sim.max, 6);
  EXPECT_NE(sim.notes.front().find("speed not graded"), std::string::npos);
}

// The same submission timed twice gets two ratios a little apart: its points must be a little
// apart too (no tier edge to cross), and a paired ratio, where there is one, is what counts.
TEST(Rubric, SpeedPointsAreContinuousInThePairedRatio) {
  const Rubric r = parse_rubric("[exercises.03_matmul]\npoints = 25\nperformance_share = 0.3\n", "r", kKnown);
  const double speed_points = 7.5;
  const double slope = speed_points / (4.0 - 1.2);  // points per unit of ratio between full_at and floor_at
  double before = r.score(attempt({"passed"}, true, 1.0)).total;
  for (double ratio = 1.0; ratio <= 5.0; ratio += 0.005) {
    Attempt a = attempt({"passed"}, true, 3.0);  // the medians say 3×; the rounds say `ratio`
    a.timing->ratio = ratio;
    a.timing->ratio_low = ratio * 0.99;
    a.timing->ratio_high = ratio * 1.01;
    a.timing->rounds = 8;
    const Score s = r.score(a);
    ASSERT_LE(before - s.total, slope * 0.005 + 1e-9) << "at " << ratio;  // never a jump
    ASSERT_LE(s.total, before + 1e-12) << "slower never earns more, at " << ratio;
    before = s.total;
  }
  Attempt paired = attempt({"passed"}, true, 3.0);
  paired.timing->ratio = 2.6;
  paired.timing->ratio_low = 2.58;
  paired.timing->ratio_high = 2.62;
  paired.timing->rounds = 7;
  const Score s = r.score(paired);
  EXPECT_NEAR(s.performance, 3.75, 1e-9);  // half way from 1.2× to 4×: from the ratio, not the medians' 3×
  EXPECT_NE(s.notes.back().find("2.600× the reference solution's time (2.580–2.620, 7 rounds timed in turn with it)"),
            std::string::npos)
      << s.notes.back();
}

TEST(Rubric, CorrectnessPenaltiesAndLateness) {
  Rubric r = parse_rubric(
      "[late]\ndeadline = \"2026-12-01T23:59:00Z\"\nper_day = 0.1\nmax_days = 2\n"
      "[exercises.03_matmul]\npoints = 10\nperformance_share = 0\ncorrectness = \"per_check\"\n",
      "r", kKnown);
  EXPECT_DOUBLE_EQ(r.score(attempt({"passed", "wrong_output", "passed", "passed"}, false)).total, 7.5);
  EXPECT_DOUBLE_EQ(r.score(attempt({}, false)).total, 0);  // nothing compiled
  // Right output but no shared memory: correct, minus the penalty.
  EXPECT_DOUBLE_EQ(r.score(attempt({"requirement_unmet", "requirement_unmet"}, false)).total, 7.5);
  Attempt late = attempt({"passed", "passed"}, false);
  late.submitted_at = "2026-12-02T10:00:00Z";  // within the first day late
  EXPECT_DOUBLE_EQ(r.score(late).total, 9);
  late.submitted_at = "2026-12-05T10:00:00Z";  // more than max_days
  EXPECT_DOUBLE_EQ(r.score(late).total, 0);
  late.submitted_at = "2026-12-01T12:00:00Z";  // on time
  EXPECT_DOUBLE_EQ(r.score(late).total, 10);
}

}  // namespace
}  // namespace cudalab::grading
