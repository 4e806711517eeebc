// The instructor's terminal summary.
#include <algorithm>
#include <cstddef>

#include <fmt/color.h>
#include <fmt/format.h>

#include "cudalab/grading/reports.hpp"
#include "cudalab/text.hpp"
#include "reports_common.hpp"

namespace cudalab::grading {

using namespace reports_detail;

namespace {

// Points of an attempt, coloured by how they compare with the exercise's maximum.
fmt::text_style points_style(const Attempt* a) {
  if (a == nullptr) return fmt::emphasis::faint;
  if (full_marks(*a)) return fmt::fg(fmt::terminal_color::green);
  if (a->score.total > 0) return fmt::fg(fmt::terminal_color::yellow);
  return fmt::fg(fmt::terminal_color::red);
}

std::size_t text_width(const std::string& s) {
  // Code points, not bytes: names and the dash may be UTF-8.
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// Pads before painting: escape codes would upset the column widths.
std::string pad_left(const std::string& s, std::size_t width) {
  const std::size_t w = text_width(s);
  return w >= width ? s : std::string(width - w, ' ') + s;
}
std::string pad_right(const std::string& s, std::size_t width) {
  const std::size_t w = text_width(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

}  // namespace

void write_summary(std::ostream& out, const ClassResults& results, bool color) {
  const auto bold = fmt::text_style(fmt::emphasis::bold);
  out << paint(color, bold,
               fmt::format("cudalab grades: {} student{}, {} exercise{}, {} points", results.students.size(),
                           results.students.size() == 1 ? "" : "s", results.exercises.size(),
                           results.exercises.size() == 1 ? "" : "s", points(results.max_total())))
      << '\n';
  if (!results.graded_at.empty() || !results.cudalab_version.empty()) {
    out << "graded " << (results.graded_at.empty() ? "" : one_line(results.graded_at) + " ")
        << (results.cudalab_version.empty() ? "" : "with cudalab " + one_line(results.cudalab_version)) << '\n';
  }
  out << speed_line(results) << "\n\n";

  // The class table: a row per student.
  std::size_t name_width = 7;
  for (const auto& s : results.students) name_width = std::max(name_width, text_width(one_line(s)));
  std::vector<std::size_t> widths;
  for (const auto& e : results.exercises) widths.push_back(std::max<std::size_t>(6, text_width(e)));
  const std::string max_total = points(results.max_total());
  const std::size_t total_width = std::max<std::size_t>(5, 2 * max_total.size() + 1);

  std::string header = pad_right("student", name_width);
  std::string maxima = std::string(name_width, ' ');
  for (std::size_t i = 0; i < results.exercises.size(); ++i) {
    header += "  " + pad_left(results.exercises[i], widths[i]);
    maxima += "  " + pad_left("/" + points(exercise_max(results, results.exercises[i])), widths[i]);
  }
  header += "  " + pad_left("total", total_width);
  maxima += "  " + pad_left("/" + max_total, total_width);
  out << paint(color, bold, header) << '\n' << paint(color, fmt::emphasis::faint, maxima) << '\n';
  for (const auto& student : results.students) {
    out << pad_right(one_line(student), name_width);
    for (std::size_t i = 0; i < results.exercises.size(); ++i) {
      const Attempt* a = results.find(student, results.exercises[i]);
      const std::string cell = a == nullptr ? "-" : points(a->score.total);
      out << "  " << paint(color, points_style(a), pad_left(cell, widths[i]));
    }
    out << "  " << paint(color, bold, pad_left(points(results.total(student)), total_width)) << '\n';
  }
  if (results.students.empty()) out << "(no students)\n";

  // Per exercise.
  std::size_t ex_width = 8;
  for (const auto& e : results.exercises) ex_width = std::max(ex_width, text_width(e));
  out << '\n'
      << paint(color, bold,
               fmt::format("{}  {:>13}  {:>10}  {:>9}  {}{}", pad_right("exercise", ex_width), "mean", "full marks",
                           "submitted", results.speed_graded ? "speedup  " : "", "most common failure"))
      << '\n';
  for (const auto& e : results.exercises) {
    const ExerciseStats s = exercise_stats(results, e);
    const std::string failure = s.common_failure.empty()
                                    ? "none"
                                    : fmt::format("{} ({})", verdict_words(s.common_failure), s.common_failure_count);
    std::string speed;
    if (results.speed_graded) {
      speed = s.median_speedup ? fmt::format("{:>7}  ", three_digits(*s.median_speedup) + "×") : "      -  ";
    }
    out << fmt::format("{}  {:>13}  {:>10}  {:>9}  {}", pad_right(e, ex_width), points(s.mean) + " / " + points(s.max),
                       fmt::format("{}/{}", s.full, s.students), fmt::format("{}/{}", s.submitted, s.students), speed)
        << paint(color,
                 s.common_failure.empty() ? fmt::fg(fmt::terminal_color::green) : fmt::fg(fmt::terminal_color::red),
                 failure)
        << '\n';
  }
  if (results.speed_graded)
    out << "(speedup: the median over the timed students of the reference's time / the student's)\n";

  bool any_note = false;
  for (const auto& student : results.students) {
    const auto it = results.student_notes.find(student);
    if (it == results.student_notes.end() || it->second.empty()) continue;
    if (!any_note) out << '\n' << paint(color, bold, "notes") << '\n';
    any_note = true;
    for (const auto& note : it->second) out << "  " << one_line(student) << ": " << one_line(note) << '\n';
  }
}

}  // namespace cudalab::grading
