#include "reports_common.hpp"

#include "cudalab/judge.hpp"
#include "cudalab/report.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace cudalab::grading::reports_detail {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr double kEpsilon = 1e-9;                          // points are sums of decimals

// The length of the valid UTF-8 sequence at `i`, or 0 when the byte there starts none.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range excludes overlongs and surrogates
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

// Skips the escape sequence that starts at s[i] == ESC; returns the index after it.
std::size_t skip_escape(std::string_view s, std::size_t i) {
  ++i;
  if (i >= s.size()) return i;
  if (s[i] == '[') {  // CSI: parameters, intermediates, one final byte
    ++i;
    while (i < s.size() && s[i] >= 0x20 && s[i] <= 0x3F) ++i;
    return i < s.size() ? i + 1 : i;
  }
  if (s[i] == ']') {  // OSC: up to BEL or ESC backslash
    while (i < s.size() && s[i] != '\a' && s[i] != '\x1b') ++i;
    if (i < s.size() && s[i] == '\x1b') ++i;
    return i < s.size() ? i + 1 : i;
  }
  return i + 1;
}

}  // namespace

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence(text, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string printable(std::string_view text) {
  const std::string clean = valid_utf8(text);
  const std::string_view s = clean;
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0x1b) {
      i = skip_escape(s, i);
    } else if (c == '\r') {
      ++i;
    } else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      out += '?';
      ++i;
    } else if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) < 0xA0) {
      out += '?';  // C1 controls (U+0080–U+009F): some terminals obey them
      i += 2;
    } else {
      out += s[i];
      ++i;
    }
  }
  return out;
}

std::string one_line(std::string_view text) {
  std::string out = printable(text);
  std::replace_if(
      out.begin(), out.end(), [](char c) { return c == '\n' || c == '\t'; }, ' ');
  return out;
}

std::string xml_escape(std::string_view text) { return cudalab::xml_escape(printable(text)); }

// HTML5 knows every XML entity (&apos; included), so one escape serves both.
std::string html_escape(std::string_view text) { return xml_escape(text); }

std::string points(double value, int decimals) {
  std::string s = fmt::format("{:.{}f}", value, decimals);
  if (s.find_first_not_of("-0.") == std::string::npos) return "0";  // no "-0"
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string verdict_words(const std::string& verdict) {
  if (verdict.empty()) return "unknown";
  // The same words as `cudalab check` (the one verdict table); a row's own word ("not submitted")
  // stays as it is.
  if (const auto v = verdict_from_name(verdict)) return verdict_title(*v);
  std::string out = verdict;
  std::replace(out.begin(), out.end(), '_', ' ');
  return out;
}

std::string three_digits(double value) {
  const double a = std::abs(value);
  if (a == 0) return "0";
  if (a >= 99.95) return fmt::format("{:.0f}", value);
  if (a >= 9.995) return fmt::format("{:.1f}", value);
  if (a >= 0.9995) return fmt::format("{:.2f}", value);
  return fmt::format("{:.3g}", value);
}

std::string duration_text(double seconds) {
  if (seconds >= 0.9995) return three_digits(seconds) + " s";
  if (seconds >= 0.9995e-3) return three_digits(seconds * 1e3) + " ms";
  return three_digits(seconds * 1e6) + " µs";
}

std::string throughput_text(double value, const std::string& unit) { return three_digits(value) + " " + unit; }

std::optional<double> speedup(const Timing& t) {
  if (t.slowdown() <= 0) return std::nullopt;
  return 1 / t.slowdown();
}

std::string paired_ratio_text(const Timing& t) {
  if (t.rounds == 0) return {};
  return fmt::format(
      "{:.3f}× the reference solution's time (95 % interval {:.3f}–{:.3f}), from {} rounds timed in "
      "turn with it on the same GPU",
      t.ratio, t.ratio_low, t.ratio_high, t.rounds);
}

std::optional<double> reference_throughput(const Timing& t) {
  if (t.median_s <= 0 || t.reference_s <= 0 || t.throughput <= 0) return std::nullopt;
  return t.throughput * t.median_s / t.reference_s;
}

std::optional<double> device_peak(const Timing& t) {
  if (t.percent_of_peak <= 0 || t.throughput <= 0) return std::nullopt;
  return t.throughput * 100.0 / t.percent_of_peak;
}

bool passed(const Attempt& a) { return a.verdict == "passed"; }

bool full_marks(const Attempt& a) { return a.score.max > 0 && a.score.total >= a.score.max - kEpsilon; }

double exercise_max(const ClassResults& results, const std::string& exercise) {
  if (const auto it = results.max_points.find(exercise); it != results.max_points.end()) return it->second;
  for (const auto& [key, attempt] : results.attempts) {
    if (key.second == exercise) return attempt.score.max;
  }
  return 0;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

ExerciseStats exercise_stats(const ClassResults& results, const std::string& exercise) {
  ExerciseStats s;
  s.exercise = exercise;
  s.max = exercise_max(results, exercise);
  s.students = static_cast<int>(results.students.size());
  double sum = 0;
  std::vector<double> speedups, times;
  for (const auto& student : results.students) {
    const Attempt* a = results.find(student, exercise);
    if (a == nullptr) continue;
    ++s.submitted;
    sum += a->score.total;
    s.passed += passed(*a) ? 1 : 0;
    s.full += full_marks(*a) ? 1 : 0;
    ++s.verdicts[a->verdict];
    if (a->timing) {
      ++s.timed;
      times.push_back(a->timing->median_s);
      if (auto x = speedup(*a->timing)) speedups.push_back(*x);
    }
  }
  s.mean = s.students > 0 ? sum / s.students : 0;
  for (const auto& [verdict, count] : s.verdicts) {
    // std::map iterates alphabetically, so ties go to the first verdict name: stable across runs.
    if (verdict != "passed" && count > s.common_failure_count) {
      s.common_failure = verdict;
      s.common_failure_count = count;
    }
  }
  if (!s.common_failure.empty()) {
    for (const auto& student : results.students) {
      const Attempt* a = results.find(student, exercise);
      if (a != nullptr && a->verdict == s.common_failure) {
        s.example_message = a->message;
        s.example_student = student;
        break;
      }
    }
  }
  if (!speedups.empty()) s.median_speedup = median(speedups);
  if (!times.empty()) s.median_time_s = median(times);
  return s;
}

Standing score_standing(const ClassResults& results, const std::string& student) {
  const double mine = results.total(student);
  Standing st{1, static_cast<int>(results.students.size())};
  for (const auto& other : results.students) {
    if (results.total(other) > mine + kEpsilon) ++st.rank;
  }
  return st;
}

std::optional<Standing> time_standing(const ClassResults& results, const std::string& student,
                                      const std::string& exercise) {
  const Attempt* mine = results.find(student, exercise);
  if (mine == nullptr || !mine->timing) return std::nullopt;
  Standing st{1, 0};
  for (const auto& other : results.students) {
    const Attempt* a = results.find(other, exercise);
    if (a == nullptr || !a->timing) continue;
    ++st.of;
    if (a->timing->median_s < mine->timing->median_s) ++st.rank;
  }
  return st;
}

std::string speed_line(const ClassResults& results) {
  if (results.speed_graded) return "speed graded on " + (results.device.empty() ? "the GPU" : one_line(results.device));
  const bool any_gpu = std::any_of(results.attempts.begin(), results.attempts.end(),
                                   [](const auto& kv) { return kv.second.backend == "gpu"; });
  if (!any_gpu) return "speed not graded: checked on the CPU simulator";
  return "speed not graded: no attempt was timed on " + (results.device.empty() ? "the GPU" : one_line(results.device));
}

std::string safe_file_name(const std::string& name) {
  std::string out = valid_utf8(name);
  for (char& c : out) {
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '_';
  }
  if (out.empty() || out == "." || out == "..") out.insert(0, "_");
  return out;
}

}  // namespace cudalab::grading::reports_detail
