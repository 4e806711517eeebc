// Grading at scale, on the simulator: --gpus and --shard parsing and their refusals, the stable
// shard hash, the seed file, the GPU pool's rules (timing alone on every GPU at once, never beside
// a check), the gradebook's migration from schema 1, and `cudalab merge`: two shards merge to the
// grades of one run, mismatched seeds / rubrics / backends are refused, merging again is idempotent.
#include <sys/stat.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "../support/files.hpp"
#include "cudalab/gpu_probe.hpp"
#include "cudalab/grading/gradebook.hpp"
#include "cudalab/grading/grader.hpp"
#include "cudalab/grading/scale.hpp"
#include "cudalab/process.hpp"

namespace cudalab::grading {
namespace {

using testing_support::copy_file_to;
using testing_support::fresh_dir;
using testing_support::kSourceDir;
using testing_support::read_text;
using testing_support::write_text;

namespace fs = std::filesystem;

/// The message of what `f` throws as E, or "" when it throws nothing.
template <typename E, typename F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

TEST(GradeScale, GpuListsAreParsedAndBadOnesRefusedInOneLine) {
  EXPECT_EQ(parse_gpu_list("0"), std::vector<unsigned>{0});
  EXPECT_EQ(parse_gpu_list("0,1"), (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(parse_gpu_list("3, 1"), (std::vector<unsigned>{3, 1}));
  EXPECT_EQ(refusal<UsageError>([] { parse_gpu_list("0,0"); }), "--gpus 0,0: GPU 0 is listed twice");
  for (const char* bad : {"", "a", "0,", "-1", "1.5", "0;1", "0,,1", "99999999999"}) {
    const std::string why = refusal<UsageError>([&] { parse_gpu_list(bad); });
    EXPECT_NE(why, "") << bad;
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  }
}

TEST(GradeScale, GpuNumbersCountTheGpusCudalabSees) {
  EXPECT_EQ(visible_device_for(1, nullptr), "1");
  EXPECT_EQ(visible_device_for(0, "2,3"), "2");
  EXPECT_EQ(visible_device_for(1, "2,3"), "3");
  EXPECT_EQ(visible_device_for(0, "GPU-8f0c"), "GPU-8f0c");
  const std::string why = refusal<UsageError>([] { visible_device_for(2, "2,3"); });
  EXPECT_NE(why.find("GPU 2 is not visible: cudalab sees 2 GPUs (CUDA_VISIBLE_DEVICES=2,3)"), std::string::npos);
  // The probe and the peak copy of one GPU get cudalab's environment with that one GPU visible.
  setenv("CUDA_VISIBLE_DEVICES", "0,1", 1);
  const std::vector<std::string> env = environment_with_visible_devices("1");
  EXPECT_EQ(std::ranges::count_if(env, [](const std::string& e) { return e.starts_with("CUDA_VISIBLE_DEVICES="); }), 1);
  EXPECT_NE(std::ranges::find(env, "CUDA_VISIBLE_DEVICES=1"), env.end());
  EXPECT_NE(std::ranges::find(env, std::string("PATH=") + std::getenv("PATH")), env.end());
  unsetenv("CUDA_VISIBLE_DEVICES");
}

TEST(GradeScale, ShardArgumentsAreParsedAndBadOnesRefused) {
  EXPECT_EQ(parse_shard("0/1").index, 0u);
  EXPECT_EQ(parse_shard("3/4").index, 3u);
  EXPECT_EQ(parse_shard("3/4").count, 4u);
  EXPECT_NE(refusal<UsageError>([] { parse_shard("4/4"); }).find("K must be below N"), std::string::npos);
  for (const char* bad : {"", "1", "1/", "/2", "-1/2", "1/0", "a/b", "1/2/3", "0.5/2", " 1/2"}) {
    EXPECT_NE(refusal<UsageError>([&] { parse_shard(bad); }), "") << bad;
  }
}

TEST(GradeScale, ShardsAreStableAndPartitionTheClass) {
  // Pinned: the hash is documented (grading/README.md) and must not change between builds, or a
  // re-run shard would grade other students. These follow from the formula, computed apart.
  EXPECT_EQ(shard_of("alice", 2), 0u);
  EXPECT_EQ(shard_of("carol", 2), 1u);
  EXPECT_EQ(shard_of("dave", 4), 2u);
  EXPECT_EQ(shard_of("frank", 4), 3u);
  EXPECT_EQ(shard_of("carol", 7), 6u);
  EXPECT_EQ(shard_of("anyone", 1), 0u);
  // Every student in exactly one shard, and the shards roughly even.
  constexpr unsigned kShards = 4;
  constexpr int kStudents = 800;
  std::map<unsigned, int> sizes;
  for (int i = 0; i < kStudents; ++i) {
    const std::string name = "student" + std::to_string(i);
    int in = 0;
    for (unsigned k = 0; k < kShards; ++k) in += shard_of(name, kShards) == k ? 1 : 0;
    EXPECT_EQ(in, 1) << name;
    ++sizes[shard_of(name, kShards)];
  }
  ASSERT_EQ(sizes.size(), kShards);
  for (const auto& [k, n] : sizes) EXPECT_NEAR(n, kStudents / kShards, kStudents / kShards / 4) << "shard " << k;
}

TEST(GradeScale, TheSeedFileHoldsOneNumberAndShouldBePrivate) {
  const fs::path root = fresh_dir("scale", "seed");
  std::string warning;
  write_text(root / "seed", "18446744073709551615\n");
  ::chmod((root / "seed").c_str(), 0600);
  EXPECT_EQ(read_seed_file(root / "seed", warning), 18446744073709551615ull);
  EXPECT_EQ(warning, "");
  ::chmod((root / "seed").c_str(), 0644);
  EXPECT_EQ(read_seed_file(root / "seed", warning), 18446744073709551615ull);
  EXPECT_NE(warning.find("can be read by other users"), std::string::npos);
  for (const char* bad : {"", "12 13", "-4", "0x10", "18446744073709551616", "seed=4"}) {
    write_text(root / "bad", bad);
    EXPECT_NE(refusal<UsageError>([&] { read_seed_file(root / "bad", warning); }).find("one decimal number"),
              std::string::npos)
        << bad;
  }
  EXPECT_NE(refusal<UsageError>([&] { read_seed_file(root / "missing", warning); }).find("cannot be read"),
            std::string::npos);
  fs::remove_all(root);
}

TEST(GradeScale, TheGpuPoolTimesOnEveryGpuAtOnceAndNeverBesideACheck) {
  constexpr std::size_t kGpus = 2;
  GpuPool pool(kGpus);
  std::array<std::atomic<int>, kGpus> checks{};
  std::array<std::atomic<int>, kGpus> alone{};
  std::array<std::atomic<int>, kGpus> timed{};
  std::atomic<int> timing_now{0};
  std::atomic<int> most_timing{0};
  std::atomic<int> violations{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 6; ++w) {
    workers.emplace_back([&] {
      for (int job = 0; job < 15; ++job) {
        const std::size_t g = pool.share();
        ++checks[g];
        if (alone[g] != 0) ++violations;
        std::this_thread::sleep_for(std::chrono::microseconds(300));
        --checks[g];
        pool.release(g, false);
        const std::size_t t = pool.take_alone();
        if (alone[t]++ != 0 || checks[t] != 0) ++violations;
        ++timed[t];
        const int now = ++timing_now;
        for (int m = most_timing; now > m && !most_timing.compare_exchange_weak(m, now);) {
        }
        std::this_thread::sleep_for(std::chrono::microseconds(600));
        if (checks[t] != 0) ++violations;
        --timing_now;
        --alone[t];
        pool.release(t, true);
      }
    });
  }
  for (auto& t : workers) t.join();
  EXPECT_EQ(violations, 0) << "a GPU timed beside a check or another timed run";
  EXPECT_EQ(timed[0] + timed[1], 90);
  EXPECT_GT(timed[0], 10) << "both GPUs time";
  EXPECT_GT(timed[1], 10) << "both GPUs time";
  EXPECT_EQ(most_timing, 2) << "timed runs on both GPUs at once";
}

// An attempt timed beside the checks and not believed goes back, to be timed once the checks are
// over; the same after them is timed again at once; an attempt believed is done.
TEST(GradeScale, AnAttemptNotBelievedBesideTheChecksIsTimedAgainAfterThem) {
  TimingQueue queue;
  queue.push(0);
  queue.push(1);
  auto first = queue.take();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->index, 0U);
  EXPECT_TRUE(first->beside_checks);
  queue.done(*first, true);  // not believed: back, but not while the checks run
  auto second = queue.take();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->index, 1U) << "the attempt put back waits for the end of the checks";
  queue.done(*second, false);

  queue.end_checks();
  auto again = queue.take();
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->index, 0U);
  EXPECT_FALSE(again->beside_checks);
  // A worker with nothing to take waits while a timing is in flight: it may come back.
  std::optional<TimingQueue::Turn> waited;
  std::thread waiter([&] { waited = queue.take(); });
  queue.done(*again, true);
  waiter.join();
  ASSERT_TRUE(waited.has_value()) << "a worker gave up while an attempt could still come back";
  EXPECT_EQ(waited->index, 0U);
  queue.done(*waited, false);
  EXPECT_FALSE(queue.take().has_value()) << "nothing left once the checks are over and nothing is timing";
  EXPECT_EQ(queue.put_back(), 2U);

  TimingQueue stopped;
  stopped.push(3);
  stopped.stop();
  EXPECT_FALSE(stopped.take().has_value()) << "a fault stops the timing";
}

// Timing workers bound to one GPU each (two per GPU) take their own GPU alone, never beside a
// check or another timed run there.
TEST(GradeScale, AWorkerTakesItsOwnGpuAloneWhenItsChecksAreOver) {
  constexpr std::size_t kGpus = 2;
  GpuPool pool(kGpus);
  std::array<std::atomic<int>, kGpus> checks{};
  std::array<std::atomic<int>, kGpus> alone{};
  std::array<std::atomic<int>, kGpus> timed{};
  std::atomic<int> violations{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&, w] {
      const std::size_t mine = static_cast<std::size_t>(w) % kGpus;
      for (int job = 0; job < 20; ++job) {
        const std::size_t g = pool.share();  // checks still run beside the first timed runs
        ++checks[g];
        if (alone[g] != 0) ++violations;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        --checks[g];
        pool.release(g, false);
        pool.take_alone(mine);
        if (alone[mine]++ != 0 || checks[mine] != 0) ++violations;
        ++timed[mine];
        std::this_thread::sleep_for(std::chrono::microseconds(300));
        if (checks[mine] != 0) ++violations;
        --alone[mine];
        pool.release(mine, true);
      }
    });
  }
  for (auto& t : workers) t.join();
  EXPECT_EQ(violations, 0) << "a GPU timed beside a check or another timed run";
  EXPECT_EQ(timed[0], 40);
  EXPECT_EQ(timed[1], 40);
}

// The seconds a GPU was held alone, as grade's summary reports them: timed runs only, not checks,
// and a run still holding it counts up to now.
TEST(GradeScale, TheGpuPoolCountsOnlyTheSecondsAGpuWasHeldAlone) {
  GpuPool pool(2);
  const std::size_t checked = pool.share();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  pool.release(checked, false);
  EXPECT_EQ(pool.seconds_alone(checked), 0) << "a check is not a timed run";
  pool.take_alone(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const double held_now = pool.seconds_alone(1);
  EXPECT_GE(held_now, 0.05) << "a run still holding the GPU counts up to now";
  pool.release(1, true);
  const double after = pool.seconds_alone(1);
  EXPECT_GE(after, held_now);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_EQ(pool.seconds_alone(1), after) << "nothing counts once it is given back";
  EXPECT_EQ(pool.seconds_alone(0), 0);
}

// --- merge, on gradebooks written directly -------------------------------------------------

Attempt attempt_of(const std::string& student, double total, const std::string& graded_at, std::uint64_t seed) {
  Attempt a;
  a.student = student;
  a.exercise = "01_increment";
  a.source_hash = "hash-" + student;
  a.source_path = "01_increment/kernel.cu";
  a.cudalab_version = "0.1.0";
  a.backend = "sim";
  a.device = "CPU simulator";
  a.seed = seed;
  a.verdict = total > 0 ? "passed" : "wrong_output";
  a.message = a.verdict;
  a.checks.push_back({"n=1", a.verdict, a.message, {}, {}, 0.5});
  a.score.correctness = total;
  a.score.total = total;
  a.score.max = 8;
  a.submitted_at = "2026-12-01T10:00:00Z";
  a.graded_at = graded_at;
  a.seconds = 0.25;
  return a;
}

struct ShardSpec {
  std::uint64_t seed = 7;
  std::string command = "cudalab grade class --shard 0/2";
  std::string started_at = "2026-12-12T10:00:00Z";
  std::string backend = "sim";
  std::string rubric_hash = "rubric-a";
  std::map<std::string, double> points = {{"01_increment", 8}};
};

void add_shard_run(const fs::path& dir, const ShardSpec& spec, const std::vector<Attempt>& attempts,
                   const std::vector<std::string>& notes_for = {}) {
  Gradebook book(dir / "gradebook.sqlite", spec.seed);
  const std::int64_t run = book.begin_run({spec.started_at, "0.1.0", spec.backend, "CPU simulator", spec.command,
                                           "grading/rubric.toml", spec.points, spec.rubric_hash, "test sandbox"});
  for (const Attempt& a : attempts) book.add_attempt(run, a);
  for (const std::string& student : notes_for) book.add_student_notes(run, student, {"a note about " + student});
}

/// The rows a merge must keep, in gradebook order.
std::vector<std::string> rows_of(const fs::path& gradebook) {
  std::vector<std::string> rows;
  for (const Attempt& a : Gradebook(gradebook).attempts()) {
    rows.push_back(std::to_string(a.id) + "|" + std::to_string(a.run_id) + "|" + a.student + "|" + a.graded_at + "|" +
                   std::to_string(a.score.total) + "|" + std::to_string(a.checks.size()));
  }
  return rows;
}

TEST(GradeMerge, ShardsOfAnotherSeedRubricOrBackendAreRefusedUnlessForced) {
  const fs::path root = fresh_dir("scale", "refuse");
  add_shard_run(root / "s0", {}, {attempt_of("alice", 8, "2026-12-12T10:00:01Z", 7)});
  ShardSpec other_seed;
  other_seed.seed = 888888;
  other_seed.command = "cudalab grade class --shard 1/2";
  add_shard_run(root / "s1", other_seed, {attempt_of("carol", 8, "2026-12-12T10:00:02Z", 888888)});
  MergeOptions o;
  o.out_dir = root / "out";
  o.shards = {root / "s0", root / "s1"};
  const std::string why = refusal<MergeError>([&] { merge_gradebooks(o); });
  EXPECT_NE(why.find("was graded with another seed than"), std::string::npos) << why;
  EXPECT_NE(why.find("--force"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos);
  EXPECT_EQ(why.find("888888"), std::string::npos) << "the seed is secret";
  EXPECT_FALSE(fs::exists(root / "out")) << "nothing written before the refusal";
  o.force = true;
  const MergeSummary forced = merge_gradebooks(o);
  EXPECT_EQ(forced.students, 2u);
  ASSERT_FALSE(forced.notes.empty());
  EXPECT_NE(forced.notes.front().find("--force"), std::string::npos);

  ShardSpec other_rubric;
  other_rubric.rubric_hash = "rubric-b";
  other_rubric.command = "cudalab grade class --shard 1/2";
  add_shard_run(root / "r1", other_rubric, {attempt_of("carol", 8, "2026-12-12T10:00:02Z", 7)});
  o.force = false;
  o.out_dir = root / "out2";
  o.shards = {root / "s0", root / "r1"};
  EXPECT_NE(refusal<MergeError>([&] { merge_gradebooks(o); }).find("graded with another rubric"), std::string::npos);

  ShardSpec on_gpu;
  on_gpu.backend = "gpu";
  on_gpu.command = "cudalab grade class --shard 1/2";
  add_shard_run(root / "g1", on_gpu, {attempt_of("carol", 8, "2026-12-12T10:00:02Z", 7)});
  o.shards = {root / "s0", root / "g1"};
  EXPECT_NE(refusal<MergeError>([&] { merge_gradebooks(o); }).find("graded on gpu, not sim"), std::string::npos);

  // Schema-1 runs have no rubric hash: their points are compared.
  ShardSpec old_points;
  old_points.rubric_hash = "";
  old_points.points = {{"01_increment", 10}};
  old_points.command = "cudalab grade class --shard 1/2";
  add_shard_run(root / "p1", old_points, {attempt_of("carol", 8, "2026-12-12T10:00:02Z", 7)});
  o.shards = {root / "s0", root / "p1"};
  EXPECT_NE(refusal<MergeError>([&] { merge_gradebooks(o); }).find("graded with other points"), std::string::npos);

  o.shards = {root / "s0", root / "nothing-here"};
  EXPECT_NE(refusal<MergeError>([&] { merge_gradebooks(o); }).find("no gradebook there"), std::string::npos);
  EXPECT_FALSE(fs::exists(root / "nothing-here" / "gradebook.sqlite")) << "a missing shard is not created";
  o.out_dir = root / "s0";
  o.shards = {root / "s0", root / "s1"};
  EXPECT_NE(refusal<MergeError>([&] { merge_gradebooks(o); }).find("is OUT's own gradebook"), std::string::npos);
  fs::remove_all(root);
}

TEST(GradeMerge, MergingAgainChangesNothingAndAReGradedShardAddsWhatIsNew) {
  const fs::path root = fresh_dir("scale", "again");
  add_shard_run(root / "s0", {},
                {attempt_of("alice", 8, "2026-12-12T10:00:03Z", 7), attempt_of("bob", 0, "2026-12-12T10:00:01Z", 7)},
                {"bob"});
  ShardSpec one;
  one.command = "cudalab grade class --shard 1/2";
  add_shard_run(root / "s1", one, {attempt_of("carol", 8, "2026-12-12T10:00:02Z", 7)});
  MergeOptions o;
  o.out_dir = root / "out";
  o.shards = {root / "s0", root / "s1"};
  o.write_reports = false;
  const MergeSummary first = merge_gradebooks(o);
  EXPECT_EQ(first.attempts, 3u);
  EXPECT_EQ(first.added, 3u);
  EXPECT_EQ(first.students, 3u);
  EXPECT_TRUE(first.notes.empty()) << first.notes.front();
  // In the order graded, whichever shard: bob (…01), carol (…02), alice (…03).
  const auto rows = rows_of(root / "out" / "gradebook.sqlite");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_NE(rows[0].find("|bob|"), std::string::npos);
  EXPECT_NE(rows[1].find("|carol|"), std::string::npos);
  EXPECT_EQ(first.results.student_notes.at("bob"), std::vector<std::string>{"a note about bob"});

  const MergeSummary second = merge_gradebooks(o);
  EXPECT_TRUE(second.had_gradebook);
  EXPECT_EQ(second.added, 0u);
  EXPECT_EQ(second.duplicates, 3u);
  EXPECT_EQ(rows_of(root / "out" / "gradebook.sqlite"), rows) << "merging again changes nothing";
  EXPECT_EQ(Gradebook(root / "out" / "gradebook.sqlite").runs().size(), 2u);
  EXPECT_EQ(Gradebook(root / "out" / "gradebook.sqlite").student_notes().size(), 1u);

  // bob is re-graded in shard 0 later (`--only bob`): the merge adds that attempt, which counts.
  ShardSpec later;
  later.started_at = "2026-12-13T09:00:00Z";
  later.command = "cudalab grade class --shard 0/2 --only bob";
  add_shard_run(root / "s0", later, {attempt_of("bob", 8, "2026-12-13T09:00:05Z", 7)});
  const MergeSummary third = merge_gradebooks(o);
  EXPECT_EQ(third.added, 1u);
  EXPECT_EQ(third.attempts, 4u);
  EXPECT_DOUBLE_EQ(third.results.find("bob", "01_increment")->score.total, 8);
  // Merging only one shard into OUT keeps what the other brought before.
  o.shards = {root / "s1"};
  const MergeSummary fourth = merge_gradebooks(o);
  EXPECT_EQ(fourth.attempts, 4u);
  EXPECT_EQ(fourth.added, 0u);
  fs::remove_all(root);
}

TEST(GradeMerge, AStudentInTwoShardsKeepsEveryAttemptAndAMissingShardIsNamed) {
  const fs::path root = fresh_dir("scale", "twice");
  ShardSpec of3;
  of3.command = "cudalab grade class --shard 0/3 --seed-file s";
  add_shard_run(root / "s0", of3, {attempt_of("alice", 0, "2026-12-12T10:00:01Z", 7)});
  of3.command = "cudalab grade class --shard=2/3 --seed-file s";
  add_shard_run(root / "s2", of3, {attempt_of("alice", 8, "2026-12-12T10:00:09Z", 7)});
  MergeOptions o;
  o.out_dir = root / "out";
  o.shards = {root / "s2", root / "s0"};
  o.write_reports = false;
  const MergeSummary s = merge_gradebooks(o);
  EXPECT_EQ(s.attempts, 2u);
  EXPECT_DOUBLE_EQ(s.results.find("alice", "01_increment")->score.total, 8) << "the later graded counts";
  ASSERT_EQ(s.notes.size(), 2u);
  std::string notes = s.notes[0] + "\n" + s.notes[1];
  EXPECT_NE(notes.find("alice is in"), std::string::npos) << notes;
  EXPECT_NE(notes.find("shard 1/3 not among the inputs"), std::string::npos) << notes;
  fs::remove_all(root);
}

TEST(Gradebook, AVersion1FileIsMigratedToTheCurrentOneAndAnUnknownVersionRefused) {
  const fs::path root = fresh_dir("scale", "migrate");
  {
    SQLite::Database db((root / "v1.sqlite").string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec(R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, cudalab_version TEXT NOT NULL, backend TEXT NOT NULL,
  device TEXT NOT NULL, command TEXT NOT NULL, rubric_source TEXT NOT NULL, points TEXT NOT NULL);
CREATE TABLE attempts (
  id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),
  student TEXT NOT NULL, exercise TEXT NOT NULL, source_hash TEXT NOT NULL, source_path TEXT NOT NULL,
  cudalab_version TEXT NOT NULL, backend TEXT NOT NULL, device TEXT NOT NULL, seed TEXT NOT NULL,
  verdict TEXT NOT NULL, message TEXT NOT NULL, hints TEXT NOT NULL,
  speed_graded INTEGER NOT NULL, timed_label TEXT, median_s REAL, reference_s REAL, throughput REAL, unit TEXT,
  percent_of_peak REAL,
  correctness REAL NOT NULL, performance REAL NOT NULL, penalties REAL NOT NULL, late REAL NOT NULL,
  total REAL NOT NULL, max REAL NOT NULL, score_notes TEXT NOT NULL,
  submitted_at TEXT NOT NULL, graded_at TEXT NOT NULL, seconds REAL NOT NULL);
CREATE TABLE checks (
  attempt_id INTEGER NOT NULL REFERENCES attempts(id), ordinal INTEGER NOT NULL, label TEXT NOT NULL,
  verdict TEXT NOT NULL, message TEXT NOT NULL, details TEXT NOT NULL, hints TEXT NOT NULL, solve_ms REAL NOT NULL,
  PRIMARY KEY (attempt_id, ordinal));
CREATE TABLE student_notes (run_id INTEGER NOT NULL REFERENCES runs(id), student TEXT NOT NULL, note TEXT NOT NULL);
INSERT INTO meta VALUES ('schema_version', '1'), ('seed', '42'), ('tool', 'cudalab');
INSERT INTO runs VALUES (1, '2026-01-01T00:00:00Z', '0.1.0', 'sim', 'CPU simulator', 'cudalab grade c', 'r.toml',
                         '{"01_increment":8.0}');
INSERT INTO attempts VALUES (1, 1, 'alice', '01_increment', 'h', 'k.cu', '0.1.0', 'sim', 'CPU simulator', '42',
  'passed', 'passed', '[]', 0, NULL, NULL, NULL, NULL, NULL, NULL, 8, 0, 0, 0, 8, 8, '[]',
  '2026-01-01T00:00:00Z', '2026-01-01T00:00:01Z', 0.5);
)sql");
  }
  {
    const Gradebook book(root / "v1.sqlite");
    EXPECT_EQ(book.seed(), 42u);
    ASSERT_EQ(book.runs().size(), 1u);
    EXPECT_EQ(book.runs().front().info.rubric_hash, "");
    ASSERT_EQ(book.attempts().size(), 1u);
    EXPECT_EQ(book.attempts().front().run_id, 1);
  }
  {
    SQLite::Database db((root / "v1.sqlite").string(), SQLite::OPEN_READWRITE);
    EXPECT_EQ(db.execAndGet("SELECT value FROM meta WHERE key = 'schema_version'").getString(), "3");
    db.exec("UPDATE meta SET value = '9' WHERE key = 'schema_version'");
  }
  EXPECT_NE(refusal<GradebookError>([&] { Gradebook book(root / "v1.sqlite"); }).find("schema version 9"),
            std::string::npos);
  fs::remove_all(root);
}

TEST(Gradebook, APairedTimingIsStoredWithItsIntervalAndATimingAloneWithout) {
  const fs::path root = fresh_dir("scale", "paired");
  Attempt paired = attempt_of("alice", 8, "2026-12-12T10:00:01Z", 7);
  paired.speed_graded = true;
  paired.timing = Timing{"n=67108864", 2e-3, 1e-3, 400, "GB/s", 12};
  paired.timing->ratio = 1.987;
  paired.timing->ratio_low = 1.975;
  paired.timing->ratio_high = 1.999;
  paired.timing->rounds = 9;
  Attempt alone = attempt_of("bob", 8, "2026-12-12T10:00:02Z", 7);
  alone.speed_graded = true;
  alone.timing = Timing{"n=67108864", 3e-3, 1e-3, 300, "GB/s", 9};
  add_shard_run(root, {}, {paired, alone});
  const std::vector<Attempt> read = Gradebook(root / "gradebook.sqlite").attempts();
  ASSERT_EQ(read.size(), 2u);
  ASSERT_TRUE(read[0].timing && read[1].timing);
  EXPECT_DOUBLE_EQ(read[0].timing->ratio, 1.987);
  EXPECT_DOUBLE_EQ(read[0].timing->ratio_low, 1.975);
  EXPECT_DOUBLE_EQ(read[0].timing->ratio_high, 1.999);
  EXPECT_EQ(read[0].timing->rounds, 9u);
  EXPECT_DOUBLE_EQ(read[0].timing->slowdown(), 1.987);  // the rounds' ratio, not the medians' 2
  EXPECT_EQ(read[1].timing->rounds, 0u);
  EXPECT_DOUBLE_EQ(read[1].timing->slowdown(), 3.0);  // timed alone: the ratio of the medians
  fs::remove_all(root);
}

// --- end to end on the simulator -----------------------------------------------------------

/// Six students, one exercise: right, wrong and not compiling.
fs::path make_increment_class(const fs::path& root) {
  const fs::path c = root / "class";
  const std::vector<std::pair<std::string, std::string>> students = {
      {"alice", "solutions/01_increment/kernel.cu"}, {"bob", "tests/wrong/01_increment/grid_too_small.cu"},
      {"carol", "solutions/01_increment/kernel.cu"}, {"dave", ""},
      {"erin", "tests/wrong/01_increment/leak.cu"},  {"frank", "solutions/01_increment/kernel.cu"}};
  for (const auto& [student, file] : students) {
    if (file.empty()) {
      write_text(c / student / "01_increment/kernel.cu", "void solve(int* data, int n) { int x = ; }\n");
    } else {
      copy_file_to(kSourceDir / file, c / student / "01_increment/kernel.cu");
    }
  }
  write_text(root / "rubric.toml", "[exercises.01_increment]\npoints = 10\nperformance_share = 0.2\n");
  return c;
}

GradeOptions options_for(const fs::path& root, const std::string& out) {
  setenv("CUDALAB_CACHE_DIR", CUDALAB_TEST_CACHE_DIR, 1);
  GradeOptions o;
  o.submissions = root / "class";
  o.out_dir = root / out;
  o.rubric = root / "rubric.toml";
  o.backend = "sim";
  o.jobs = 2;
  o.timeout = std::chrono::seconds(10);
  o.seed = 424242;
  return o;
}

/// What must not depend on how the class was split: per (student, exercise) the newest attempt.
std::map<std::string, std::string> grades_of(const ClassResults& r) {
  std::map<std::string, std::string> out;
  for (const auto& [key, a] : r.attempts) {
    std::string row = a.verdict + "|" + a.message + "|" + std::to_string(a.score.total) + "|" + a.source_hash;
    for (const auto& c : a.checks) row += "|" + c.label + ":" + c.verdict + ":" + c.message;
    out[key.first + "/" + key.second] = row;
  }
  return out;
}

TEST(GradeMerge, TwoShardsGradedApartMergeToTheGradesOfOneRun) {
  const fs::path root = fresh_dir("scale", "shards");
  make_increment_class(root);
  const GradeSummary whole = grade_class(options_for(root, "whole"));
  ASSERT_EQ(whole.students, 6u);

  std::set<std::string> seen;
  std::vector<fs::path> shards;
  for (unsigned k = 0; k < 2; ++k) {
    GradeOptions o = options_for(root, "shard" + std::to_string(k));
    o.shard = Shard{k, 2};
    o.command = "cudalab grade class --shard " + std::to_string(k) + "/2";
    const GradeSummary s = grade_class(o);
    EXPECT_GT(s.students, 0u) << "shard " << k;
    EXPECT_NE(s.shard_line.find("of the class's 6 students"), std::string::npos) << s.shard_line;
    for (const std::string& student : s.results.students) {
      EXPECT_TRUE(seen.insert(student).second) << student << " is in two shards";
      EXPECT_EQ(shard_of(student, 2), k);
    }
    // Only the shard's own archives and folders were read.
    EXPECT_EQ(s.results.students.size(), s.students);
    shards.push_back(o.out_dir);
  }
  EXPECT_EQ(seen.size(), 6u) << "every student in exactly one shard";

  MergeOptions m;
  m.out_dir = root / "merged";
  m.shards = shards;
  const MergeSummary merged = merge_gradebooks(m);
  EXPECT_EQ(merged.students, 6u);
  EXPECT_EQ(merged.shards, 2u);
  EXPECT_TRUE(merged.notes.empty()) << merged.notes.front();
  EXPECT_EQ(merged.results.students, whole.results.students);
  EXPECT_EQ(grades_of(merged.results), grades_of(whole.results));
  for (const char* f : {"grades.csv", "results.json", "junit.xml", "report.html", "summary.txt"}) {
    EXPECT_TRUE(fs::exists(root / "merged" / f)) << f;
  }
  EXPECT_TRUE(fs::exists(root / "merged" / "feedback" / "bob.md"));
  // Same grades.csv as the run of the whole class.
  auto text = [](const fs::path& f) {
    std::ifstream in(f);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  };
  EXPECT_EQ(text(root / "merged" / "grades.csv"), text(root / "whole" / "grades.csv"));

  // A shard without the seed is refused before anything is graded.
  GradeOptions no_seed = options_for(root, "no-seed");
  no_seed.seed.reset();
  no_seed.shard = Shard{0, 2};
  EXPECT_NE(refusal<UsageError>([&] { grade_class(no_seed); }).find("--shard needs the class's seed"),
            std::string::npos);
  // --gpus on the simulator is refused too.
  GradeOptions gpus = options_for(root, "gpus");
  gpus.gpus = {0, 1};
  EXPECT_NE(refusal<UsageError>([&] { grade_class(gpus); }).find("--gpus: grading runs on the CPU simulator"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(root / "no-seed" / "gradebook.sqlite"));
  EXPECT_FALSE(fs::exists(root / "gpus" / "gradebook.sqlite"));
  fs::remove_all(root);
}

/// Runs cudalab-grading with `args`; returns (exit code, stdout and stderr).
std::pair<int, std::string> run_cli(const std::string& args) {
  const std::string command =
      "CUDALAB_CACHE_DIR='" CUDALAB_TEST_CACHE_DIR "' '" CUDALAB_BIN_DIR "/cudalab-grading' " + args + " 2>&1";
  FILE* p = ::popen(command.c_str(), "r");
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

TEST(GradeCli, BadShardGpusSeedFileAndMergesAreOneLineErrorsWithExitCode2) {
  const fs::path root = fresh_dir("scale", "cli");
  const std::string c = (root / "class").string();
  fs::create_directories(c);
  write_text(root / "seed", "123\n");
  write_text(root / "bad-seed", "not a number\n");
  const std::string out = " --out " + (root / "out").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"grade " + c + out + " --shard 2/2 --seed 1", "cudalab: --shard 2/2: K must be below N"},
      {"grade " + c + out + " --shard x --seed 1", "cudalab: --shard x: expected K/N"},
      {"grade " + c + out + " --shard 0/0 --seed 1", "cudalab: --shard 0/0: expected K/N"},
      {"grade " + c + out + " --gpus 0,0", "cudalab: --gpus 0,0: GPU 0 is listed twice"},
      {"grade " + c + out + " --gpus one", "cudalab: --gpus one: 'one' is not a GPU number"},
      {"grade " + c + out + " --gpus 0,1 --backend sim", "cudalab: --gpus: grading runs on the CPU simulator"},
      {"grade " + c + out + " --backend sim --shard 0/2", "cudalab: --shard needs the class's seed"},
      {"grade " + c + out + " --seed-file " + (root / "bad-seed").string(), "must hold one decimal number"},
      {"grade " + c + out + " --seed-file " + (root / "none").string(), "cannot be read"},
      {"merge " + (root / "out").string() + " " + (root / "no-shard").string(), "no gradebook there"},
  };
  for (const auto& [args, expected] : cases) {
    const auto [code, said] = run_cli(args);
    EXPECT_EQ(code, 2) << args << "\n" << said;
    EXPECT_NE(said.find(expected), std::string::npos) << args << "\n" << said;
    EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << args << "\n" << said;
  }
  const auto [excl_code, excl] = run_cli("grade " + c + " --seed 4 --seed-file " + (root / "seed").string());
  EXPECT_EQ(excl_code, 2) << excl;
  const auto [help_code, help] = run_cli("merge --help");
  EXPECT_EQ(help_code, 0);
  EXPECT_NE(help.find("--force"), std::string::npos);
  EXPECT_NE(help.find("merging the same shards again changes nothing"), std::string::npos) << help;
  EXPECT_FALSE(fs::exists(root / "out" / "gradebook.sqlite"));
  fs::remove_all(root);
}

// The end of a grading says where the wall time went: the two phases, then the sums per attempt;
// on the simulator, that nothing was timed.
TEST(GradeCli, TheSummarySaysWhereTheTimeWent) {
  const fs::path root = fresh_dir("scale", "split");
  const fs::path c = root / "class";
  // A text no cache holds: the checked build is compiled within the check, which its line names.
  const std::string unique = "// " + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  write_text(c / "ada" / "01_increment/kernel.cu",
             read_text(kSourceDir / "solutions/01_increment/kernel.cu") + "\n" + unique + "\n");
  const auto run =
      run_cli("grade " + c.string() + " --out " + (root / "out").string() + " --backend sim --seed 3 --jobs 1");
  const std::string& said = run.second;
  EXPECT_EQ(run.first, 0) << said;
  // The whole line that holds `text`, or "".
  const auto line_with = [&said](const std::string& text) {
    const auto at = said.find(text);
    if (at == std::string::npos) return std::string();
    const auto begin = said.rfind('\n', at);
    const auto from = begin == std::string::npos ? 0 : begin + 1;
    return said.substr(from, said.find('\n', at) - from);
  };
  const std::string phases = line_with("graded in ");
  EXPECT_NE(phases.find("compiling and checking"), std::string::npos) << said;
  EXPECT_NE(phases.find("(1 at once)"), std::string::npos) << phases;
  EXPECT_NE(phases.find("no timing (not on a GPU)"), std::string::npos) << phases;
  const std::string sums = line_with("summed over the attempts");
  EXPECT_NE(sums.find("compiling"), std::string::npos) << said;
  EXPECT_EQ(sums.find("timing"), std::string::npos) << "nothing was timed: " << sums;
  // Without a terminal, each attempt's line says where its own time went, the check's parts too.
  EXPECT_NE(said.find("ada 01_increment: passed in "), std::string::npos) << said;
  EXPECT_NE(said.find("(compiling "), std::string::npos) << said;
  EXPECT_NE(line_with("ada 01_increment: passed in ").find("checked build's compile "), std::string::npos) << said;
  // bench/grading/time-split.py reads those lines back: the format it parses is the one written.
  write_text(root / "progress.txt", said);
  ProcessOptions split;
  split.argv = {"/usr/bin/env", "python3", (kSourceDir / "bench/grading/time-split.py").string(),
                (root / "progress.txt").string()};
  split.timeout = std::chrono::seconds(30);
  const ProcessResult table = run_process(split);
  EXPECT_EQ(table.exit_code, 0) << table.output;
  EXPECT_NE(table.output.find("1 attempts"), std::string::npos) << table.output;
  EXPECT_NE(table.output.find("01_increment (1 attempts)"), std::string::npos) << table.output;
  EXPECT_NE(table.output.find("checking: checked build's compile"), std::string::npos) << table.output;
  fs::remove_all(root);
}

// On a terminal the counter is one line, redrawn in place: cut to the terminal's width, since the
// redraw clears one row only and a wrapped line would leave its first rows behind (seen in tmux at
// 80 columns). Run in a pseudo-terminal of 50 columns (util-linux `script`).
TEST(GradeCli, OnATerminalTheCounterNeverWraps) {
  const fs::path root = fresh_dir("scale", "terminal");
  const fs::path c = root / "class";
  copy_file_to(kSourceDir / "solutions/01_increment/kernel.cu",
               c / "ada_lovelace_the_first" / "01_increment/kernel.cu");
  copy_file_to(kSourceDir / "solutions/05_reduce/kernel.cu", c / "ada_lovelace_the_first" / "05_reduce/kernel.cu");
  constexpr std::size_t kColumns = 50;
  const std::string grade = "CUDALAB_CACHE_DIR='" CUDALAB_TEST_CACHE_DIR "' '" CUDALAB_BIN_DIR
                            "/cudalab-grading' grade " +
                            c.string() + " --out " + (root / "out").string() + " --backend sim --seed 3 --jobs 1";
  const std::string command =
      "script -q -e -c \"stty cols " + std::to_string(kColumns) + " rows 20; " + grade + "\" /dev/null 2>&1";
  FILE* p = ::popen(command.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int status = ::pclose(p);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  // Each redraw: "\r\033[K" and the line, up to the next redraw or line end.
  const std::string redraw = "\r\033[K";
  std::size_t counters = 0;
  for (std::size_t at = out.find(redraw); at != std::string::npos; at = out.find(redraw, at + 1)) {
    const std::size_t from = at + redraw.size();
    const std::size_t end = std::min(out.find('\r', from), out.find('\n', from));
    const std::string line = out.substr(from, end == std::string::npos ? std::string::npos : end - from);
    if (line.rfind("grading [", 0) != 0) continue;
    ++counters;
    EXPECT_LE(line.size(), kColumns) << "wraps at " << kColumns << " columns: " << line;
  }
  EXPECT_EQ(counters, 2u) << "one counter line per attempt: " << out;
  fs::remove_all(root);
}

}  // namespace
}  // namespace cudalab::grading
