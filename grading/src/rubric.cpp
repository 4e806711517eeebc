#include "cudalab/grading/rubric.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "cudalab/files.hpp"

namespace cudalab::grading {

namespace {

/// Reads one table of the rubric, checking every key it holds.
class Reader {
 public:
  Reader(std::string name, const toml::table& table, std::string path)
      : name_(std::move(name)), table_(table), path_(std::move(path)) {}

  /// Fails on any key the rubric does not define (a typo would otherwise be ignored silently).
  void only(const std::set<std::string>& allowed) const {
    for (const auto& [key, node] : table_) {
      if (allowed.count(std::string(key.str())) == 0) {
        fail(node, fmt::format("{} is not a rubric key (known here: {})", dotted(key.str()), fmt::join(allowed, ", ")));
      }
    }
  }

  /// A number in [lo, hi], or `fallback` when absent.
  double number(const std::string& key, double fallback, double lo, double hi) const {
    const toml::node* node = table_.get(key);
    if (node == nullptr) return fallback;
    const auto value = node->value<double>();
    if (!value || !(*value >= lo && *value <= hi)) {
      fail(*node, fmt::format("{} must be a number from {} to {}", dotted(key), lo, hi));
    }
    return *value;
  }

  std::optional<std::string> text(const std::string& key) const {
    const toml::node* node = table_.get(key);
    if (node == nullptr) return std::nullopt;
    // A TOML date-time is accepted as well as a string.
    if (const auto* dt = node->as_date_time()) {
      std::ostringstream out;
      out << *dt;
      return out.str();
    }
    const auto value = node->value<std::string>();
    if (!value) fail(*node, fmt::format("{} must be a string", dotted(key)));
    return value;
  }

  /// The sub-table `key`, or nothing when absent.
  std::optional<Reader> table(const std::string& key) const {
    const toml::node* node = table_.get(key);
    if (node == nullptr) return std::nullopt;
    const toml::table* t = node->as_table();
    if (t == nullptr) fail(*node, fmt::format("{} must be a table ([{}])", dotted(key), dotted(key)));
    return Reader(name_, *t, dotted(key));
  }

  [[noreturn]] void fail(const toml::node& node, const std::string& what) const {
    throw RubricError(fmt::format("{}:{}: {}", name_, node.source().begin.line, what));
  }

  [[nodiscard]] std::string dotted(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }
  [[nodiscard]] const toml::table& raw() const { return table_; }

 private:
  std::string name_;
  const toml::table& table_;
  std::string path_;
};

}  // namespace

std::optional<double> parse_utc(const std::string& iso) {
  std::tm tm{};
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  char tail = 0;
  const int n = std::sscanf(iso.c_str(), "%d-%d-%d%*[T ]%d:%d:%d%c", &y, &mo, &d, &h, &mi, &s, &tail);
  if (n < 6 || (n == 7 && tail != 'Z')) return std::nullopt;
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  const std::time_t t = timegm(&tm);
  if (t == static_cast<std::time_t>(-1)) return std::nullopt;
  return static_cast<double>(t);
}

Rubric parse_rubric(const std::string& text, const std::string& name, const std::vector<std::string>& known) {
  toml::table root;
  try {
    root = toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    throw RubricError(fmt::format("{}:{}: {}", name, e.source().begin.line, e.description()));
  }
  Rubric rubric;
  rubric.source = name;
  rubric.hash = content_key({"rubric", text});
  const Reader top(name, root, "");
  top.only({"version", "performance", "penalties", "late", "exercises"});
  if (const toml::node* v = root.get("version"); v != nullptr && v->value<int64_t>().value_or(0) != 1) {
    top.fail(*v, "version must be 1 (the rubric format this cudalab reads)");
  }
  if (auto p = top.table("performance")) {
    p->only({"full_at", "floor_at", "floor"});
    rubric.performance.full_at = p->number("full_at", rubric.performance.full_at, 1.0, 1000.0);
    rubric.performance.floor_at = p->number("floor_at", rubric.performance.floor_at, 1.0, 1000.0);
    rubric.performance.floor = p->number("floor", rubric.performance.floor, 0.0, 1.0);
    if (rubric.performance.floor_at <= rubric.performance.full_at) {
      const toml::node* floor_at = p->raw().get("floor_at");
      p->fail(floor_at != nullptr ? *floor_at : *root.get("performance"),
              "performance.floor_at must be greater than performance.full_at");
    }
  }
  if (auto p = top.table("penalties")) {
    p->only({"requirement_unmet", "device_leak"});
    rubric.penalties.requirement_unmet = p->number("requirement_unmet", rubric.penalties.requirement_unmet, 0, 1);
    rubric.penalties.device_leak = p->number("device_leak", rubric.penalties.device_leak, 0, 1);
  }
  if (auto l = top.table("late")) {
    l->only({"deadline", "per_day", "max_days"});
    rubric.late.deadline = l->text("deadline");
    if (rubric.late.deadline && !parse_utc(*rubric.late.deadline)) {
      l->fail(*l->raw().get("deadline"), "late.deadline must be a UTC time such as 2026-12-01T23:59:00Z");
    }
    rubric.late.per_day = l->number("per_day", rubric.late.per_day, 0, 1);
    rubric.late.max_days = static_cast<int>(l->number("max_days", rubric.late.max_days, 0, 365));
  }
  const auto exercises = top.table("exercises");
  if (!exercises) throw RubricError(name + ": no [exercises.NN_name] table: the rubric grades nothing");
  for (const auto& [key, node] : exercises->raw()) {
    const std::string id(key.str());
    if (std::ranges::find(known, id) == known.end()) {
      exercises->fail(node, fmt::format("exercises.{} is not an exercise (known: {})", id, fmt::join(known, ", ")));
    }
    const auto e = exercises->table(id);
    e->only({"points", "performance_share", "correctness"});
    ExerciseRule rule;
    rule.points = e->number("points", 0, 0, 1e6);
    if (rule.points <= 0) {
      const toml::node* p = e->raw().get("points");
      e->fail(p != nullptr ? *p : node, fmt::format("exercises.{}.points must be a number > 0", id));
    }
    rule.performance_share = e->number("performance_share", 0.3, 0, 1);
    const std::string how = e->text("correctness").value_or("all_checks");
    if (how == "all_checks") {
      rule.correctness = CorrectnessRule::all_checks;
    } else if (how == "per_check") {
      rule.correctness = CorrectnessRule::per_check;
    } else {
      e->fail(*e->raw().get("correctness"),
              fmt::format("exercises.{}.correctness must be \"all_checks\" or \"per_check\"", id));
    }
    rubric.exercises[id] = rule;
  }
  if (rubric.exercises.empty()) throw RubricError(name + ": [exercises] names no exercise: the rubric grades nothing");
  return rubric;
}

Rubric load_rubric(const std::filesystem::path& file, const std::vector<std::string>& known) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw RubricError(file.string() + ": cannot read the rubric");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_rubric(text.str(), file.string(), known);
}

Score Rubric::score(const Attempt& a) const {
  Score s;
  const auto it = exercises.find(a.exercise);
  if (it == exercises.end()) return s;
  const ExerciseRule& rule = it->second;
  const double speed_points = rule.points * rule.performance_share;
  const double correctness_points = rule.points - speed_points;
  s.max = a.speed_graded ? rule.points : correctness_points;
  if (!a.speed_graded && speed_points > 0) {
    s.notes.push_back(fmt::format("speed not graded ({}): out of {:g} points, not {:g}",
                                  a.backend == "sim" ? "checked on the CPU simulator" : "the checks did not all pass",
                                  correctness_points, rule.points));
    if (a.backend != "sim") s.max = rule.points;  // on a GPU, speed is lost with correctness
  }

  // Correctness: a check whose output was right counts, even where a rule was broken (that is a
  // penalty below, not a wrong answer).
  std::size_t right = 0;
  bool unmet = false, leak = false;
  for (const auto& c : a.checks) {
    const bool ok = c.verdict == "passed" || c.verdict == "requirement_unmet" || c.verdict == "device_leak";
    right += ok ? 1 : 0;
    unmet = unmet || c.verdict == "requirement_unmet";
    leak = leak || c.verdict == "device_leak";
  }
  const std::size_t total = a.checks.size();
  if (total > 0 && rule.correctness == CorrectnessRule::per_check) {
    s.correctness = correctness_points * static_cast<double>(right) / static_cast<double>(total);
    s.notes.push_back(fmt::format("correctness: {} of {} checks right: {:.4g} of {:g} points", right, total,
                                  s.correctness, correctness_points));
  } else if (total > 0 && right == total) {
    s.correctness = correctness_points;
    s.notes.push_back(fmt::format("correctness: every check right: {:g} points", correctness_points));
  } else {
    s.notes.push_back(fmt::format("correctness: {} of {} checks right ({}): 0 of {:g} points", right, total, a.verdict,
                                  correctness_points));
  }

  if (a.speed_graded && a.timing && a.timing->slowdown() > 0 && speed_points > 0) {
    // A continuous function of the ratio: no tier edge for a measurement's noise to cross.
    const double slowdown = a.timing->slowdown();
    double fraction = 1;
    if (slowdown > performance.full_at) {
      const double t = std::min(1.0, (slowdown - performance.full_at) / (performance.floor_at - performance.full_at));
      fraction = 1 - t * (1 - performance.floor);
    }
    s.performance = speed_points * fraction;
    const Timing& t = *a.timing;
    const std::string known = t.rounds > 0 ? fmt::format(" ({:.3f}–{:.3f}, {} rounds timed in turn with it)",
                                                         t.ratio_low, t.ratio_high, t.rounds)
                                           : "";
    s.notes.push_back(
        fmt::format("speed: {:.3f}× the reference solution's time{} (full marks up to {:g}×): {:.4g} of "
                    "{:g} points",
                    slowdown, known, performance.full_at, s.performance, speed_points));
  }
  if (unmet) {
    const double p = penalties.requirement_unmet * rule.points;
    s.penalties += p;
    s.notes.push_back(fmt::format("penalty: a requirement of the exercise was not met: −{:.4g} points", p));
  }
  if (leak) {
    const double p = penalties.device_leak * rule.points;
    s.penalties += p;
    s.notes.push_back(fmt::format("penalty: device memory was not freed: −{:.4g} points", p));
  }
  double earned = std::max(0.0, s.correctness + s.performance - s.penalties);
  if (late.deadline && !a.submitted_at.empty()) {
    const auto due = parse_utc(*late.deadline);
    const auto at = parse_utc(a.submitted_at);
    if (due && at && *at > *due) {
      const int days = static_cast<int>(std::ceil((*at - *due) / 86400.0));
      s.late = days > late.max_days ? earned : std::min(earned, earned * late.per_day * days);
      s.notes.push_back(
          days > late.max_days
              ? fmt::format("late: {} days after the deadline, more than the {} allowed: no points", days,
                            late.max_days)
              : fmt::format("late: {} day{} after the deadline: −{:.4g} points", days, days == 1 ? "" : "s", s.late));
    }
  }
  s.total = std::max(0.0, earned - s.late);
  return s;
}

}  // namespace cudalab::grading
