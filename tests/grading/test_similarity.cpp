// Similar submissions (similarity.hpp): a copy with its variables renamed and its functions
// reordered ranks first and is flagged; honest solutions that share the skeleton are not.
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "../support/chromium.hpp"
#include "../support/files.hpp"
#include "cudalab/grading/similarity.hpp"
#include "cudalab/paths.hpp"

namespace cudalab::grading {
namespace {

using testing_support::kSourceDir;
using testing_support::read_text;
using testing_support::write_text;

namespace fs = std::filesystem;

/// What a student who copies does to a file: new names for its variables and functions, its
/// comments gone, and its helper moved below the kernel (declared above it).
std::string disguised(std::string text) {
  text = std::regex_replace(text, std::regex(R"(//[^\n]*)"), "");
  for (const auto& [from, to] : {std::pair{"A_tile", "sa"},
                                 {"B_tile", "sb"},
                                 {"acc", "total"},
                                 {"row", "r"},
                                 {"col", "c"},
                                 {"tx", "lx"},
                                 {"ty", "ly"},
                                 {"k0", "base"},
                                 {"a_col", "ac"},
                                 {"b_row", "br"},
                                 {"matmul_shared_tiles", "mm_kernel"},
                                 {"check", "ensure"}}) {
    text = std::regex_replace(text, std::regex(std::string("\\b") + from + "\\b"), to);
  }
  const std::regex helper(R"(namespace \{\n\nvoid ensure[\s\S]*?\n\}  \n)");
  std::smatch m;
  if (std::regex_search(text, m, helper)) {
    const std::string block = m.str();
    text = m.prefix().str() + "void ensure(cudaError_t err, const char* what);\n" + m.suffix().str() + "\n" + block;
  }
  return text;
}

TEST(Similarity, ACopyWithRenamedVariablesAndReorderedFunctionsRanksFirst) {
  if (find_on_path("sim_c++").empty()) GTEST_SKIP() << "sim_c++ is not installed (Debian's similarity-tester)";
  const fs::path dir = fs::temp_directory_path() / ("cudalab-similarity-test-" + std::to_string(getpid()));
  fs::remove_all(dir);
  const fs::path solutions = kSourceDir / "solutions" / "03_matmul";
  if (!fs::exists(solutions / "step2_shared_tiles.cu")) GTEST_SKIP() << "the solutions are not in this distribution";
  const std::string original = read_text(solutions / "step2_shared_tiles.cu");
  const std::string copy = disguised(original);
  ASSERT_NE(copy, original);
  ASSERT_EQ(copy.find("A_tile"), std::string::npos) << "the copy's names are new";
  SubmittedFiles files;
  auto& matmul = files["03_matmul"];
  matmul["ada"] = write_text(dir / "ada.cu", original);
  matmul["zed"] = write_text(dir / "zed.cu", copy);
  // Honest work: three different solutions, and two students who handed in the skeleton as given.
  matmul["ben"] = write_text(dir / "ben.cu", read_text(solutions / "step1_naive.cu"));
  matmul["cy"] = write_text(dir / "cy.cu", read_text(solutions / "kernel.cu"));
  matmul["dee"] = write_text(dir / "dee.cu", read_text(solutions / "step3_register_blocking.cu"));
  matmul["eve"] = write_text(dir / "eve.cu", read_text(kSourceDir / "exercises" / "03_matmul" / "kernel.cu"));
  matmul["fay"] = write_text(dir / "fay.cu", read_text(kSourceDir / "exercises" / "03_matmul" / "kernel.cu"));

  const SimilarityReport report =
      find_similar(files, [](const std::string& id) { return kSourceDir / "exercises" / id / "kernel.cu"; });
  EXPECT_TRUE(report.note.empty()) << report.note;
  ASSERT_FALSE(report.pairs.empty());
  const SimilarPair& first = report.pairs.front();
  EXPECT_EQ(first.student_a + " " + first.student_b, "ada zed");
  EXPECT_GE(first.percent(), 90);
  EXPECT_TRUE(first.flagged);
  for (std::size_t i = 1; i < report.pairs.size(); ++i) {
    const SimilarPair& p = report.pairs[i];
    EXPECT_FALSE(p.flagged) << p.student_a << " and " << p.student_b << ": " << p.a_in_b << " % and " << p.b_in_a
                            << " %";
    // The skeleton's own lines are nobody's resemblance: two untouched skeletons share nothing.
    EXPECT_FALSE(p.student_a == "eve" && p.student_b == "fay") << p.a_in_b << " %";
  }

  const std::string csv = similarity_csv(report);
  EXPECT_NE(csv.find("03_matmul,ada,zed,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",yes\n"), std::string::npos) << csv;
  const std::string html = similarity_html(report);
  EXPECT_NE(html.find("<h3>03_matmul: ada and zed"), std::string::npos);
  EXPECT_NE(html.find("mm_kernel"), std::string::npos) << "the copy is shown beside the original";
  EXPECT_NE(html.find("matmul_shared_tiles"), std::string::npos);
  if (fs::exists(testing_support::kChromium)) {
    // As the instructor sees it: the table, then the two files side by side.
    write_text(dir / "similarity.html", html);
    const std::string failure =
        testing_support::screenshot(dir / "similarity.html", dir / "similarity.png", 1400, 1200);
    ASSERT_EQ(failure, "");
    EXPECT_GT(fs::file_size(dir / "similarity.png"), 60u * 1024) << "a blank page is about 10 KiB";
    if (const char* keep = std::getenv("CUDALAB_REPORT_SCREENSHOTS")) {
      fs::copy_file(dir / "similarity.png", fs::path(keep) / "cudalab-similarity.png",
                    fs::copy_options::overwrite_existing);
    }
  }
  fs::remove_all(dir);
}

TEST(Similarity, WithoutTheTesterTheReportSaysHowToInstallIt) {
  const char* path = std::getenv("PATH");
  const std::string saved = path == nullptr ? "" : path;
  setenv("PATH", "/nonexistent", 1);
  SubmittedFiles files;
  files["01_increment"]["a"] = kSourceDir / "solutions" / "01_increment" / "kernel.cu";
  files["01_increment"]["b"] = kSourceDir / "solutions" / "01_increment" / "kernel.cu";
  const SimilarityReport report = find_similar(files, [](const std::string&) { return fs::path(); });
  setenv("PATH", saved.c_str(), 1);
  EXPECT_TRUE(report.pairs.empty());
  EXPECT_NE(report.note.find("apt-get install similarity-tester"), std::string::npos) << report.note;
  EXPECT_NE(similarity_html(report).find("apt-get install similarity-tester"), std::string::npos);
}

}  // namespace
}  // namespace cudalab::grading
