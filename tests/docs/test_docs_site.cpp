// The documentation site as its readers meet it: the main page renders in headless Chromium with
// its side bar in reading order, every link of every page reachable from it resolves (file and
// anchor), the course path has a page per exercise README in folder order, and every --help names
// a page that exists. The site is the `docs` target's output, built by docs.doxygen_without_warnings
// (the docs_site fixture) before these tests run.
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/files.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kSource = CUDALAB_SOURCE_DIR;
const fs::path kHtml = CUDALAB_DOCS_HTML_DIR;
const fs::path kCli = CUDALAB_CLI;

/// A fresh folder for one test, named after it.
fs::path fresh_dir(const std::string& what) {
  const fs::path dir = fs::path(testing::TempDir()) / ("cudalab-docs-site-" + what + "-" +
                                                       testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// Runs `command` with sh, its output (stdout and stderr) to `out`; returns the exit code.
int run(const std::string& command, const fs::path& out) {
  const std::string line = command + " >'" + out.string() + "' 2>&1";
  const int status = std::system(line.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#define REQUIRE_SITE()                                                                                           \
  if (!fs::is_regular_file(kHtml / "index.html"))                                                                \
  GTEST_SKIP() << kHtml / "index.html"                                                                           \
               << " was not built: Doxygen is not installed (the docs target and docs.doxygen_without_warnings " \
                  "need it)"

/// Headless Chromium, where there is one.
fs::path chromium() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (fs::exists(p)) return p;
  }
  return {};
}

/// Chromium's command line for one page: no network, no profile of the user's, no GPU.
std::string chromium_command(const fs::path& dir, const std::string& what) {
  return "timeout 120 '" + chromium().string() +
         "' --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking "
         "--disable-component-update --disable-sync --user-data-dir='" +
         (dir / ("profile-" + what)).string() + "' --virtual-time-budget=10000 --window-size=1280,1600";
}

/// The side bar of a rendered page, as Doxygen's script builds it: {href, label} of each entry.
std::vector<std::pair<std::string, std::string>> side_bar(const std::string& dom) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto from = dom.find("id=\"nav-tree-contents\"");
  if (from == std::string::npos) return out;
  const std::string tree = dom.substr(from, dom.find("id=\"splitbar\"", from) - from);
  static const std::regex entry(R"re(<span class="label"><a [^>]*href="([^"]*)"[^>]*>([^<]*)</a>)re");
  for (auto it = std::sregex_iterator(tree.begin(), tree.end(), entry); it != std::sregex_iterator(); ++it) {
    out.emplace_back((*it)[1].str(), (*it)[2].str());
  }
  return out;
}

TEST(DocsSite, MainPageRendersInHeadlessChromiumWithItsPagesInReadingOrder) {
  REQUIRE_SITE();
  if (chromium().empty()) GTEST_SKIP() << "Chromium is not installed (/usr/bin/chromium): nothing renders the page";
  const fs::path dir = fresh_dir("chromium");
  const fs::path index = kHtml / "index.html";

  // The picture: a page of text, tables and a side bar, not a blank or an error page.
  const fs::path png = dir / "index.png";
  const fs::path log = dir / "screenshot.log";
  const std::string shot =
      chromium_command(dir, "screenshot") + " --screenshot='" + png.string() + "' 'file://" + index.string() + "'";
  ASSERT_EQ(run(shot, log), 0) << shot << "\n" << cudalab::testing_support::read_text(log);
  ASSERT_TRUE(fs::exists(png)) << cudalab::testing_support::read_text(log);
  const std::string bytes = cudalab::testing_support::read_text(png);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  // A blank 1280×1600 page is about 10 KiB; the main page, with its text and side bar, is over 150.
  EXPECT_GT(bytes.size(), 60u * 1024) << png;

  // The page as the browser built it: the script-made side bar holds every page, in reading order.
  const fs::path dom_file = dir / "index.dom.html";
  const std::string dump = chromium_command(dir, "dom") + " --dump-dom 'file://" + index.string() + "'";
  ASSERT_EQ(std::system((dump + " >'" + dom_file.string() + "' 2>'" + (dir / "dom.log").string() + "'").c_str()), 0)
      << cudalab::testing_support::read_text(dir / "dom.log");
  const std::string dom = cudalab::testing_support::read_text(dom_file);
  EXPECT_NE(dom.find("<div class=\"title\">cudalab documentation"), std::string::npos) << "the main page's title";
  EXPECT_EQ(side_bar(cudalab::testing_support::read_text(index)).size(), 0u)
      << "the saved page has no side bar entries: the script makes them";
  const auto bar = side_bar(dom);
  ASSERT_FALSE(bar.empty()) << "the side bar was not built: did the page's scripts run?\n" << dom.substr(0, 4000);
  const std::vector<std::pair<std::string, std::string>> reading_order = {
      {"md_docs_getting_started.html", "Getting started"},
      {"md_docs_course.html", "The course path"},
      {"md_docs_reports.html", "Understanding a report"},
      {"md_docs_failures.html", "Failure messages"},
      {"md_docs_instructors.html", "For instructors"},
      {"md_grading_README.html", "Grading a class"},
      {"md_docs_gradebook.html", "The gradebook: gradebook.sqlite, schema version 3"},
      {"md_docs_adding_an_exercise.html", "Adding an exercise"},
      {"md_docs_architecture.html", "Architecture: how cudalab fits together"},
      {"md_docs_performance.html", "Performance"},
  };
  std::size_t at = 0;
  for (const auto& expected : reading_order) {
    const std::string& href = expected.first;  // a plain reference: lambdas capture it in clang 14 too
    const std::string& label = expected.second;
    if (href == "md_grading_README.html" && !fs::exists(kSource / "grading")) continue;  // students' export
    const auto it = std::find_if(bar.begin() + static_cast<std::ptrdiff_t>(at), bar.end(),
                                 [&](const auto& e) { return e.first == href; });
    ASSERT_NE(it, bar.end()) << href << " is missing from the side bar, or out of order";
    EXPECT_EQ(it->second, label) << href;
    at = static_cast<std::size_t>(it - bar.begin());
  }
  // Titles are plain text in the side bar: markup or a dash turned typographic would show as such.
  for (const auto& [href, label] : bar) {
    EXPECT_EQ(label.find("&lt;"), std::string::npos) << href << ": " << label;
    EXPECT_EQ(label.find("\u2013"), std::string::npos) << href << ": " << label << " (-- became an en dash)";
  }
  if (const char* keep = std::getenv("CUDALAB_DOCS_SCREENSHOTS")) {
    fs::copy_file(png, fs::path(keep) / "cudalab-docs-index.png", fs::copy_options::overwrite_existing);
  }
  fs::remove_all(dir);
}

/// The local targets of a page's links and images: {target file, anchor or ""}.
std::vector<std::pair<std::string, std::string>> local_links(const std::string& html) {
  std::vector<std::pair<std::string, std::string>> out;
  static const std::regex link(R"re(<(?:a|img|link|script)\b[^>]*?\b(?:href|src)="([^"]*)")re");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), link); it != std::sregex_iterator(); ++it) {
    const std::string target = (*it)[1].str();
    if (target.empty() || target.starts_with("http:") || target.starts_with("https:") ||
        target.starts_with("mailto:") || target.starts_with("javascript:")) {
      continue;
    }
    const auto hash = target.find('#');
    out.emplace_back(target.substr(0, hash), hash == std::string::npos ? "" : target.substr(hash + 1));
  }
  return out;
}

TEST(DocsSite, EveryLinkOfEveryPageReachableFromTheMainPageResolves) {
  REQUIRE_SITE();
  std::set<std::string> seen{"index.html"};
  std::vector<std::string> queue{"index.html"};
  std::map<std::string, std::string> pages;  // file → content, for the anchors
  std::vector<std::string> broken;
  std::size_t links = 0;
  while (!queue.empty()) {
    const std::string page = queue.back();
    queue.pop_back();
    const std::string html = cudalab::testing_support::read_text(kHtml / page);
    for (const auto& [file, anchor] : local_links(html)) {
      ++links;
      const std::string target = file.empty() ? page : file;
      const fs::path path = (kHtml / target).lexically_normal();
      if (!fs::is_regular_file(path)) {
        broken.push_back(page + ": " + file + (anchor.empty() ? "" : "#" + anchor) + " (no such file)");
        continue;
      }
      if (!target.ends_with(".html")) continue;
      if (!anchor.empty()) {
        auto& content = pages[target];
        if (content.empty()) content = cudalab::testing_support::read_text(path);
        if (content.find("id=\"" + anchor + "\"") == std::string::npos &&
            content.find("name=\"" + anchor + "\"") == std::string::npos) {
          broken.push_back(page + ": " + target + "#" + anchor + " (no such anchor)");
        }
      }
      // Only pages inside the site: a path outside it would already have failed above.
      if (seen.insert(target).second) queue.push_back(target);
    }
  }
  EXPECT_TRUE(broken.empty()) << broken.size() << " broken links of " << links << ", e.g.:\n"
                              << [&] {
                                   std::string s;
                                   for (std::size_t i = 0; i < std::min<std::size_t>(broken.size(), 20); ++i) {
                                     s += "  " + broken[i] + "\n";
                                   }
                                   return s;
                                 }();
  // The crawl reached the pages, not only the main page: every page of docs/ and each exercise.
  EXPECT_TRUE(seen.contains("md_docs_failures.html"));
  EXPECT_TRUE(seen.contains("md_exercises_01_increment_README.html"));
  EXPECT_GT(seen.size(), 40u);
}

/// "01 — Increment: your first kernel": the first line of a README, without its `# `.
std::string first_heading(const fs::path& readme) {
  std::ifstream in(readme);
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("# ")) return line.substr(2);
  }
  return "";
}

TEST(DocsSite, CoursePathHasAPagePerExerciseReadmeInFolderOrder) {
  REQUIRE_SITE();
  std::vector<std::string> folders;
  for (const auto& e : fs::directory_iterator(kSource / "exercises")) {
    const std::string name = e.path().filename().string();
    if (e.is_directory() && std::regex_match(name, std::regex("[0-9][0-9]_.+")) && fs::exists(e.path() / "README.md")) {
      folders.push_back(name);
    }
  }
  std::sort(folders.begin(), folders.end());
  ASSERT_GE(folders.size(), 5u);
  const std::string course = cudalab::testing_support::read_text(kHtml / "md_docs_course.html");
  ASSERT_FALSE(course.empty());
  std::size_t at = 0;
  for (const auto& folder : folders) {
    const std::string html = "md_exercises_" + folder + "_README.html";
    const std::string page = cudalab::testing_support::read_text(kHtml / html);
    ASSERT_FALSE(page.empty()) << html << ": no page for exercises/" << folder << "/README.md";
    // The title is the README's first heading (an & or < would be escaped; the course has none).
    const std::string title = first_heading(kSource / "exercises" / folder / "README.md");
    EXPECT_NE(page.find("<div class=\"title\">" + title), std::string::npos) << html << " is not titled " << title;
    const auto link = course.find("href=\"" + html + "\"", at);
    EXPECT_NE(link, std::string::npos) << "the course path does not list " << folder
                                       << " after the exercises before it";
    if (link != std::string::npos) {
      EXPECT_NE(course.find(title, link), std::string::npos) << "the course path's link to " << folder;
      at = link;
    }
  }
}

/// The paths a --help's "Docs:" lines name (the first line starts with "Docs: ", the others with
/// spaces), each followed by what it covers in parentheses.
std::vector<fs::path> docs_paths(const std::string& help) {
  std::vector<fs::path> out;
  std::istringstream lines(help);
  std::string line;
  bool in_docs = false;
  static const std::regex path(R"((/[^ ]+\.(?:html|md)) \()");
  while (std::getline(lines, line)) {
    if (line.starts_with("Docs: ")) {
      in_docs = true;
    } else if (!line.starts_with("      ")) {
      in_docs = false;
    }
    if (!in_docs) continue;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), path); it != std::sregex_iterator(); ++it) {
      out.emplace_back((*it)[1].str());
    }
  }
  return out;
}

/// Each command's --help and the page (HTML file, Markdown source) it must name.
struct HelpPage {
  std::vector<std::string> args;
  std::string html;
  std::string markdown;
};

std::vector<HelpPage> help_pages() {
  std::vector<HelpPage> pages = {
      {{"--help"}, "index.html", "docs/README.md"},
      {{"list", "--help"}, "md_docs_course.html", "docs/course.md"},
      {{"next", "--help"}, "md_docs_course.html", "docs/course.md"},
      {{"init", "--help"}, "md_docs_getting_started.html", "docs/getting-started.md"},
      {{"check", "--help"}, "md_docs_failures.html", "docs/failures.md"},
      {{"bench", "--help"}, "md_docs_reports.html", "docs/reports.md"},
  };
  if (fs::exists(kSource / "grading")) {  // not in the students' distribution
    for (const char* command : {"grade", "report", "merge", "export"}) {
      pages.push_back({{command, "--help"}, "md_docs_instructors.html", "docs/instructors.md"});
    }
  }
  return pages;
}

std::string help_of(const fs::path& cli, const std::vector<std::string>& args, const fs::path& out) {
  std::string command = "'" + cli.string() + "'";
  for (const auto& a : args) command += " " + a;
  EXPECT_EQ(run(command, out), 0) << command << "\n" << cudalab::testing_support::read_text(out);
  return cudalab::testing_support::read_text(out);
}

TEST(DocsSite, EveryHelpNamesTheBuiltPageToRead) {
  REQUIRE_SITE();
  const fs::path dir = fresh_dir("help");
  for (const auto& p : help_pages()) {
    const std::string help = help_of(kCli, p.args, dir / "help.txt");
    const auto paths = docs_paths(help);
    ASSERT_FALSE(paths.empty()) << "cudalab " << p.args.front() << ": no Docs: line\n" << help;
    for (const auto& path : paths) EXPECT_TRUE(fs::is_regular_file(path)) << path << " (" << p.args.front() << ")";
    // The build tree's site, beside its bin/: the page itself, not its source.
    EXPECT_NE(std::find(paths.begin(), paths.end(), (kHtml / p.html).lexically_normal()), paths.end())
        << "cudalab " << p.args.front() << " --help should name " << kHtml / p.html << ":\n"
        << help;
  }
  fs::remove_all(dir);
}

TEST(DocsSite, WithoutTheSiteEveryHelpNamesTheMarkdownPage) {
  // The program alone in a folder, as in a build whose site was never made: no docs/html beside
  // it, so each --help names the Markdown source of the page, which a clone always has.
  const fs::path dir = fresh_dir("alone");
  fs::create_directories(dir / "bin");
  fs::copy_file(kCli, dir / "bin" / "cudalab");
  if (fs::exists(kCli.parent_path() / "cudalab-grading")) {
    fs::copy_file(kCli.parent_path() / "cudalab-grading", dir / "bin" / "cudalab-grading");
  }
  for (const auto& p : help_pages()) {
    const std::string help = help_of(dir / "bin" / "cudalab", p.args, dir / "help.txt");
    const auto paths = docs_paths(help);
    ASSERT_FALSE(paths.empty()) << "cudalab " << p.args.front() << ": no Docs: line\n" << help;
    for (const auto& path : paths) {
      EXPECT_TRUE(fs::is_regular_file(path)) << path;
      EXPECT_EQ(path.extension(), ".md") << path << ": there is no site beside this program";
    }
    EXPECT_NE(std::find(paths.begin(), paths.end(), (kSource / p.markdown).lexically_normal()), paths.end())
        << "cudalab " << p.args.front() << " --help should name " << kSource / p.markdown << ":\n"
        << help;
  }
  fs::remove_all(dir);
}

}  // namespace
