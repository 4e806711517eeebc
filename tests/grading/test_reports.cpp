// The class reports (grading/reports.hpp) on hand-built classes: a small one whose every number is
// known (a missing exercise, a compile error, a wrong output with hints, timed and untimed), and a
// generated class of twenty for the HTML page, which headless Chromium renders.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/chromium.hpp"
#include "../support/files.hpp"
#include "cudalab/grading/reports.hpp"

namespace {

using namespace cudalab::grading;
namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::uint64_t kSecretSeed = 9876543210123ULL;  // digits no report may contain
constexpr const char* kDevice = "NVIDIA H100 80GB HBM3";
constexpr const char* kTrickyMessage = "expected <1.0> & got \"2\" at 'C[0][0]'";
constexpr const char* kHint = "fails exactly when K is not a multiple of 16: does the code handle the last tile?";

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + what.size())) ++n;
  return n;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

CheckRow check(const std::string& label, const std::string& verdict, const std::string& message,
               std::vector<std::string> details = {}, std::vector<std::string> hints = {}) {
  return {label, verdict, message, std::move(details), std::move(hints), 1.5};
}

Attempt attempt(const std::string& student, const std::string& exercise, double max, bool gpu) {
  Attempt a;
  a.id = 1;
  a.student = student;
  a.exercise = exercise;
  a.source_hash = "deadbeef";
  a.source_path = exercise + "/kernel.cu";
  a.cudalab_version = "0.1.0";
  a.backend = gpu ? "gpu" : "sim";
  a.device = gpu ? kDevice : "CPU simulator";
  a.seed = kSecretSeed;
  a.verdict = "passed";
  a.message = "passed";
  a.score = {max, 0, 0, 0, max, max, {"every check passed"}};
  a.submitted_at = "2025-03-01T10:00:00+01:00";
  a.graded_at = "2025-03-02T09:00:00Z";
  a.seconds = 2.5;
  return a;
}

void add(ClassResults& c, Attempt a) { c.attempts[{a.student, a.exercise}] = std::move(a); }

// alice passes both (timed), bob fails 03_matmul on two sizes, carol's 01 does not compile and her
// 03 is missing. 01_increment is worth 10, 03_matmul 20.
ClassResults small_class(bool timed) {
  ClassResults c;
  c.cudalab_version = "0.1.0";
  c.device = timed ? kDevice : "CPU simulator";
  c.speed_graded = timed;
  c.graded_at = "2025-03-02T09:00:00Z";
  c.exercises = {"01_increment", "03_matmul"};
  c.students = {"alice", "bob", "carol"};
  c.max_points = {{"01_increment", 10}, {"03_matmul", 20}};
  const auto timing = [&](double median_s, double throughput, double percent) -> std::optional<Timing> {
    if (!timed) return std::nullopt;
    return Timing{"n=67108864", median_s, 0.5e-3, throughput, "GB/s", percent};
  };
  const std::vector<CheckRow> all_pass = {check("n=1", "passed", "passed"), check("n=257", "passed", "passed"),
                                          check("n=67108864", "passed", "passed")};

  Attempt a = attempt("alice", "01_increment", 10, timed);
  a.checks = all_pass;
  a.timing = timing(0.4e-3, 1342, 40.0);
  a.speed_graded = timed;
  add(c, a);
  a = attempt("alice", "03_matmul", 20, timed);
  a.checks = all_pass;
  if (timed) a.timing = Timing{"M=N=K=4096", 8e-3, 10e-3, 17180, "GFLOP/s", 33.5};
  a.speed_graded = timed;
  add(c, a);

  a = attempt("bob", "01_increment", 10, timed);
  a.checks = all_pass;
  a.timing = timing(1.0e-3, 537, 16.0);
  a.speed_graded = timed;
  a.score.performance = 2;
  a.score.correctness = 6;
  a.score.total = 8;
  a.score.notes = {"performance: 0.5x the reference earns 2 of 4 points"};
  add(c, a);
  a = attempt("bob", "03_matmul", 20, timed);
  a.verdict = "wrong_output";
  a.message = kTrickyMessage;
  a.hints = {kHint};
  a.checks = {check("M=16 N=16 K=16", "passed", "passed"),
              check("M=17 N=17 K=17", "wrong_output", kTrickyMessage, {"C[0][0]: expected 4.182, got 3.911"}, {kHint}),
              check("M=33 N=17 K=65", "wrong_output", "wrong output: 1122 of 561 elements of C wrong")};
  a.score = {8.5, 0, 0, 1, 7.5, 20, {"1 of 3 sizes correct: 8.5 of 17 correctness points", "1 day late: -1"}};
  add(c, a);

  a = attempt("carol", "01_increment", 10, timed);
  a.verdict = "compile_error";
  a.message = "the file does not compile: kernel.cu:3: error: expected ';'";
  a.hints = {"read the compiler's first error first"};
  a.score = {0, 0, 0, 0, 0, 10, {"does not compile: no points"}};
  add(c, a);
  c.student_notes["carol"] = {"no kernel.cu for 03_matmul in the archive"};
  return c;
}

// Twenty students with a spread of results on three exercises: what an instructor sees after a lab.
ClassResults generated_class(int students, bool timed) {
  ClassResults c;
  c.cudalab_version = "0.1.0";
  c.device = timed ? kDevice : "CPU simulator";
  c.speed_graded = timed;
  c.graded_at = "2025-03-02T09:00:00Z";
  c.exercises = {"01_increment", "02_vector_add", "03_matmul", "04_normalize", "05_reduce"};
  c.max_points = {
      {"01_increment", 10}, {"02_vector_add", 15}, {"03_matmul", 30}, {"04_normalize", 20}, {"05_reduce", 25}};
  struct Speed {
    std::string label, unit;
    double reference_s, reference_tp, peak;
  };
  const std::map<std::string, Speed> speeds = {{"01_increment", {"n=67108864", "GB/s", 11.6e-3, 46.2, 3352}},
                                               {"02_vector_add", {"n=67108864", "GB/s", 17.1e-3, 47.1, 3352}},
                                               {"03_matmul", {"M=N=K=4096", "GFLOP/s", 6.9e-3, 19900, 51200}},
                                               {"04_normalize", {"n=67108864", "GB/s", 0.19e-3, 2830, 3352}},
                                               {"05_reduce", {"n=67108864", "GB/s", 0.095e-3, 2825, 3352}}};
  static const std::vector<std::string> kNames = {
      "ada",  "alan", "barbara", "charles", "donald",   "edsger",  "frances", "grace", "guido", "hedy",
      "ivan", "john", "ken",     "linus",   "margaret", "niklaus", "radia",   "tony",  "vint",  "whitfield"};
  std::uint64_t state = 12345;  // a fixed LCG: the same class on every machine
  const auto next = [&state]() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / static_cast<double>(1ULL << 53);
  };
  for (int i = 0; i < students; ++i) {
    const std::string name = i < static_cast<int>(kNames.size()) ? kNames[i] : fmt::format("student{:03}", i);
    c.students.push_back(name);
    for (const auto& e : c.exercises) {
      const double u = next();
      if (u < 0.05) continue;  // not submitted
      const double max = c.max_points[e];
      Attempt a = attempt(name, e, max, timed);
      a.checks = {check("n=1", "passed", "passed"), check("n=1000", "passed", "passed")};
      if (u < 0.10) {
        a.verdict = "compile_error";
        a.message = "the file does not compile: kernel.cu:12: error: 'threadIdx' was not declared";
        a.checks.clear();
        a.score = {0, 0, 0, 0, 0, max, {"does not compile: no points"}};
      } else if (u < 0.22) {
        a.verdict = "wrong_output";
        a.message = "wrong output at n=1000: 488 of 1000 elements wrong";
        a.checks.push_back(check("n=1000", "wrong_output", a.message, {"y[512]: expected 1.5, got 0"}, {kHint}));
        a.hints = {kHint};
        a.score = {max * 0.4, 0, 0, 0, max * 0.4, max, {"2 of 5 sizes correct"}};
      } else if (u < 0.27) {
        a.verdict = e == "03_matmul" || e == "04_normalize" ? "requirement_unmet" : "timeout";
        a.message = a.verdict == "timeout" ? "timed out after 10 s at n=67108864" : "solve does not use shared memory";
        a.score = {max * 0.7, 0, 0, 0, max * 0.7, max, {}};
      } else if (timed) {
        const Speed& sp = speeds.at(e);
        const double speedup = std::pow(2.0, next() * 3.2 - 2.4);  // 0.19x to 1.7x the reference
        const double tp = std::min(sp.reference_tp * speedup, sp.peak * 0.97);
        a.timing = Timing{sp.label, sp.reference_s / speedup, sp.reference_s, tp, sp.unit, 100 * tp / sp.peak};
        a.speed_graded = true;
        a.score.performance = std::round(std::min(1.0, speedup) * max * 0.3 * 2) / 2;
        a.score.correctness = max * 0.7;
        a.score.total = a.score.correctness + a.score.performance;
      }
      add(c, a);
    }
  }
  c.student_notes["hedy"] = {"archive held a symlink (ignored): exercises/../../etc/passwd"};
  return c;
}

// ---- a minimal RFC 4180 reader and an XML well-formedness check, so the tests read what they test

std::vector<std::vector<std::string>> parse_csv(const std::string& text, bool& crlf_only) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false, at_start = true;
  crlf_only = true;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch == '"' && at_start) {
      quoted = true;
    } else if (ch == ',') {
      rows.back().push_back(field);
      field.clear();
      at_start = true;
      continue;
    } else if (ch == '\r' || ch == '\n') {
      if (ch == '\n' || i + 1 >= text.size() || text[i + 1] != '\n') crlf_only = false;
      if (ch == '\r') ++i;
      rows.back().push_back(field);
      field.clear();
      rows.emplace_back();
      at_start = true;
      continue;
    } else {
      field += ch;
    }
    at_start = false;
  }
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

// Tags nest and close, attribute values are quoted, text and values hold no raw '<' and only known
// entities. Returns "" or what is wrong.
std::string xml_problem(const std::string& xml) {
  std::vector<std::string> open;
  std::size_t i = 0, roots = 0;
  const auto entity_ok = [&](std::size_t at) {
    for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"}) {
      if (xml.compare(at, std::strlen(e), e) == 0) return true;
    }
    return false;
  };
  if (xml.rfind("<?xml", 0) == 0) i = xml.find("?>") + 2;
  while (i < xml.size()) {
    if (xml[i] == '&' && !entity_ok(i)) return fmt::format("bare & at {}", i);
    if (xml[i] == '>') return fmt::format("bare > in text at {}", i);
    if (xml[i] != '<') {
      ++i;
      continue;
    }
    const bool closing = xml[i + 1] == '/';
    std::size_t j = i + (closing ? 2 : 1);
    const std::size_t name_start = j;
    while (j < xml.size() && (std::isalnum(static_cast<unsigned char>(xml[j])) || xml[j] == '_' || xml[j] == '-')) ++j;
    const std::string name = xml.substr(name_start, j - name_start);
    if (name.empty()) return fmt::format("a tag without a name at {}", i);
    if (closing) {
      if (open.empty() || open.back() != name) return "</" + name + "> closes nothing open";
      open.pop_back();
      i = xml.find('>', j) + 1;
      continue;
    }
    for (;;) {  // attributes
      while (xml[j] == ' ' || xml[j] == '\n') ++j;
      if (xml[j] == '>' || xml.compare(j, 2, "/>") == 0) break;
      const std::size_t eq = xml.find('=', j);
      if (eq == std::string::npos || xml[eq + 1] != '"') return "an unquoted attribute in <" + name + ">";
      const std::size_t end = xml.find('"', eq + 2);
      for (std::size_t k = eq + 2; k < end; ++k) {
        if (xml[k] == '<') return "a raw < in an attribute of <" + name + ">";
        if (xml[k] == '&' && !entity_ok(k)) return "a bare & in an attribute of <" + name + ">";
      }
      j = end + 1;
    }
    if (open.empty()) ++roots;
    if (xml[j] == '>') open.push_back(name);
    i = j + (xml[j] == '>' ? 1 : 2);
  }
  if (!open.empty()) return "<" + open.back() + "> never closed";
  return roots == 1 ? "" : fmt::format("{} root elements", roots);
}

std::string summary_of(const ClassResults& c, bool color) {
  std::ostringstream out;
  write_summary(out, c, color);
  return out.str();
}

// ---- the tests ----------------------------------------------------------------------------------

TEST(ReportSummary, ListsEveryStudentAndExerciseWithoutColourCodes) {
  const std::string text = summary_of(small_class(true), false);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_NE(text.find("speed graded on NVIDIA H100 80GB HBM3"), std::string::npos) << text;
  // Rows: alice 10 + 20 = 30, bob 8 + 7.5 = 15.5, carol 0 and a dash for the missing exercise.
  std::istringstream lines(text);
  std::map<std::string, std::string> row;
  for (std::string l; std::getline(lines, l);) {
    for (const std::string s : {"alice", "bob", "carol", "01_increment", "03_matmul"}) {
      if (l.rfind(s + " ", 0) == 0) row[s] = l;
    }
  }
  EXPECT_NE(row["alice"].find("30"), std::string::npos) << text;
  EXPECT_NE(row["bob"].find("7.5"), std::string::npos) << text;
  EXPECT_NE(row["bob"].find("15.5"), std::string::npos) << text;
  EXPECT_NE(row["carol"].find(" - "), std::string::npos) << text;
  // Per exercise: mean over the class, full marks, most common failure.
  EXPECT_NE(row["01_increment"].find("6 / 10"), std::string::npos) << text;  // (10 + 8 + 0) / 3
  EXPECT_NE(row["01_increment"].find("1/3"), std::string::npos) << text;     // only alice
  EXPECT_NE(row["01_increment"].find("compile error (1)"), std::string::npos) << text;
  EXPECT_NE(row["03_matmul"].find("9.17 / 20"), std::string::npos) << text;  // (20 + 7.5 + 0) / 3
  EXPECT_NE(row["03_matmul"].find("wrong output (1)"), std::string::npos) << text;
  EXPECT_NE(row["03_matmul"].find("2/3"), std::string::npos) << text;  // submitted
  EXPECT_NE(text.find("carol: no kernel.cu for 03_matmul in the archive"), std::string::npos) << text;

  EXPECT_NE(summary_of(small_class(true), true).find("\x1b["), std::string::npos);
  const std::string untimed = summary_of(small_class(false), false);
  EXPECT_NE(untimed.find("speed not graded: checked on the CPU simulator"), std::string::npos) << untimed;
}

TEST(ReportSummary, KeepsAStudentsTerminalEscapesOffTheInstructorsTerminal) {
  ClassResults c = small_class(true);
  c.student_notes["bob"] = {"archive comment: \x1b]0;pwned\a\x1b[2J\x1b[31mred"};
  const std::string text = summary_of(c, false);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\a'), std::string::npos) << text;
  EXPECT_NE(text.find("archive comment: red"), std::string::npos) << text;
}

TEST(ReportCsv, ParsesBackAsRfc4180) {
  ClassResults c = small_class(true);
  c.students.push_back("doe, \"jr\"");  // a comma and quotes: the field must be quoted
  Attempt a = attempt("doe, \"jr\"", "01_increment", 10, true);
  a.score.total = 10.0 / 3;
  add(c, a);
  std::ostringstream out;
  write_grades_csv(out, c);
  bool crlf_only = false;
  const auto rows = parse_csv(out.str(), crlf_only);
  EXPECT_TRUE(crlf_only) << "RFC 4180 ends every line with CRLF";
  ASSERT_EQ(rows.size(), 5u) << out.str();
  EXPECT_EQ(rows[0], (std::vector<std::string>{"student", "01_increment", "03_matmul", "total", "max"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"alice", "10", "20", "30", "30"}));
  EXPECT_EQ(rows[2], (std::vector<std::string>{"bob", "8", "7.5", "15.5", "30"}));
  EXPECT_EQ(rows[3], (std::vector<std::string>{"carol", "0", "", "0", "30"})) << "a missing exercise is an empty cell";
  EXPECT_EQ(rows[4], (std::vector<std::string>{"doe, \"jr\"", "3.3333", "", "3.3333", "30"}));
}

TEST(ReportJson, HoldsEveryAttemptButNeverTheSeed) {
  ClassResults c = small_class(true);
  c.attempts.at({"bob", "03_matmul"}).checks[1].details.push_back("program output: \xff\xfe not UTF-8");
  const json j = class_json(c);
  const std::string text = j.dump();  // throws on invalid UTF-8: it must have been cleaned
  EXPECT_EQ(lower(text).find("seed"), std::string::npos);
  EXPECT_EQ(text.find(std::to_string(kSecretSeed)), std::string::npos);

  EXPECT_EQ(j["device"], kDevice);
  EXPECT_EQ(j["speed_graded"], true);
  EXPECT_EQ(j["max_total"], 30);
  ASSERT_EQ(j["students"].size(), 3u);
  const json& bob = j["students"][1]["exercises"]["03_matmul"];
  EXPECT_EQ(j["students"][1]["name"], "bob");
  EXPECT_EQ(j["students"][1]["total"], 15.5);
  EXPECT_EQ(bob["verdict"], "wrong_output");
  EXPECT_EQ(bob["message"], kTrickyMessage);
  EXPECT_EQ(bob["score"]["correctness"], 8.5);
  EXPECT_EQ(bob["score"]["late"], 1);
  EXPECT_EQ(bob["score"]["notes"].size(), 2u);
  ASSERT_EQ(bob["checks"].size(), 3u);
  EXPECT_EQ(bob["checks"][1]["hints"][0], kHint);
  EXPECT_NE(bob["checks"][1]["details"][1].get<std::string>().find("\xEF\xBF\xBD"), std::string::npos);
  const json& alice = j["students"][0]["exercises"]["03_matmul"];
  EXPECT_DOUBLE_EQ(alice["timing"]["median_s"].get<double>(), 8e-3);
  EXPECT_DOUBLE_EQ(alice["timing"]["speedup"].get<double>(), 1.25);
  EXPECT_EQ(alice["timing"]["unit"], "GFLOP/s");
  EXPECT_TRUE(j["students"][2]["exercises"]["03_matmul"].is_null()) << "not submitted";
  EXPECT_EQ(j["students"][2]["notes"][0], "no kernel.cu for 03_matmul in the archive");
  EXPECT_EQ(j["exercises"][0]["most_common_failure"]["verdict"], "compile_error");
  EXPECT_EQ(j["exercises"][0]["full_marks"], 1);
}

TEST(ReportJunit, ATestcasePerCheckWithFailuresCountedAndEscaped) {
  std::ostringstream out;
  write_junit(out, small_class(true));
  const std::string xml = out.str();
  EXPECT_EQ(xml_problem(xml), "") << xml;
  // alice 3 + 3 checks, bob 3 + 3 (two failing), carol a compile error and a missing exercise.
  EXPECT_EQ(count(xml, "<testcase "), 14u) << xml;
  EXPECT_EQ(count(xml, "<failure "), 4u) << xml;
  EXPECT_NE(xml.find(R"(<testsuites name="cudalab grade" tests="14" failures="4")"), std::string::npos) << xml;
  EXPECT_NE(xml.find(R"(<testsuite name="alice" tests="6" failures="0")"), std::string::npos) << xml;
  EXPECT_NE(xml.find(R"(<testsuite name="bob" tests="6" failures="2")"), std::string::npos) << xml;
  EXPECT_NE(xml.find(R"(<testsuite name="carol" tests="2" failures="2")"), std::string::npos) << xml;
  EXPECT_NE(xml.find(R"(classname="bob.03_matmul" name="M=17 N=17 K=17")"), std::string::npos) << xml;
  EXPECT_NE(xml.find(R"(classname="carol.01_increment" name="compile")"), std::string::npos) << xml;
  EXPECT_NE(xml.find(R"(<failure type="not_submitted")"), std::string::npos) << xml;
  EXPECT_NE(xml.find("expected &lt;1.0&gt; &amp; got &quot;2&quot; at &apos;C[0][0]&apos;"), std::string::npos) << xml;
  EXPECT_NE(xml.find("hint: fails exactly when K"), std::string::npos) << xml;
  EXPECT_EQ(xml.find(std::to_string(kSecretSeed)), std::string::npos);
}

TEST(ReportGradescope, RequiredKeysAndScoresThatSum) {
  const ClassResults c = small_class(true);
  for (const auto& student : c.students) {
    const json r = gradescope_results(c, student);
    EXPECT_EQ(lower(r.dump()).find("seed"), std::string::npos);
    ASSERT_TRUE(r.contains("score") && r.contains("output") && r.contains("tests") && r.contains("leaderboard"));
    ASSERT_EQ(r["tests"].size(), 2u) << "a test per exercise";
    double sum = 0, max = 0;
    for (const auto& t : r["tests"]) {
      for (const char* key : {"name", "score", "max_score", "status", "output", "visibility"}) {
        EXPECT_TRUE(t.contains(key)) << student << " test lacks " << key;
      }
      EXPECT_TRUE(t["status"] == "passed" || t["status"] == "failed");
      EXPECT_EQ(t["visibility"], "visible");
      sum += t["score"].get<double>();
      max += t["max_score"].get<double>();
    }
    EXPECT_DOUBLE_EQ(r["score"].get<double>(), sum) << student;
    EXPECT_DOUBLE_EQ(r["score"].get<double>(), c.total(student)) << student;
    EXPECT_DOUBLE_EQ(max, 30);
  }
  const json bob = gradescope_results(c, "bob");
  EXPECT_EQ(bob["tests"][0]["status"], "passed");
  EXPECT_EQ(bob["tests"][1]["status"], "failed");
  EXPECT_NE(bob["tests"][1]["output"].get<std::string>().find(kHint), std::string::npos);
  ASSERT_EQ(bob["leaderboard"].size(), 1u) << "only 01_increment was timed";
  EXPECT_EQ(bob["leaderboard"][0]["order"], "asc");
  EXPECT_DOUBLE_EQ(bob["leaderboard"][0]["value"].get<double>(), 1.0);  // ms
  EXPECT_NE(bob["leaderboard"][0]["name"].get<std::string>().find("01_increment"), std::string::npos);
  EXPECT_EQ(gradescope_results(c, "alice")["leaderboard"].size(), 2u);

  const json carol = gradescope_results(c, "carol");
  EXPECT_EQ(carol["score"], 0);
  EXPECT_TRUE(carol["leaderboard"].empty());
  EXPECT_NE(carol["tests"][1]["output"].get<std::string>().find("Not submitted"), std::string::npos);
  EXPECT_NE(carol["output"].get<std::string>().find("no kernel.cu for 03_matmul"), std::string::npos);
}

TEST(ReportFeedback, SaysWhatFailedWhyThePointsAndTheSpeed) {
  const ClassResults c = small_class(true);
  const std::string bob = student_feedback_markdown(c, "bob");
  EXPECT_EQ(lower(bob).find("seed"), std::string::npos) << bob;
  EXPECT_NE(bob.find("**15.5 / 30 points**: rank 2 of 3"), std::string::npos) << bob;
  EXPECT_NE(bob.find("## 03_matmul: ✗ wrong output"), std::string::npos) << bob;
  EXPECT_NE(bob.find("2 of 3 checks failed"), std::string::npos) << bob;
  EXPECT_NE(bob.find("**M=17 N=17 K=17**"), std::string::npos) << bob;
  EXPECT_NE(bob.find("```\n  C[0][0]: expected 4.182, got 3.911\n  ```"), std::string::npos) << bob;
  EXPECT_NE(bob.find("- " + std::string(kHint)), std::string::npos) << bob;
  EXPECT_NE(bob.find("expected \\<1.0\\> & got"), std::string::npos) << "Markdown's < escaped:\n" << bob;
  EXPECT_NE(bob.find("1 day late: -1"), std::string::npos) << bob;
  EXPECT_NE(bob.find("− late 1 = **7.5 of 20**"), std::string::npos) << bob;
  // The speed table of 01_increment: 1 ms against the reference's 0.5 ms, slower of the two timed.
  EXPECT_NE(bob.find("| your solution | 1.00 ms | 537 GB/s | 16.0 % | 0.5× |"), std::string::npos) << bob;
  EXPECT_NE(bob.find("| reference solution | 500 µs | 1074 GB/s | 32.0 % | 1× |"), std::string::npos) << bob;
  EXPECT_NE(bob.find("your time ranks 2 of 2 timed solutions"), std::string::npos) << bob;

  const std::string carol = student_feedback_markdown(c, "carol");
  EXPECT_NE(carol.find("## About your submission\n\n- no kernel.cu for 03_matmul in the archive"), std::string::npos)
      << carol;
  EXPECT_NE(carol.find("## 03_matmul: not submitted"), std::string::npos) << carol;
  EXPECT_NE(carol.find("read the compiler's first error first"), std::string::npos) << carol;

  // The verdict's words are check's own (the one verdict table), not its snake_case name reworded.
  ClassResults leaked = small_class(true);
  leaked.attempts[{"alice", "01_increment"}].verdict = "device_leak";
  EXPECT_NE(student_feedback_markdown(leaked, "alice").find("## 01_increment: ✗ device memory leaked"),
            std::string::npos)
      << student_feedback_markdown(leaked, "alice");

  const std::string untimed = student_feedback_markdown(small_class(false), "alice");
  EXPECT_EQ(untimed.find("| your solution |"), std::string::npos) << untimed;
  EXPECT_NE(untimed.find("speed not graded: checked on the CPU simulator"), std::string::npos) << untimed;
}

TEST(ReportHtml, SelfContainedWithAnSvgPerPlot) {
  const std::string html = class_report_html(small_class(true));
  // The score histogram, a throughput plot per timed exercise (2), the speedup histogram.
  EXPECT_EQ(count(html, "<svg"), 4u);
  EXPECT_EQ(count(html, "</svg>"), 4u);
  for (const char* outside : {"http://", "https://", "//cdn", "<script", "<link", "@import", "url(", "src="}) {
    EXPECT_EQ(html.find(outside), std::string::npos) << outside;
  }
  EXPECT_EQ(lower(html).find("seed"), std::string::npos);
  EXPECT_NE(html.find("expected &lt;1.0&gt; &amp; got &quot;2&quot;"), std::string::npos);
  EXPECT_EQ(html.find("<1.0>"), std::string::npos);
  EXPECT_NE(html.find("compile error</b> &times; 1"), std::string::npos) << "01's most common failure and its count";
  EXPECT_NE(html.find("device peak"), std::string::npos);

  const std::string untimed = class_report_html(small_class(false));
  EXPECT_EQ(count(untimed, "<svg"), 1u) << "no empty speed plots";
  EXPECT_NE(untimed.find("Speed was not graded"), std::string::npos);
  EXPECT_NE(untimed.find("checked on the CPU simulator"), std::string::npos);

  // One student, and a class of two hundred: the same plots, histograms rather than a bar each.
  const auto plots = [](const ClassResults& c) {
    std::size_t timed_exercises = 0;
    for (const auto& e : c.exercises) {
      timed_exercises += std::any_of(c.students.begin(), c.students.end(), [&](const std::string& s) {
        const Attempt* a = c.find(s, e);
        return a != nullptr && a->timing.has_value();
      });
    }
    return 1 + timed_exercises + (timed_exercises > 0 ? 1 : 0);
  };
  for (const int n : {1, 200}) {
    const ClassResults c = generated_class(n, true);
    const std::string html = class_report_html(c);
    EXPECT_EQ(count(html, "<svg"), plots(c)) << n << " students";
    EXPECT_LT(count(html, "<rect"), 120u) << "bars are bins, not students";
  }
}

TEST(ReportHtml, RendersInHeadlessChromium) {
  if (!fs::exists(::cudalab::testing_support::kChromium)) GTEST_SKIP() << "/usr/bin/chromium is not installed";
  const fs::path dir = ::cudalab::testing_support::fresh_dir("reports", "chromium");
  // A class of twenty timed on a GPU, and one checked on the simulator.
  for (const bool timed : {true, false}) {
    const std::string name = timed ? "timed" : "untimed";
    const fs::path html = dir / (name + ".html");
    const fs::path png = dir / (name + ".png");
    std::ofstream(html) << class_report_html(generated_class(20, timed));
    const std::string failure = ::cudalab::testing_support::screenshot(html, png);
    ASSERT_EQ(failure, "");
    const std::string bytes = ::cudalab::testing_support::read_text(png);
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    // A blank 1400×2000 page is about 12 KiB; this one, with its text, tables and plots, is over 200.
    EXPECT_GT(bytes.size(), 60u * 1024) << png;
    if (const char* keep = std::getenv("CUDALAB_REPORT_SCREENSHOTS")) {
      // For a person to look at: the screenshot and the page itself.
      fs::copy_file(png, fs::path(keep) / ("cudalab-report-" + name + ".png"), fs::copy_options::overwrite_existing);
      fs::copy_file(html, fs::path(keep) / ("cudalab-report-" + name + ".html"), fs::copy_options::overwrite_existing);
    }
  }
  fs::remove_all(dir);
}

TEST(ReportFiles, WritesEveryReportAndKeepsNamesInsideTheFolder) {
  ClassResults c = small_class(true);
  for (const std::string odd : {"..", "../escaped", "a/b", "a_b"}) {
    c.students.push_back(odd);
    add(c, attempt(odd, "01_increment", 10, true));
  }
  std::sort(c.students.begin(), c.students.end());
  const fs::path root = ::cudalab::testing_support::fresh_dir("reports", "files");
  const fs::path dir = root / "out";
  write_reports(c, dir);
  for (const char* f : {"summary.txt", "grades.csv", "results.json", "junit.xml", "report.html",
                        "gradescope/alice/results.json", "feedback/alice.md", "feedback/carol.md"}) {
    EXPECT_TRUE(fs::is_regular_file(dir / f)) << f;
  }
  EXPECT_EQ(json::parse(::cudalab::testing_support::read_text(dir / "results.json"))["students"].size(), 7u);
  EXPECT_EQ(::cudalab::testing_support::read_text(dir / "feedback/bob.md"), student_feedback_markdown(c, "bob"));
  EXPECT_EQ(json::parse(::cudalab::testing_support::read_text(dir / "gradescope/bob/results.json")),
            gradescope_results(c, "bob"));
  EXPECT_EQ(::cudalab::testing_support::read_text(dir / "summary.txt").find('\x1b'), std::string::npos);

  // Every written file is inside `dir`, and each student has their own.
  std::size_t feedback = 0, gradescope = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = fs::relative(entry.path(), dir).string();
    EXPECT_EQ(rel.rfind("..", 0), std::string::npos) << entry.path() << " escaped " << dir;
    feedback += rel.rfind("feedback/", 0) == 0 ? 1 : 0;
    gradescope += rel.rfind("gradescope/", 0) == 0 ? 1 : 0;
  }
  EXPECT_EQ(feedback, 7u);
  EXPECT_EQ(gradescope, 7u);
  EXPECT_TRUE(fs::is_regular_file(dir / "feedback/a_b.md")) << "a name that was already safe keeps it";
  EXPECT_TRUE(fs::is_regular_file(dir / "feedback/a_b-2.md")) << "a/b, made safe, must not overwrite a_b";
  EXPECT_TRUE(fs::is_regular_file(dir / "feedback/_...md"));
  EXPECT_TRUE(fs::is_regular_file(dir / "feedback/.._escaped.md"));
  fs::remove_all(root);
}

}  // namespace
