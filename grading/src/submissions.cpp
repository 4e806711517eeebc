#include "cudalab/grading/submissions.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>
#include <tuple>

#include <archive.h>
#include <archive_entry.h>
#include <fmt/format.h>

#include "cudalab/errors.hpp"
#include "cudalab/files.hpp"
#include "cudalab/text.hpp"

namespace cudalab::grading {

namespace fs = std::filesystem;

namespace {

/// Refusal lines kept per archive; the rest are counted in one closing line (an archive of a
/// million links must not make a million-line feedback).
constexpr std::size_t kMaxRefusalNotes = 20;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ends_with_ci(const std::string& s, std::string_view suffix) {
  return s.size() > suffix.size() && lower(s.substr(s.size() - suffix.size())) == suffix;
}

/// The archive extension of `name` (".zip", ".tar.gz", ".tgz"), or "" when it is none of them.
std::string archive_extension(const std::string& name) {
  for (std::string_view ext : {".tar.gz", ".tgz", ".zip"}) {
    if (ends_with_ci(name, ext)) return std::string(ext);
  }
  return "";
}

bool ignored_name(const std::string& name) { return name.empty() || name[0] == '.' || name == "__MACOSX"; }

/// A name from a submission as it may appear in a note: no control characters, bounded length.
std::string shown(std::string_view name) {
  constexpr std::size_t kMaxShown = 160;
  std::string out;
  for (char c : name.substr(0, kMaxShown)) out += std::iscntrl(static_cast<unsigned char>(c)) ? '?' : c;
  if (name.size() > kMaxShown) out += "...";
  return out;
}

std::string iso_utc(fs::file_time_type t) {
  const auto seconds = std::chrono::floor<std::chrono::seconds>(std::chrono::file_clock::to_sys(t));
  const std::time_t tt = std::chrono::system_clock::to_time_t(seconds);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  std::array<char, 32> buf{};
  std::strftime(buf.data(), buf.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf.data();
}

// ---- finding the kernels ------------------------------------------------------------------------

struct Exercise {
  std::string id;          ///< as the registry spells it
  std::string full;        ///< lower case
  std::string short_name;  ///< lower case, the part after "NN_"
};

Exercise exercise_of(const std::string& id) {
  Exercise e{id, lower(id), lower(id)};
  const auto bar = id.find('_');
  if (bar != std::string::npos && bar > 0 &&
      std::all_of(id.begin(), id.begin() + static_cast<std::ptrdiff_t>(bar),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
      bar + 1 < id.size()) {
    e.short_name = lower(id.substr(bar + 1));
  }
  return e;
}

/// One file that could be an exercise's kernel; ordered by preference.
struct Candidate {
  std::size_t depth = 0;  ///< path components below the root
  bool flat = false;      ///< `name.cu` rather than `name/kernel.cu`
  bool short_name = false;
  std::string relative;  ///< generic form, for notes and the hash
  fs::path path;

  [[nodiscard]] auto rank() const { return std::tie(depth, flat, short_name, relative); }
};

/// How `relative` (a regular file's path below the root) matches `e`, if it does.
std::optional<Candidate> match(const fs::path& relative, const Exercise& e) {
  const std::string file = lower(relative.filename().string());
  Candidate c;
  c.depth = static_cast<std::size_t>(std::distance(relative.begin(), relative.end()));
  c.relative = relative.generic_string();
  if (file == "kernel.cu" && relative.has_parent_path()) {
    const std::string dir = lower(relative.parent_path().filename().string());
    if (dir != e.full && dir != e.short_name) return std::nullopt;
    c.short_name = dir != e.full;
    --c.depth;  // the exercise is the folder: exercises/03_matmul and exercises/matmul.cu are level
    return c;
  }
  if (file == e.full + ".cu" || file == e.short_name + ".cu") {
    c.flat = true;
    c.short_name = file != e.full + ".cu";
    return c;
  }
  return std::nullopt;
}

/// Walks `sub.root` (never through a link), fills `sub.kernels`, notes and, for folders, the time.
void find_kernels(Submission& sub, const std::vector<Exercise>& exercises, const SubmissionLimits& limits,
                  bool take_time) {
  std::map<std::string, std::vector<Candidate>> found;
  std::optional<fs::file_time_type> newest;
  std::size_t files = 0;
  std::error_code ec;
  fs::recursive_directory_iterator it(sub.root, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    sub.notes.push_back(fmt::format("could not read the submission's files: {}", ec.message()));
    return;
  }
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) {
      sub.notes.push_back(fmt::format("could not read all of the submission's files: {}", ec.message()));
      break;
    }
    const fs::directory_entry& entry = *it;
    const std::string name = entry.path().filename().string();
    if (ignored_name(name)) {
      if (entry.is_directory(ec) && !entry.is_symlink(ec)) it.disable_recursion_pending();
      continue;
    }
    const fs::path relative = entry.path().lexically_relative(sub.root);
    if (entry.is_directory(ec) && !entry.is_symlink(ec) && fs::exists(entry.path() / "CMakeCache.txt", ec)) {
      it.disable_recursion_pending();  // a build tree: thousands of files, none of them the student's
      continue;
    }
    if (entry.is_symlink(ec)) {
      // A link could point at anything on the grader's machine, a solution included.
      for (const auto& e : exercises) {
        if (match(relative, e)) {
          sub.notes.push_back(
              fmt::format("ignored '{}': a symbolic link (links are not followed)", shown(relative.generic_string())));
          break;
        }
      }
      continue;
    }
    if (!entry.is_regular_file(ec)) continue;
    if (++files > limits.max_files) {
      sub.notes.push_back(fmt::format("stopped looking after {} files (the limit per submission)", limits.max_files));
      break;
    }
    if (take_time) {
      const auto t = entry.last_write_time(ec);
      if (!ec && (!newest || t > *newest)) newest = t;
    }
    for (const auto& e : exercises) {
      auto c = match(relative, e);
      if (!c) continue;
      const auto size = entry.file_size(ec);
      if (!ec && size > limits.max_file_bytes) {
        sub.notes.push_back(fmt::format("ignored '{}': larger than {} (the limit per file)", shown(c->relative),
                                        format_bytes(static_cast<double>(limits.max_file_bytes))));
        continue;
      }
      c->path = entry.path();
      found[e.id].push_back(*c);
    }
  }
  for (auto& [id, candidates] : found) {
    std::ranges::sort(candidates, [](const Candidate& a, const Candidate& b) { return a.rank() < b.rank(); });
    sub.kernels[id] = candidates.front().path;
    if (candidates.size() > 1) {
      std::string others;
      for (std::size_t i = 1; i < candidates.size(); ++i) others += (i > 1 ? ", " : "") + candidates[i].relative;
      sub.notes.push_back(fmt::format("{}: {} candidates; graded {} (the shallowest), not {}", id, candidates.size(),
                                      candidates.front().relative, others));
    }
  }
  if (take_time) {
    const auto t = newest ? *newest : fs::last_write_time(sub.root, ec);
    if (!ec) sub.submitted_at = iso_utc(t);
  }
}

void hash_kernels(Submission& sub) {
  std::vector<std::string> storage;
  for (const auto& [id, path] : sub.kernels) {
    storage.push_back(id);
    storage.push_back(path.lexically_relative(sub.root).generic_string());
    try {
      storage.push_back(read_file(path));
    } catch (const std::exception& e) {
      sub.notes.push_back(fmt::format("{}: {}", id, e.what()));
      storage.emplace_back();
    }
  }
  const std::vector<std::string_view> parts(storage.begin(), storage.end());
  sub.content_hash = content_key(parts);
}

// ---- unpacking ----------------------------------------------------------------------------------

/// Unpacks one archive into `dest` (an empty folder), entry by entry, with the limits.
class Unpacker {
 public:
  Unpacker(const fs::path& dest, const SubmissionLimits& limits, std::vector<std::string>& notes)
      : dest_(dest),
        limits_(limits),
        notes_(notes),
        read_budget_(2 * limits.max_total_bytes + 2 * limits.max_file_bytes) {}

  /// False when nothing could be read at all (not an archive, or damaged from the start).
  bool unpack(const fs::path& archive_path) {
    struct archive* a = archive_read_new();
    archive_ = a;
    archive_read_support_format_zip(a);
    archive_read_support_format_tar(a);
    archive_read_support_filter_gzip(a);
    const std::string shown_name = shown(archive_path.filename().string());
    if (archive_read_open_filename(a, archive_path.c_str(), 1 << 16) != ARCHIVE_OK) {
      notes_.push_back(
          fmt::format("'{}' could not be read as an archive: {}; nothing was graded", shown_name, error_of(a)));
      archive_read_free(a);
      return false;
    }
    bool readable = true;
    const std::size_t max_entries = 2 * limits_.max_files + 1000;
    std::size_t entries = 0;
    int retries = 0;
    while (true) {
      struct archive_entry* entry = nullptr;
      const int r = archive_read_next_header(a, &entry);
      if (r == ARCHIVE_EOF) break;
      if (r == ARCHIVE_RETRY && ++retries < 10) continue;
      if (r < ARCHIVE_WARN) {
        if (entries == 0) {
          notes_.push_back(
              fmt::format("'{}' could not be read as an archive: {}; nothing was graded", shown_name, error_of(a)));
          readable = false;
        } else {
          notes_.push_back(fmt::format("'{}' is damaged after {} entries ({}); what came before is graded", shown_name,
                                       entries, error_of(a)));
        }
        break;
      }
      if (++entries > max_entries) {
        notes_.push_back(fmt::format("stopped unpacking '{}': more than {} entries", shown_name, max_entries));
        break;
      }
      if (!entry_(a, entry)) break;
    }
    archive_read_free(a);
    if (refused_ > kMaxRefusalNotes) {
      notes_.push_back(fmt::format("... and {} more entries refused", refused_ - kMaxRefusalNotes));
    }
    return readable;
  }

 private:
  static std::string error_of(struct archive* a) {
    const char* s = archive_error_string(a);
    return s != nullptr ? shown(s) : "unknown error";
  }

  void refuse(const std::string& name, const std::string& why) {
    if (++refused_ <= kMaxRefusalNotes) notes_.push_back(fmt::format("refused entry '{}': {}", shown(name), why));
  }

  /// Whether the rest of an entry's data (as declared) may be skipped within the read budget:
  /// skipping in a compressed stream means decompressing. False, with a note, to stop unpacking.
  bool skip_rest(const std::string& name, std::uintmax_t declared, std::uintmax_t already_read) {
    // A zip is read by seeking: only a compressed stream (tar.gz) pays for what it skips.
    if (archive_filter_code(archive_, 0) != ARCHIVE_FILTER_NONE) {
      consumed_ += declared > already_read ? declared - already_read : 0;
    }
    if (consumed_ <= read_budget_) return true;
    notes_.push_back(fmt::format("stopped unpacking at '{}': the archive holds too much data to read", shown(name)));
    return false;
  }

  /// One entry; false to stop unpacking the archive.
  bool entry_(struct archive* a, struct archive_entry* entry) {
    const char* raw_name = archive_entry_pathname(entry);
    if (raw_name == nullptr) raw_name = archive_entry_pathname_utf8(entry);
    const std::string name = raw_name != nullptr ? raw_name : "";
    const std::uintmax_t declared =
        archive_entry_size_is_set(entry) && archive_entry_size(entry) > 0 ? archive_entry_size(entry) : 0;
    auto skip_unread = [&](std::uintmax_t already_read) { return skip_rest(name, declared, already_read); };

    // Windows zips may use backslashes; both are separators here.
    std::string generic = name;
    std::ranges::replace(generic, '\\', '/');
    if (generic.empty()) {
      refuse(name, "an empty name");
      return skip_unread(0);
    }
    if (generic[0] == '/' ||
        (generic.size() >= 2 && std::isalpha(static_cast<unsigned char>(generic[0])) && generic[1] == ':')) {
      refuse(name, "an absolute path");
      return skip_unread(0);
    }
    std::vector<std::string> parts;
    bool hidden = false;
    for (std::size_t start = 0; start <= generic.size();) {
      auto end = generic.find('/', start);
      if (end == std::string::npos) end = generic.size();
      const std::string part = generic.substr(start, end - start);
      start = end + 1;
      if (part.empty() || part == ".") continue;
      if (part == "..") {
        refuse(name, "a path outside the submission");
        return skip_unread(0);
      }
      hidden = hidden || ignored_name(part);
      parts.push_back(part);
    }
    if (parts.empty()) return true;     // "./": the root itself
    if (hidden) return skip_unread(0);  // .git, .DS_Store, __MACOSX: not part of the work

    if (archive_entry_hardlink(entry) != nullptr) {
      refuse(name, "a hard link");
      return skip_unread(0);
    }
    fs::path relative;
    for (const auto& p : parts) relative /= p;
    const fs::path target = dest_ / relative;
    switch (archive_entry_filetype(entry)) {
      case AE_IFDIR: {
        std::error_code ec;
        fs::create_directories(target, ec);
        if (ec) refuse(name, "could not be created: " + ec.message());
        return true;
      }
      case AE_IFREG:
        return file_(a, name, target, declared);
      case AE_IFLNK:
        refuse(name, "a symbolic link");
        return skip_unread(0);
      default:
        refuse(name, "a device file or other special file");
        return skip_unread(0);
    }
  }

  /// Writes one regular file, counting the bytes that really come out of the archive.
  bool file_(struct archive* a, const std::string& name, const fs::path& target, std::uintmax_t declared) {
    auto skip_unread = [&](std::uintmax_t already_read) { return skip_rest(name, declared, already_read); };
    if (files_ >= limits_.max_files) {
      refuse(name, fmt::format("more than {} files in the submission", limits_.max_files));
      return skip_unread(0);
    }
    if (declared > limits_.max_file_bytes) {
      refuse(name, fmt::format("larger than {} (the limit per file)",
                               format_bytes(static_cast<double>(limits_.max_file_bytes))));
      return skip_unread(0);
    }
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    if (ec) {
      refuse(name, "could not be written: " + ec.message());
      return skip_unread(0);
    }
    // O_EXCL | O_NOFOLLOW: never through a link, never over an earlier entry.
    const int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
      refuse(name, errno == EEXIST ? "a second entry with the same path"
                                   : std::string("could not be written: ") + std::strerror(errno));
      return skip_unread(0);
    }
    std::uintmax_t size = 0;
    std::array<char, 1 << 16> buf{};
    auto discard = [&] {
      ::close(fd);
      fs::remove(target, ec);
    };
    while (true) {
      const la_ssize_t n = archive_read_data(a, buf.data(), buf.size());
      if (n == 0) break;
      if (n < 0) {
        discard();
        refuse(name, "its data is damaged (" + error_of(a) + ")");
        return n > ARCHIVE_FATAL;
      }
      size += static_cast<std::uintmax_t>(n);
      consumed_ += static_cast<std::uintmax_t>(n);
      if (size > limits_.max_file_bytes) {
        discard();
        refuse(name, fmt::format("larger than {} (the limit per file)",
                                 format_bytes(static_cast<double>(limits_.max_file_bytes))));
        return skip_unread(size);
      }
      if (written_ + size > limits_.max_total_bytes) {
        discard();
        notes_.push_back(fmt::format("stopped unpacking at '{}': the submission holds more than {}", shown(name),
                                     format_bytes(static_cast<double>(limits_.max_total_bytes))));
        return false;
      }
      for (la_ssize_t done = 0; done < n;) {
        const ssize_t w = ::write(fd, buf.data() + done, static_cast<std::size_t>(n - done));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
          const std::string why = std::strerror(errno);
          discard();
          refuse(name, "could not be written: " + why);
          return skip_unread(size);
        }
        done += w;
      }
    }
    ::close(fd);
    ++files_;
    written_ += size;
    return true;
  }

  struct archive* archive_ = nullptr;
  fs::path dest_;
  const SubmissionLimits& limits_;
  std::vector<std::string>& notes_;
  std::size_t files_ = 0;
  std::uintmax_t written_ = 0;   ///< bytes kept on disk
  std::uintmax_t consumed_ = 0;  ///< bytes read or skipped, kept or not
  /// Bound on consumed_: refused entries cost decompression too, so that is bounded by what the
  /// limits could ever keep.
  std::uintmax_t read_budget_;
  std::size_t refused_ = 0;
};

bool same_or_inside(const fs::path& inner, const fs::path& outer) {
  const auto rel = inner.lexically_relative(outer);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

std::string student_name(const std::string& entry_name) {
  std::string base = entry_name;
  const std::string ext = archive_extension(entry_name);
  if (!ext.empty()) base.resize(base.size() - ext.size());
  std::string out;
  bool replaced = false;
  for (char c : base) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    if (ok) {
      out += c;
      replaced = false;
    } else if (!replaced) {
      out += '_';
      replaced = true;
    }
  }
  if (out.empty()) return "unnamed";
  // No hidden (or "." / "..") folder under work_dir or in the reports.
  for (char& c : out) {
    if (c != '.') break;
    c = '_';
  }
  return out;
}

std::vector<Submission> read_submissions(const fs::path& dir, const fs::path& work_dir,
                                         const std::vector<std::string>& exercise_ids, const SubmissionLimits& limits,
                                         std::vector<std::string>* skipped,
                                         const std::function<bool(const std::string&)>& select) {
  const fs::path dir_abs = fs::weakly_canonical(fs::absolute(dir));
  const fs::path work_abs = fs::weakly_canonical(fs::absolute(work_dir));
  if (work_abs == dir_abs) {
    throw UsageError("the work folder must not be the submissions folder itself: " + work_dir.string());
  }
  std::vector<Exercise> exercises;
  for (const auto& id : exercise_ids) exercises.push_back(exercise_of(id));

  // Name order first, so that which of two same-named entries wins does not depend on the
  // directory's order.
  std::vector<fs::directory_entry> entries;
  for (const auto& e : fs::directory_iterator(dir_abs)) entries.push_back(e);
  std::ranges::sort(entries, [](const auto& a, const auto& b) { return a.path().filename() < b.path().filename(); });

  std::map<std::string, Submission> by_student;
  std::map<std::string, std::string> entry_of;  // student -> the entry name graded
  auto skip = [&](const std::string& line) {
    if (skipped != nullptr) skipped->push_back(line);
  };
  for (const auto& entry : entries) {
    const std::string name = entry.path().filename().string();
    if (ignored_name(name)) continue;
    std::error_code ec;
    // The top level is the instructor's folder: a link there was made by the instructor, and is
    // followed (is_directory follows).
    const bool is_dir = entry.is_directory(ec);
    const std::string ext = is_dir ? "" : archive_extension(name);
    if (!is_dir && (ext.empty() || !entry.is_regular_file(ec))) {
      skip(fmt::format("{}: neither a folder nor a .zip, .tar.gz or .tgz archive", shown(name)));
      continue;
    }
    if (is_dir && same_or_inside(work_abs, fs::weakly_canonical(entry.path(), ec))) {
      skip(fmt::format("{}: the work folder the archives are unpacked into, not a student", shown(name)));
      continue;
    }
    const std::string student = student_name(name);
    // Before anything is unpacked: a shard reads only its own students' archives.
    if (select && !select(student)) continue;
    if (auto taken = entry_of.find(student); taken != entry_of.end()) {
      skip(fmt::format("{}: maps to student '{}', already graded from '{}'", shown(name), student, taken->second));
      by_student[student].notes.push_back(fmt::format(
          "'{}' was also found for this student and not graded (only '{}' was)", shown(name), shown(taken->second)));
      continue;
    }
    entry_of[student] = name;
    Submission sub;
    sub.student = student;
    bool readable = true;
    if (is_dir) {
      sub.root = entry.path();
      find_kernels(sub, exercises, limits, true);
    } else {
      sub.root = work_abs / student;
      fs::remove_all(sub.root);
      fs::create_directories(sub.root);
      const auto t = entry.last_write_time(ec);
      if (!ec) sub.submitted_at = iso_utc(t);
      readable = Unpacker(sub.root, limits, sub.notes).unpack(entry.path());
      if (readable) find_kernels(sub, exercises, limits, false);
    }
    if (sub.kernels.empty() && readable && !exercises.empty()) {
      sub.notes.push_back(fmt::format(
          "no kernel found: expected NN_name/kernel.cu (as in exercises/{0}/kernel.cu) or NN_name.cu for each exercise",
          exercises.front().id));
    }
    hash_kernels(sub);
    by_student.emplace(student, std::move(sub));
  }
  std::vector<Submission> out;
  out.reserve(by_student.size());
  for (auto& [student, sub] : by_student) out.push_back(std::move(sub));
  return out;
}

}  // namespace cudalab::grading
