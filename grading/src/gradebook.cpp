#include "cudalab/grading/gradebook.hpp"

#include <random>
#include <set>

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace cudalab::grading {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Version 3. Append-only: rows are inserted, never updated or deleted (a migration aside).
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, cudalab_version TEXT NOT NULL, backend TEXT NOT NULL,
  device TEXT NOT NULL, command TEXT NOT NULL, rubric_source TEXT NOT NULL, points TEXT NOT NULL,
  rubric_hash TEXT NOT NULL DEFAULT '', sandbox TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS attempts (
  id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),
  student TEXT NOT NULL, exercise TEXT NOT NULL, source_hash TEXT NOT NULL, source_path TEXT NOT NULL,
  cudalab_version TEXT NOT NULL, backend TEXT NOT NULL, device TEXT NOT NULL, seed TEXT NOT NULL,
  verdict TEXT NOT NULL, message TEXT NOT NULL, hints TEXT NOT NULL,
  speed_graded INTEGER NOT NULL, timed_label TEXT, median_s REAL, reference_s REAL, throughput REAL, unit TEXT,
  percent_of_peak REAL, ratio REAL, ratio_low REAL, ratio_high REAL, ratio_rounds INTEGER,
  correctness REAL NOT NULL, performance REAL NOT NULL, penalties REAL NOT NULL, late REAL NOT NULL,
  total REAL NOT NULL, max REAL NOT NULL, score_notes TEXT NOT NULL,
  submitted_at TEXT NOT NULL, graded_at TEXT NOT NULL, seconds REAL NOT NULL);
CREATE INDEX IF NOT EXISTS attempts_by_student ON attempts (student, exercise, id);
CREATE TABLE IF NOT EXISTS checks (
  attempt_id INTEGER NOT NULL REFERENCES attempts(id), ordinal INTEGER NOT NULL, label TEXT NOT NULL,
  verdict TEXT NOT NULL, message TEXT NOT NULL, details TEXT NOT NULL, hints TEXT NOT NULL, solve_ms REAL NOT NULL,
  PRIMARY KEY (attempt_id, ordinal));
CREATE TABLE IF NOT EXISTS student_notes (
  run_id INTEGER NOT NULL REFERENCES runs(id), student TEXT NOT NULL, note TEXT NOT NULL);
)sql";

// Version 1 → 2: runs gain rubric_hash (so that `cudalab merge` can tell rubrics apart) and
// sandbox (the runners' protections); the runs recorded before have neither ("").
constexpr const char* kMigrateFrom1 = R"sql(
ALTER TABLE runs ADD COLUMN rubric_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN sandbox TEXT NOT NULL DEFAULT '';
UPDATE meta SET value = '2' WHERE key = 'schema_version';
)sql";

// Version 2 → 3: attempts gain the paired timing's ratio to the reference solution, its 95 %
// interval and the rounds it came from; the attempts timed before have none (NULL).
constexpr const char* kMigrateFrom2 = R"sql(
ALTER TABLE attempts ADD COLUMN ratio REAL;
ALTER TABLE attempts ADD COLUMN ratio_low REAL;
ALTER TABLE attempts ADD COLUMN ratio_high REAL;
ALTER TABLE attempts ADD COLUMN ratio_rounds INTEGER;
UPDATE meta SET value = '3' WHERE key = 'schema_version';
)sql";

std::string text_of(const std::vector<std::string>& lines) { return json(lines).dump(); }

std::vector<std::string> lines_of(const std::string& text) {
  try {
    return json::parse(text).get<std::vector<std::string>>();
  } catch (const std::exception&) {
    return {text};
  }
}

}  // namespace

Gradebook::Gradebook(const fs::path& file, std::optional<std::uint64_t> wanted_seed) {
  const bool fresh = !fs::exists(file);
  try {
    if (!file.parent_path().empty()) fs::create_directories(file.parent_path());
    db_ = std::make_unique<SQLite::Database>(file.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    // WAL: a transaction is durable once committed, and a crash mid-transaction rolls it back.
    db_->exec("PRAGMA journal_mode=WAL");
    db_->exec("PRAGMA synchronous=NORMAL");
    db_->exec("PRAGMA foreign_keys=ON");
    db_->setBusyTimeout(10'000);
    if (fresh) {
      SQLite::Transaction t(*db_);
      db_->exec(kSchema);
      std::random_device rd;
      const std::uint64_t seed = wanted_seed.value_or((static_cast<std::uint64_t>(rd()) << 32) ^ rd());
      SQLite::Statement meta(*db_, "INSERT INTO meta (key, value) VALUES (?, ?)");
      for (const auto& [k, v] :
           std::vector<std::pair<std::string, std::string>>{{"schema_version", std::to_string(kGradebookSchemaVersion)},
                                                            {"seed", std::to_string(seed)},
                                                            {"tool", "cudalab"}}) {
        meta.bind(1, k);
        meta.bind(2, v);
        meta.exec();
        meta.reset();
      }
      t.commit();
    }
    auto schema_version = [&] {
      SQLite::Statement version(*db_, "SELECT value FROM meta WHERE key = 'schema_version'");
      if (!version.executeStep()) {
        throw GradebookError(file.string() + " is not a cudalab gradebook (no schema version)");
      }
      return version.getColumn(0).getString();
    };
    if (schema_version() == "1" || schema_version() == "2") {
      // IMMEDIATE: of two processes opening one old file, the second waits and sees the new version.
      db_->exec("BEGIN IMMEDIATE");
      try {
        if (schema_version() == "1") db_->exec(kMigrateFrom1);
        if (schema_version() == "2") db_->exec(kMigrateFrom2);
        db_->exec("COMMIT");
      } catch (...) {
        db_->exec("ROLLBACK");
        throw;
      }
    }
    if (const std::string v = schema_version(); v != std::to_string(kGradebookSchemaVersion)) {
      throw GradebookError(fmt::format("{} has gradebook schema version {}; this cudalab reads versions 1 to {}",
                                       file.string(), v, kGradebookSchemaVersion));
    }
    SQLite::Statement seed(*db_, "SELECT value FROM meta WHERE key = 'seed'");
    if (!seed.executeStep()) throw GradebookError(file.string() + " has no grading seed");
    seed_ = std::stoull(seed.getColumn(0).getString());
    if (wanted_seed && *wanted_seed != seed_) {
      throw GradebookError(file.string() + " was graded with another seed: a class keeps the seed of its gradebook");
    }
  } catch (const SQLite::Exception& e) {
    throw GradebookError(fmt::format("{}: not a usable gradebook ({})", file.string(), e.what()));
  }
}

Gradebook::~Gradebook() = default;

std::uint64_t Gradebook::seed() const { return seed_; }

std::int64_t Gradebook::begin_run(const RunInfo& run) {
  SQLite::Statement q(*db_,
                      "INSERT INTO runs (started_at, cudalab_version, backend, device, command, rubric_source, points, "
                      "rubric_hash, sandbox) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  q.bind(1, run.started_at);
  q.bind(2, run.cudalab_version);
  q.bind(3, run.backend);
  q.bind(4, run.device);
  q.bind(5, run.command);
  q.bind(6, run.rubric_source);
  q.bind(7, json(run.points).dump());
  q.bind(8, run.rubric_hash);
  q.bind(9, run.sandbox);
  q.exec();
  return db_->getLastInsertRowid();
}

std::int64_t Gradebook::add_attempt(std::int64_t run, const Attempt& a) {
  SQLite::Transaction t(*db_);
  SQLite::Statement q(*db_,
                      "INSERT INTO attempts (run_id, student, exercise, source_hash, source_path, cudalab_version, "
                      "backend, device, seed, verdict, message, hints, speed_graded, timed_label, median_s, "
                      "reference_s, throughput, unit, percent_of_peak, ratio, ratio_low, ratio_high, ratio_rounds, "
                      "correctness, performance, penalties, late, total, max, score_notes, submitted_at, graded_at, "
                      "seconds) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  int i = 1;
  q.bind(i++, run);
  q.bind(i++, a.student);
  q.bind(i++, a.exercise);
  q.bind(i++, a.source_hash);
  q.bind(i++, a.source_path);
  q.bind(i++, a.cudalab_version);
  q.bind(i++, a.backend);
  q.bind(i++, a.device);
  q.bind(i++, std::to_string(a.seed));
  q.bind(i++, a.verdict);
  q.bind(i++, a.message);
  q.bind(i++, text_of(a.hints));
  q.bind(i++, a.speed_graded ? 1 : 0);
  if (a.timing) {
    q.bind(i++, a.timing->label);
    q.bind(i++, a.timing->median_s);
    q.bind(i++, a.timing->reference_s);
    q.bind(i++, a.timing->throughput);
    q.bind(i++, a.timing->unit);
    q.bind(i++, a.timing->percent_of_peak);
  } else {
    for (int k = 0; k < 6; ++k) q.bind(i++);  // NULL
  }
  if (a.timing && a.timing->rounds > 0) {
    q.bind(i++, a.timing->ratio);
    q.bind(i++, a.timing->ratio_low);
    q.bind(i++, a.timing->ratio_high);
    q.bind(i++, static_cast<int64_t>(a.timing->rounds));
  } else {
    for (int k = 0; k < 4; ++k) q.bind(i++);  // NULL: timed alone, or not timed
  }
  q.bind(i++, a.score.correctness);
  q.bind(i++, a.score.performance);
  q.bind(i++, a.score.penalties);
  q.bind(i++, a.score.late);
  q.bind(i++, a.score.total);
  q.bind(i++, a.score.max);
  q.bind(i++, text_of(a.score.notes));
  q.bind(i++, a.submitted_at);
  q.bind(i++, a.graded_at);
  q.bind(i++, a.seconds);
  q.exec();
  const std::int64_t id = db_->getLastInsertRowid();
  SQLite::Statement c(*db_,
                      "INSERT INTO checks (attempt_id, ordinal, label, verdict, message, details, hints, solve_ms) "
                      "VALUES (?,?,?,?,?,?,?,?)");
  for (std::size_t k = 0; k < a.checks.size(); ++k) {
    const CheckRow& row = a.checks[k];
    c.bind(1, id);
    c.bind(2, static_cast<int64_t>(k));
    c.bind(3, row.label);
    c.bind(4, row.verdict);
    c.bind(5, row.message);
    c.bind(6, text_of(row.details));
    c.bind(7, text_of(row.hints));
    c.bind(8, row.solve_ms);
    c.exec();
    c.reset();
  }
  t.commit();
  return id;
}

void Gradebook::add_student_notes(std::int64_t run, const std::string& student, const std::vector<std::string>& notes) {
  if (notes.empty()) return;
  SQLite::Transaction t(*db_);
  SQLite::Statement q(*db_, "INSERT INTO student_notes (run_id, student, note) VALUES (?, ?, ?)");
  for (const auto& n : notes) {
    q.bind(1, run);
    q.bind(2, student);
    q.bind(3, n);
    q.exec();
    q.reset();
  }
  t.commit();
}

std::vector<Attempt> Gradebook::read_attempts(const std::string& where, const std::vector<std::string>& binds) const {
  SQLite::Statement q(
      *db_,
      "SELECT id, run_id, student, exercise, source_hash, source_path, cudalab_version, backend, device, seed, "
      "verdict, message, hints, speed_graded, timed_label, median_s, reference_s, throughput, unit, "
      "percent_of_peak, ratio, ratio_low, ratio_high, ratio_rounds, correctness, performance, penalties, late, "
      "total, max, score_notes, submitted_at, graded_at, seconds FROM attempts " +
          where + " ORDER BY id");
  for (std::size_t k = 0; k < binds.size(); ++k) q.bind(static_cast<int>(k + 1), binds[k]);
  std::vector<Attempt> out;
  while (q.executeStep()) {
    Attempt a;
    int i = 0;
    a.id = q.getColumn(i++).getInt64();
    a.run_id = q.getColumn(i++).getInt64();
    a.student = q.getColumn(i++).getString();
    a.exercise = q.getColumn(i++).getString();
    a.source_hash = q.getColumn(i++).getString();
    a.source_path = q.getColumn(i++).getString();
    a.cudalab_version = q.getColumn(i++).getString();
    a.backend = q.getColumn(i++).getString();
    a.device = q.getColumn(i++).getString();
    a.seed = std::stoull(q.getColumn(i++).getString());
    a.verdict = q.getColumn(i++).getString();
    a.message = q.getColumn(i++).getString();
    a.hints = lines_of(q.getColumn(i++).getString());
    a.speed_graded = q.getColumn(i++).getInt() != 0;
    if (!q.getColumn(i).isNull()) {
      Timing t;
      t.label = q.getColumn(i).getString();
      t.median_s = q.getColumn(i + 1).getDouble();
      t.reference_s = q.getColumn(i + 2).getDouble();
      t.throughput = q.getColumn(i + 3).getDouble();
      t.unit = q.getColumn(i + 4).getString();
      t.percent_of_peak = q.getColumn(i + 5).getDouble();
      if (!q.getColumn(i + 6).isNull()) {
        t.ratio = q.getColumn(i + 6).getDouble();
        t.ratio_low = q.getColumn(i + 7).getDouble();
        t.ratio_high = q.getColumn(i + 8).getDouble();
        t.rounds = static_cast<std::size_t>(q.getColumn(i + 9).getInt64());
      }
      a.timing = t;
    }
    i += 10;
    a.score.correctness = q.getColumn(i++).getDouble();
    a.score.performance = q.getColumn(i++).getDouble();
    a.score.penalties = q.getColumn(i++).getDouble();
    a.score.late = q.getColumn(i++).getDouble();
    a.score.total = q.getColumn(i++).getDouble();
    a.score.max = q.getColumn(i++).getDouble();
    a.score.notes = lines_of(q.getColumn(i++).getString());
    a.submitted_at = q.getColumn(i++).getString();
    a.graded_at = q.getColumn(i++).getString();
    a.seconds = q.getColumn(i++).getDouble();
    out.push_back(std::move(a));
  }
  for (Attempt& a : out) {
    SQLite::Statement c(*db_,
                        "SELECT label, verdict, message, details, hints, solve_ms FROM checks WHERE attempt_id = ? "
                        "ORDER BY ordinal");
    c.bind(1, a.id);
    while (c.executeStep()) {
      a.checks.push_back({c.getColumn(0).getString(), c.getColumn(1).getString(), c.getColumn(2).getString(),
                          lines_of(c.getColumn(3).getString()), lines_of(c.getColumn(4).getString()),
                          c.getColumn(5).getDouble()});
    }
  }
  return out;
}

std::optional<Attempt> Gradebook::latest(const std::string& student, const std::string& exercise) const {
  auto rows = read_attempts("WHERE id = (SELECT MAX(id) FROM attempts WHERE student = ? AND exercise = ?)",
                            {student, exercise});
  if (rows.empty()) return std::nullopt;
  return std::move(rows.front());
}

std::vector<Attempt> Gradebook::attempts() const { return read_attempts("", {}); }

std::vector<RunRecord> Gradebook::runs() const {
  SQLite::Statement q(*db_,
                      "SELECT id, started_at, cudalab_version, backend, device, command, rubric_source, points, "
                      "rubric_hash, sandbox FROM runs ORDER BY id");
  std::vector<RunRecord> out;
  while (q.executeStep()) {
    RunRecord r;
    r.id = q.getColumn(0).getInt64();
    r.info.started_at = q.getColumn(1).getString();
    r.info.cudalab_version = q.getColumn(2).getString();
    r.info.backend = q.getColumn(3).getString();
    r.info.device = q.getColumn(4).getString();
    r.info.command = q.getColumn(5).getString();
    r.info.rubric_source = q.getColumn(6).getString();
    try {
      r.info.points = json::parse(q.getColumn(7).getString()).get<std::map<std::string, double>>();
    } catch (const std::exception&) {
      throw GradebookError(fmt::format("run {} has malformed points: {}", r.id, q.getColumn(7).getString()));
    }
    r.info.rubric_hash = q.getColumn(8).getString();
    r.info.sandbox = q.getColumn(9).getString();
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<StudentNote> Gradebook::student_notes() const {
  SQLite::Statement q(*db_, "SELECT run_id, student, note FROM student_notes ORDER BY rowid");
  std::vector<StudentNote> out;
  while (q.executeStep()) {
    out.push_back({q.getColumn(0).getInt64(), q.getColumn(1).getString(), q.getColumn(2).getString()});
  }
  return out;
}

ClassResults Gradebook::class_results() const {
  ClassResults r;
  {
    SQLite::Statement q(*db_, "SELECT id, cudalab_version, device, points FROM runs ORDER BY id DESC LIMIT 1");
    if (q.executeStep()) {
      r.cudalab_version = q.getColumn(1).getString();
      r.device = q.getColumn(2).getString();
      r.max_points = json::parse(q.getColumn(3).getString()).get<std::map<std::string, double>>();
    }
  }
  for (Attempt& a : read_attempts("WHERE id IN (SELECT MAX(id) FROM attempts GROUP BY student, exercise)", {})) {
    r.speed_graded = r.speed_graded || a.speed_graded;
    r.graded_at = std::max(r.graded_at, a.graded_at);
    r.attempts[{a.student, a.exercise}] = std::move(a);
  }
  // An exercise's maximum is what its attempts were scored out of (speed ungraded lowers it).
  std::map<std::string, double> scored_max;
  for (const auto& [key, a] : r.attempts) scored_max[key.second] = std::max(scored_max[key.second], a.score.max);
  for (auto& [exercise, points] : r.max_points) {
    if (scored_max.count(exercise) != 0) points = scored_max[exercise];
    r.exercises.push_back(exercise);
  }
  std::set<std::string> students;
  for (const auto& [key, a] : r.attempts) students.insert(key.first);
  // A student's notes are those of the last run that graded them (a later `--only bob` keeps
  // alice's notes from the run that graded alice).
  SQLite::Statement notes(*db_,
                          "SELECT n.student, n.note FROM student_notes n JOIN (SELECT student, MAX(run_id) AS run_id "
                          "FROM (SELECT student, run_id FROM attempts UNION ALL SELECT student, run_id FROM "
                          "student_notes) GROUP BY student) last ON n.student = last.student AND n.run_id = "
                          "last.run_id ORDER BY n.rowid");
  while (notes.executeStep()) {
    students.insert(notes.getColumn(0).getString());
    r.student_notes[notes.getColumn(0).getString()].push_back(notes.getColumn(1).getString());
  }
  r.students.assign(students.begin(), students.end());
  return r;
}

}  // namespace cudalab::grading
