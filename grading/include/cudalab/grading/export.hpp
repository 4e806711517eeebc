// `cudalab export OUTDIR`: the student distribution, what a student's repository starts from. It
// is the project minus everything that reveals a solution or the grading: the exported tree
// builds and `cudalab check` works in it, with the CI files a student repository runs.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudalab/errors.hpp"

namespace cudalab::grading {

/// An export that cannot be made, in one line: "refusing to export into /x: it is not empty".
struct ExportError : UsageError {
  using UsageError::UsageError;
};

/// What goes into the distribution, relative to the project root. A folder is copied whole except
/// for what `left_out` names (and, anywhere: hidden files and folders, build trees — a folder
/// holding CMakeCache.txt —, editor backups).
struct ExportManifest {
  /// Files and folders copied: README.md, CMakeLists.txt, CMakePresets.json, .clang-format,
  /// .clang-tidy, .gitignore, cudalab, .ci, cmake, harness, exercises, docs, bench, tests, and
  /// scripts/setup.sh, scripts/test.sh, scripts/debian-packages.txt. A missing optional entry is
  /// skipped; README.md, CMakeLists.txt, harness and exercises must exist.
  std::vector<std::string> included;
  /// Never copied, even inside an included folder:
  ///  - solutions/ (not included at all) and grading/: reference solutions, rubric, gradebook;
  ///  - tests/grading/: the grader's own tests and corpus;
  ///  - tests/wrong/: the known-wrong corpus, each a reference solution with one bug;
  ///  - bench/sim/: its kernels/bench.cu holds the course's complete 16×16 tiled matmul, a passing
  ///    03_matmul (bench/CMakeLists.txt already builds bench/sim only where it exists);
  ///  - scripts/device.sh, scripts/gpu_acceptance.py (bench/gpu is kept: library calls, no
  ///    solution, built only with CUDALAB_BUILD_GPU_BENCH=ON).
  std::vector<std::string> left_out;
  /// Written from grading/ci/: (source in the project, destination in the export).
  std::vector<std::pair<std::string, std::string>> generated;
};

/// The manifest export_distribution follows.
const ExportManifest& export_manifest();

/// Writes the student distribution of the project at `project_root` into `out_dir`, plus the
/// student CI: .github/workflows/cudalab.yml (grading/ci/github-actions.yml), .gitlab-ci.yml
/// (grading/ci/gitlab-ci.yml) and .ci/student-check.sh (grading/ci/student-check.sh, which both
/// call). File modes are kept (scripts stay executable).
///
/// Throws ExportError, before writing anything, when `out_dir` is inside the project (or is it),
/// exists and is not an empty folder, when `project_root` is not a cudalab project, or when a file
/// to export is identical to a file under solutions/ (a solution copied into a skeleton by
/// mistake).
void export_distribution(const std::filesystem::path& project_root, const std::filesystem::path& out_dir);

}  // namespace cudalab::grading
