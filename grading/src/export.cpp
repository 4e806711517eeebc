#include "cudalab/grading/export.hpp"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "cudalab/files.hpp"

namespace cudalab::grading {

namespace fs = std::filesystem;

namespace {

/// `inner` is `outer` or below it (both absolute and normal).
bool same_or_inside(const fs::path& inner, const fs::path& outer) {
  const auto rel = inner.lexically_relative(outer);
  return !rel.empty() && *rel.begin() != "..";
}

bool left_out(const std::string& relative) {
  for (const auto& prefix : export_manifest().left_out) {
    if (relative == prefix || relative.starts_with(prefix + "/")) return true;
  }
  return false;
}

/// Not part of anyone's work: hidden files, editor backups.
bool junk(const std::string& name) {
  return name.empty() || name[0] == '.' || name.ends_with("~") || name.ends_with(".swp");
}

/// Every file under solutions/, by size, for the "is this a solution?" test.
class Solutions {
 public:
  explicit Solutions(const fs::path& root) : root_(root) {
    const fs::path dir = root / "solutions";
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      if (e.is_regular_file() && e.file_size() > 0) by_size_[e.file_size()].push_back(e.path());
    }
  }

  /// The solution file identical to `file`, or an empty path.
  fs::path identical(const fs::path& file) const {
    const auto it = by_size_.find(fs::file_size(file));
    if (it == by_size_.end()) return {};
    const std::string content = read_file(file);
    for (const auto& s : it->second) {
      if (read_file(s) == content) return s.lexically_relative(root_);
    }
    return {};
  }

 private:
  fs::path root_;
  std::map<std::uintmax_t, std::vector<fs::path>> by_size_;
};

/// Adds `source` (a file or a folder, `relative` to the root) to `plan`, leaving out what the
/// manifest and the junk rule leave out.
void collect(const fs::path& root, const std::string& relative, std::vector<std::pair<fs::path, std::string>>& plan) {
  const fs::path source = root / relative;
  if (left_out(relative)) return;
  const auto status = fs::symlink_status(source);
  if (fs::is_regular_file(status)) {
    plan.emplace_back(source, relative);
    return;
  }
  if (!fs::is_directory(status) || fs::exists(source / "CMakeCache.txt")) return;  // links; build trees
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(source)) names.push_back(e.path().filename().string());
  std::ranges::sort(names);
  for (const auto& name : names) {
    if (!junk(name)) collect(root, relative + "/" + name, plan);
  }
}

}  // namespace

const ExportManifest& export_manifest() {
  static const ExportManifest manifest{
      {"README.md", "CMakeLists.txt", "CMakePresets.json", ".clang-format", ".clang-tidy", ".gitignore", "cudalab",
       ".ci", "cmake", "harness", "exercises", "docs", "bench", "tests", "scripts/setup.sh", "scripts/test.sh",
       "scripts/debian-packages.txt", ".devcontainer"},
      // tests/sanitize: its correct kernels are whole solutions of 04 and 05; tests/explain: its slow
      // kernels are right ones, whole solutions of nearly every exercise.
      {"solutions", "grading", "tests/grading", "tests/wrong", "tests/sanitize", "tests/explain", "bench/sim",
       "scripts/device.sh", "scripts/gpu_acceptance.py"},
      {{"grading/ci/github-actions.yml", ".github/workflows/cudalab.yml"},
       {"grading/ci/gitlab-ci.yml", ".gitlab-ci.yml"},
       {"grading/ci/student-check.sh", ".ci/student-check.sh"},
       {"grading/ci/cudalab-problem-matcher.json", ".github/cudalab-problem-matcher.json"}},
  };
  return manifest;
}

void export_distribution(const fs::path& project_root, const fs::path& out_dir) {
  const fs::path root = fs::weakly_canonical(fs::absolute(project_root));
  const fs::path out = fs::weakly_canonical(fs::absolute(out_dir));
  for (const char* required : {"README.md", "CMakeLists.txt", "harness", "exercises"}) {
    if (!fs::exists(root / required)) {
      throw ExportError(
          fmt::format("refusing to export: {} is not a cudalab project (it has no {})", root.string(), required));
    }
  }
  if (same_or_inside(out, root)) {
    throw ExportError(
        fmt::format("refusing to export into {}: it is inside the project {} (choose a folder outside it)",
                    out.string(), root.string()));
  }
  std::error_code ec;
  if (fs::exists(out, ec)) {
    if (!fs::is_directory(out, ec)) {
      throw ExportError(fmt::format("refusing to export into {}: it is a file, not a folder", out.string()));
    }
    if (!fs::is_empty(out, ec)) {
      throw ExportError(fmt::format("refusing to export into {}: it is not empty", out.string()));
    }
  }

  // Plan and verify everything before the first byte is written: a refused export leaves nothing.
  std::vector<std::pair<fs::path, std::string>> plan;
  for (const auto& entry : export_manifest().included) {
    if (fs::exists(fs::symlink_status(root / entry))) collect(root, entry, plan);
  }
  for (const auto& [source, destination] : export_manifest().generated) {
    if (!fs::is_regular_file(root / source)) {
      throw ExportError(fmt::format("refusing to export: {} is missing from the project", source));
    }
    plan.emplace_back(root / source, destination);
  }
  const Solutions solutions(root);
  for (const auto& [source, destination] : plan) {
    if (const auto same = solutions.identical(source); !same.empty()) {
      throw ExportError(fmt::format("refusing to export: {} is identical to {}, a reference solution",
                                    source.lexically_relative(root).string(), same.string()));
    }
  }

  fs::create_directories(out);
  for (const auto& [source, destination] : plan) {
    const fs::path target = out / destination;
    fs::create_directories(target.parent_path());
    fs::copy_file(source, target);  // keeps the mode: scripts stay executable
    if (target.extension() == ".sh") {
      fs::permissions(target, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                      fs::perm_options::add);
    }
  }
}

}  // namespace cudalab::grading
