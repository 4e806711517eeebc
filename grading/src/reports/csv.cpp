// Grades as RFC 4180 CSV.
#include "cudalab/grading/reports.hpp"
#include "reports_common.hpp"

namespace cudalab::grading {

using namespace reports_detail;

namespace {

// RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled.
std::string csv_field(const std::string& raw) {
  std::string text = valid_utf8(raw);
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

void write_grades_csv(std::ostream& out, const ClassResults& results) {
  constexpr const char* kEol = "\r\n";  // RFC 4180's line break
  out << "student";
  for (const auto& e : results.exercises) out << ',' << csv_field(e);
  out << ",total,max" << kEol;
  constexpr int kDecimals = 4;  // a spreadsheet sums the cells: keep what rounding to 2 would lose
  const std::string max_total = points(results.max_total(), kDecimals);
  for (const auto& student : results.students) {
    out << csv_field(student);
    for (const auto& e : results.exercises) {
      out << ',';
      if (const Attempt* a = results.find(student, e)) out << points(a->score.total, kDecimals);
    }
    out << ',' << points(results.total(student), kDecimals) << ',' << max_total << kEol;
  }
}

}  // namespace cudalab::grading
