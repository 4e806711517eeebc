// JUnit XML: a testsuite per student, a testcase per check.
#include <fmt/format.h>

#include "cudalab/grading/reports.hpp"
#include "reports_common.hpp"

namespace cudalab::grading {

using namespace reports_detail;

namespace {

struct Case {
  std::string name;
  std::string type;  ///< the verdict; empty when passed
  std::string message;
  std::string body;
  bool skipped = false;
  double seconds = 0;
};

std::string failure_body(const std::vector<std::string>& details, const std::vector<std::string>& hints) {
  std::string body;
  for (const auto& d : details) body += d + "\n";
  for (const auto& h : hints) body += "hint: " + h + "\n";
  return body;
}

// The testcases of one exercise of one student.
std::vector<Case> cases_of(const Attempt* a) {
  if (a == nullptr) return {{"submission", "not_submitted", "not submitted", "", false, 0}};
  std::vector<Case> out;
  for (const auto& c : a->checks) {
    Case k{c.label, "", c.message, "", c.verdict == "skipped", c.solve_ms / 1000.0};
    if (c.verdict != "passed" && !k.skipped) {
      k.type = c.verdict.empty() ? "unknown" : c.verdict;
      k.body = failure_body(c.details, c.hints);
    }
    out.push_back(std::move(k));
  }
  if (out.empty()) {
    // Nothing was run (a compile error, a wrong signature): the attempt is its one testcase.
    Case k{a->verdict == "compile_error" ? "compile" : "load", "", a->message, "", false, 0};
    if (!passed(*a)) {
      k.type = a->verdict.empty() ? "unknown" : a->verdict;
      k.body = failure_body({}, a->hints);
    }
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace

void write_junit(std::ostream& out, const ClassResults& results) {
  struct Suite {
    std::string student;
    std::vector<std::pair<std::string, Case>> cases;  // (exercise, case)
    std::size_t failures = 0, skipped = 0;
    double seconds = 0;
  };
  std::vector<Suite> suites;
  std::size_t tests = 0, failures = 0, skipped = 0;
  for (const auto& student : results.students) {
    Suite s{student, {}, 0, 0, 0};
    for (const auto& e : results.exercises) {
      for (auto& c : cases_of(results.find(student, e))) {
        s.failures += c.type.empty() ? 0 : 1;
        s.skipped += c.skipped ? 1 : 0;
        s.seconds += c.seconds;
        s.cases.emplace_back(e, std::move(c));
      }
    }
    tests += s.cases.size();
    failures += s.failures;
    skipped += s.skipped;
    suites.push_back(std::move(s));
  }

  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << fmt::format("<testsuites name=\"cudalab grade\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n", tests,
                     failures, skipped);
  for (const auto& s : suites) {
    const std::string student = xml_escape(s.student);
    out << fmt::format(
               "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.6f}\">\n",
               student, s.cases.size(), s.failures, s.skipped, s.seconds)
        << "    <properties>\n"
        << fmt::format("      <property name=\"total\" value=\"{}\"/>\n", points(results.total(s.student), 4))
        << fmt::format("      <property name=\"max\" value=\"{}\"/>\n", points(results.max_total(), 4))
        << "    </properties>\n";
    for (const auto& [exercise, c] : s.cases) {
      out << fmt::format("    <testcase classname=\"{}.{}\" name=\"{}\" time=\"{:.6f}\"", student, xml_escape(exercise),
                         xml_escape(c.name), c.seconds);
      if (c.type.empty() && !c.skipped) {
        out << "/>\n";
        continue;
      }
      out << ">\n";
      if (c.skipped) {
        out << fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(one_line(c.message)));
      } else {
        out << fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n", xml_escape(c.type),
                           xml_escape(one_line(c.message)), xml_escape(c.body));
      }
      out << "    </testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
}

}  // namespace cudalab::grading
