// Everything, as JSON for tools. Attempt::seed is deliberately absent.
#include "cudalab/grading/reports.hpp"
#include "reports_common.hpp"

namespace cudalab::grading {

using namespace reports_detail;
using nlohmann::json;

namespace {

json strings(const std::vector<std::string>& lines) {
  json out = json::array();
  for (const auto& l : lines) out.push_back(valid_utf8(l));
  return out;
}

json score_json(const Score& s) {
  return {{"correctness", s.correctness},
          {"performance", s.performance},
          {"penalties", s.penalties},
          {"late", s.late},
          {"total", s.total},
          {"max", s.max},
          {"notes", strings(s.notes)}};
}

json timing_json(const Timing& t) {
  json out = {{"label", valid_utf8(t.label)},
              {"median_s", t.median_s},
              {"reference_s", t.reference_s > 0 ? json(t.reference_s) : json(nullptr)},
              {"throughput", t.throughput},
              {"unit", valid_utf8(t.unit)},
              {"percent_of_peak", t.percent_of_peak}};
  const auto x = speedup(t);
  out["speedup"] = x ? json(*x) : json(nullptr);
  return out;
}

json check_json(const CheckRow& c) {
  return {{"label", valid_utf8(c.label)},  {"verdict", valid_utf8(c.verdict)}, {"message", valid_utf8(c.message)},
          {"details", strings(c.details)}, {"hints", strings(c.hints)},        {"solve_ms", c.solve_ms}};
}

json attempt_json(const Attempt& a) {
  json checks = json::array();
  for (const auto& c : a.checks) checks.push_back(check_json(c));
  return {{"attempt_id", a.id},
          {"verdict", valid_utf8(a.verdict)},
          {"message", valid_utf8(a.message)},
          {"hints", strings(a.hints)},
          {"score", score_json(a.score)},
          {"checks", std::move(checks)},
          {"timing", a.timing ? timing_json(*a.timing) : json(nullptr)},
          {"speed_graded", a.speed_graded},
          {"backend", valid_utf8(a.backend)},
          {"device", valid_utf8(a.device)},
          {"source_hash", valid_utf8(a.source_hash)},
          {"source_path", valid_utf8(a.source_path)},
          {"cudalab_version", valid_utf8(a.cudalab_version)},
          {"submitted_at", valid_utf8(a.submitted_at)},
          {"graded_at", valid_utf8(a.graded_at)},
          {"seconds", a.seconds}};
}

json exercise_json(const ExerciseStats& s) {
  json out = {{"id", valid_utf8(s.exercise)}, {"max_points", s.max}, {"submitted", s.submitted}, {"passed", s.passed},
              {"full_marks", s.full},         {"mean", s.mean},      {"timed", s.timed}};
  json verdicts = json::object();
  for (const auto& [v, n] : s.verdicts) verdicts[valid_utf8(v)] = n;
  out["verdicts"] = std::move(verdicts);
  out["most_common_failure"] = s.common_failure.empty() ? json(nullptr)
                                                        : json{{"verdict", valid_utf8(s.common_failure)},
                                                               {"count", s.common_failure_count},
                                                               {"example_message", valid_utf8(s.example_message)},
                                                               {"example_student", valid_utf8(s.example_student)}};
  out["median_speedup"] = s.median_speedup ? json(*s.median_speedup) : json(nullptr);
  out["median_time_s"] = s.median_time_s ? json(*s.median_time_s) : json(nullptr);
  return out;
}

}  // namespace

json class_json(const ClassResults& results) {
  json exercises = json::array();
  for (const auto& e : results.exercises) exercises.push_back(exercise_json(exercise_stats(results, e)));
  json students = json::array();
  for (const auto& student : results.students) {
    json per_exercise = json::object();
    for (const auto& e : results.exercises) {
      const Attempt* a = results.find(student, e);
      per_exercise[valid_utf8(e)] = a == nullptr ? json(nullptr) : attempt_json(*a);  // null: not submitted
    }
    const auto notes = results.student_notes.find(student);
    students.push_back({{"name", valid_utf8(student)},
                        {"total", results.total(student)},
                        {"max", results.max_total()},
                        {"rank", score_standing(results, student).rank},
                        {"notes", notes == results.student_notes.end() ? json::array() : strings(notes->second)},
                        {"exercises", std::move(per_exercise)}});
  }
  return {{"cudalab_version", valid_utf8(results.cudalab_version)},
          {"device", valid_utf8(results.device)},
          {"speed_graded", results.speed_graded},
          {"speed", speed_line(results)},
          {"graded_at", valid_utf8(results.graded_at)},
          {"max_total", results.max_total()},
          {"exercises", std::move(exercises)},
          {"students", std::move(students)}};
}

}  // namespace cudalab::grading
