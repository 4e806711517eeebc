// A class's submissions as `cudalab grade SUBMISSIONS` finds them: one entry per student in one
// folder, either a folder (a repository clone or a flat upload) or a .zip / .tar.gz / .tgz archive.
// Archives are untrusted input: they are unpacked with libarchive under work_dir/<student>, entry
// by entry, refusing anything that could write outside that folder (absolute paths, `..`, links,
// device files) and stopping at the size and file-count limits; every refusal is one line in that
// student's notes, never an exception that ends the class.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace cudalab::grading {

/// What one submission may hold. Sizes count the bytes actually unpacked, not what an archive's
/// headers claim (a zip bomb claims small sizes).
struct SubmissionLimits {
  std::uintmax_t max_total_bytes = 64 << 20;  ///< all files of one submission together
  std::size_t max_files = 2000;               ///< regular files in one submission
  std::uintmax_t max_file_bytes = 8 << 20;    ///< one file
};

/// One student's submission, ready to grade.
struct Submission {
  /// The folder or archive name without its extension, made of [A-Za-z0-9._-] only (any other run
  /// of bytes becomes one `_`), never "", "." or "..", never starting with a dot: safe as a file
  /// name in reports (student_name()).
  std::string student;
  /// Where its files are: the folder itself, or the archive unpacked under work_dir/<student>.
  std::filesystem::path root;
  /// Exercise id ("03_matmul") → the kernel.cu found for it (absolute). A missing key is an
  /// exercise not submitted.
  std::map<std::string, std::filesystem::path> kernels;
  /// One clear line per refusal or oddity (refused archive entries, two candidates for one
  /// exercise, no kernel found), shown in that student's feedback.
  std::vector<std::string> notes;
  /// ISO 8601 UTC ("2026-12-11T23:59:00Z"): an archive's modification time, or for a folder the
  /// newest of its files'.
  std::string submitted_at;
  /// 32 hex digits: XXH3-128 of every kernel found (exercise, path relative to root, content), so
  /// that `--resume` sees whether anything graded changed.
  std::string content_hash;
};

/// Reads every entry of `dir` (one per student) and finds each exercise's kernel in it.
///
/// An exercise `NN_name` (from `exercise_ids`, the registry's ids) is found anywhere in the tree
/// as `NN_name/kernel.cu` or `name/kernel.cu` (a directory named by the id or its short name), or
/// as a file `NN_name.cu` / `name.cu`; names compare case-insensitively. The shallowest candidate
/// wins (the depth of the folder, or of the flat file: `exercises/03_matmul/kernel.cu` and
/// `exercises/matmul.cu` are level; then a folder over a flat file, then the full id over the
/// short name, then path order), and a note names the other candidates. Hidden files and folders
/// (`.git`, `.DS_Store`), `__MACOSX` and build trees (a folder holding CMakeCache.txt) are
/// ignored; symbolic links inside a submission are never followed (a note says so when one would
/// have matched). A folder's walk stops after `limits.max_files` files, and a kernel larger than
/// `limits.max_file_bytes` is ignored, each with a note.
///
/// Entries of `dir` that are neither folders nor supported archives are not students: each is
/// one line in `*skipped` when given ("notes.txt: neither a folder nor a .zip, .tar.gz or .tgz
/// archive"); hidden entries are ignored silently. Two entries that map to the same student name
/// (`alice/` and `alice.zip`): the first in name order is graded, the other is listed in
/// `*skipped` and named in the graded one's notes.
///
/// Archives are unpacked into `work_dir/<student>` (emptied first). A corrupt archive is a note;
/// the entries read before the damage are kept, so one that cannot be opened at all has no
/// kernels. Never throws for anything a submission contains; throws std::filesystem_error only
/// when `dir` cannot be listed or `work_dir` cannot be written. Sorted by student.
///
/// `select`, when given, is asked for each student name first: an entry whose student it declines
/// is passed over silently, never unpacked (`--shard`, `--only`).
std::vector<Submission> read_submissions(const std::filesystem::path& dir, const std::filesystem::path& work_dir,
                                         const std::vector<std::string>& exercise_ids,
                                         const SubmissionLimits& limits = {},
                                         std::vector<std::string>* skipped = nullptr,
                                         const std::function<bool(const std::string&)>& select = {});

/// The student name for a folder or archive name: its extension (.zip, .tar.gz, .tgz) removed, any
/// run of characters outside [A-Za-z0-9._-] replaced by one `_`, leading dots replaced by `_` (so
/// never ".", ".." nor hidden); "" becomes "unnamed".
std::string student_name(const std::string& entry_name);

}  // namespace cudalab::grading
