// Every report of a class into one folder.
#include <cctype>
#include <cerrno>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "cudalab/grading/reports.hpp"
#include "cudalab/grading/similarity.hpp"
#include "reports_common.hpp"

namespace cudalab::grading {

using namespace reports_detail;
namespace fs = std::filesystem;

namespace {

void write_file(const fs::path& path, const std::string& content) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) throw std::system_error(ec, "cannot create " + path.parent_path().string());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::system_error(errno, std::generic_category(), "cannot write " + path.string());
  out << content;
  out.close();
  if (!out) throw std::system_error(errno, std::generic_category(), "cannot write " + path.string());
}

std::string json_text(const nlohmann::json& j) {
  // Strings were made valid UTF-8 when the JSON was built; `replace` keeps a stray one from throwing.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

void write_similarity_reports(const SimilarityReport& report, const fs::path& out_dir) {
  write_file(out_dir / "similarity.csv", similarity_csv(report));
  write_file(out_dir / "similarity.html", similarity_html(report));
}

void write_reports(const ClassResults& results, const fs::path& out_dir) {
  std::ostringstream summary, csv, junit;
  write_summary(summary, results, false);
  write_grades_csv(csv, results);
  write_junit(junit, results);
  write_file(out_dir / "summary.txt", summary.str());
  write_file(out_dir / "grades.csv", csv.str());
  write_file(out_dir / "results.json", json_text(class_json(results)));
  write_file(out_dir / "junit.xml", junit.str());
  write_file(out_dir / "report.html", class_report_html(results));

  // File names, distinct even where the file system ignores case. Names that were already safe keep
  // theirs; a name that had to change and meets another gets a number rather than overwrite it.
  const auto key = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  std::map<std::string, std::string> file_name;
  std::set<std::string> used;
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& student : results.students) {
      const std::string safe = safe_file_name(student);
      if ((pass == 0) != (safe == student) || file_name.contains(student)) continue;
      std::string name = safe;
      for (int k = 2; used.contains(key(name)); ++k) name = safe + "-" + std::to_string(k);
      used.insert(key(name));
      file_name[student] = name;
    }
  }
  for (const auto& student : results.students) {
    const std::string& name = file_name.at(student);
    write_file(out_dir / "gradescope" / name / "results.json", json_text(gradescope_results(results, student)));
    write_file(out_dir / "feedback" / (name + ".md"), student_feedback_markdown(results, student));
  }
}

}  // namespace cudalab::grading
