#include "cudalab/detail/module_cache.hpp"

#include "cudalab/files.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

namespace cudalab {

namespace fs = std::filesystem;

std::vector<LocalInclude> local_include_files(const fs::path& source, const std::string& text) {
  std::vector<LocalInclude> out;
  std::set<fs::path> seen;
  const fs::path source_dir = fs::absolute(source).parent_path();
  // Each file is read as the compiler opens it (a folder joined with a name: the system resolves
  // symbolic links and `..`) and named by its normal form (what identifies it, and where the sim
  // toolchain's copy of the tree puts it).
  struct Todo {
    fs::path opened;
    std::string text;
  };
  std::vector<Todo> todo{{fs::absolute(source), text}};
  while (!todo.empty() && out.size() < 256) {
    const Todo file = std::move(todo.back());
    todo.pop_back();
    std::istringstream lines(file.text);
    std::string line;
    std::vector<Todo> found;
    while (std::getline(lines, line)) {
      const auto hash = line.find_first_not_of(" \t");
      if (hash == std::string::npos || line[hash] != '#') continue;
      const auto include = line.find("include", hash);
      const auto open = line.find('"', hash);
      if (include == std::string::npos || open == std::string::npos || open < include) continue;
      const auto close = line.find('"', open + 1);
      if (close == std::string::npos) continue;
      const std::string name = line.substr(open + 1, close - open - 1);
      std::error_code ec;
      fs::path opened = file.opened.parent_path() / name;
      if (!fs::is_regular_file(opened, ec)) opened = source_dir / name;
      if (!fs::is_regular_file(opened, ec)) continue;  // not ours (or missing: the compiler will say so)
      const fs::path normal = opened.lexically_normal();
      if (!seen.insert(normal).second) continue;
      std::string header_text;
      try {
        header_text = read_file(opened);
      } catch (const std::runtime_error&) {
        continue;  // unreadable: the compiler will say so
      }
      out.push_back({normal, header_text});
      found.push_back({std::move(opened), std::move(header_text)});
    }
    for (auto it = found.rbegin(); it != found.rend(); ++it) todo.push_back(std::move(*it));
  }
  return out;
}

std::string local_includes(const fs::path& source, const std::string& text) {
  std::string out;
  for (const auto& h : local_include_files(source, text)) out += h.path.string() + '\n' + h.text + '\n';
  return out;
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    if (a.find_first_of(" \t\"'$\\") == std::string::npos && !a.empty()) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

void evict_stale_modules(const fs::path& cache_dir, std::chrono::hours max_age) {
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (const auto& entry : fs::directory_iterator(cache_dir, ec)) {
    const std::string name = entry.path().filename().string();
    const bool module_file = entry.path().extension() == ".so" || entry.path().extension() == ".log";
    const bool leftover = name.find(".tmp.") != std::string::npos;  // a compile that was killed
    if (!module_file && !leftover) continue;
    std::error_code time_ec;
    const auto written = fs::last_write_time(entry.path(), time_ec);
    if (time_ec) continue;
    const auto limit = leftover ? std::chrono::hours(24) : max_age;
    if (now - written > limit) fs::remove_all(entry.path(), time_ec);  // a leftover may be a folder
  }
}

void require_writable_cache(const fs::path& cache_dir) {
  const std::string fix = ": set CUDALAB_CACHE_DIR to a folder cudalab can write";
  std::error_code ec;
  fs::create_directories(cache_dir, ec);
  if (ec) throw SetupError("cannot create the module cache " + cache_dir.string() + " (" + ec.message() + ")" + fix);
  // Root passes every permission check, a read-only mount none: trying is the one sure test.
  const fs::path probe = cache_dir / (".probe.tmp." + std::to_string(getpid()) + "." +
                                      std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw SetupError("cannot write to the module cache " + cache_dir.string() + " (" + std::strerror(errno) + ")" +
                     fix);
  }
  ::close(fd);
  fs::remove(probe, ec);
}

void require_room_to_compile(const fs::path& cache_dir) {
  constexpr std::uintmax_t kRoom = std::uintmax_t{64} << 20;  // more than any module and its temporaries
  rlimit limit{};
  if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < kRoom) {
    throw SetupError(fmt::format(
        "files are limited to {} bytes here (ulimit -f), too few for the compiler's output: raise the limit",
        static_cast<unsigned long long>(limit.rlim_cur)));
  }
  std::error_code ec;
  for (const fs::path& dir : {cache_dir, fs::temp_directory_path(ec)}) {
    const fs::space_info space = fs::space(dir, ec);
    if (!ec && space.available < kRoom) {
      throw SetupError(fmt::format("{} has only {} bytes free, too few to compile: free some space", dir.string(),
                                   static_cast<unsigned long long>(space.available)));
    }
  }
}

fs::path compiled_name(const fs::path& source, bool has_local_includes) {
  return has_local_includes ? source : fs::path(kSharedSourceFolder) / source.filename();
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  if (from.empty()) return text;
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

std::string from_shared_folder(std::string text, const fs::path& source) {
  const std::string folder = source.has_parent_path() ? source.parent_path().string() + "/" : "";
  return replace_all(std::move(text), std::string(kSharedSourceFolder) + "/", folder);
}

CompileResult cached_compile(const fs::path& cache_dir, const std::string& key,
                             const std::function<ProcessResult(const fs::path&, std::string&)>& compile) {
  CompileResult result;
  const fs::path module = cache_dir / (key + ".so");
  std::error_code ec;
  const fs::path log = cache_dir / (key + ".log");  // the compiler's warnings, shown again on a cache hit
  {
    // Once per process and folder: modules nobody used for a while go.
    static std::mutex mutex;
    static std::set<fs::path> swept;
    std::lock_guard lock(mutex);
    if (swept.insert(cache_dir).second) evict_stale_modules(cache_dir, kModuleMaxAge);
  }
  if (fs::is_regular_file(module, ec)) {
    result.ok = true;
    result.cached = true;
    result.module = module;
    // A hit counts as a use: eviction goes by the time of the last use.
    fs::last_write_time(module, fs::file_time_type::clock::now(), ec);
    fs::last_write_time(log, fs::file_time_type::clock::now(), ec);
    if (fs::is_regular_file(log, ec)) result.diagnostics = read_file(log);
    return result;
  }
  require_writable_cache(cache_dir);
  // Unique per process and thread, then an atomic rename: concurrent compiles of one source are safe.
  const fs::path tmp = cache_dir / (key + ".tmp." + std::to_string(getpid()) + "." +
                                    std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())) + ".so");
  ProcessResult p;
  try {
    p = compile(tmp, result.command);
  } catch (const SetupError&) {
    require_room_to_compile(cache_dir);  // a full disk is named as such, with what is left
    throw;
  }
  if (p.status == ProcessResult::Status::spawn_failed) {
    throw SetupError("cannot run the compiler (" + result.command.substr(0, result.command.find(' ')) +
                     "): " + p.error);
  }
  result.diagnostics = p.output;
  if (p.status == ProcessResult::Status::timed_out) {
    result.diagnostics += "\n(the compiler ran past its time limit and was stopped)";
  }
  if (!p.ok() || !fs::is_regular_file(tmp, ec)) {
    fs::remove(tmp, ec);
    // The file's fault, unless the machine left the compiler no room to write.
    require_room_to_compile(cache_dir);
    return result;
  }
  std::ofstream(log, std::ios::binary) << p.output;
  // Published once: a module another compile of the same source stored meanwhile is kept, never
  // replaced. A runner's sandbox allows the module's file (inode) as it was when the runner
  // started; replacing it under a running runner would deny its load (two students handing in the
  // same file, or the reference solution timed beside several submissions).
  if (link(tmp.c_str(), module.c_str()) == 0 || errno == EEXIST) {
    fs::remove(tmp, ec);
  } else {
    // A file system without hard links: an atomic rename, as good as it gets there.
    fs::rename(tmp, module, ec);
    if (ec) throw SetupError("cannot store a compiled module in " + cache_dir.string() + ": " + ec.message());
  }
  result.ok = true;
  result.module = module;
  return result;
}

std::string tool_version(const fs::path& tool, const fs::path& cache_dir, VersionLine line) {
  std::error_code ec;
  const fs::path real = fs::canonical(tool, ec);
  const auto size = ec ? 0 : fs::file_size(real, ec);
  const auto stamp = ec ? fs::file_time_type{} : fs::last_write_time(real, ec);
  const std::string key =
      content_key({real.string(), std::to_string(size), std::to_string(stamp.time_since_epoch().count()),
                   line == VersionLine::first ? "first" : "last"});
  // One lookup at a time: toolchains compiling at once ask once between them.
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  std::lock_guard lock(mutex);
  const std::string known_key = key + cache_dir.string();
  if (const auto it = known.find(known_key); it != known.end()) return it->second;
  const fs::path file = cache_dir / "tools" / (key + ".txt");
  std::string version;
  if (!ec) {
    std::ifstream in(file);
    std::getline(in, version);
  }
  if (version.empty()) {
    ProcessOptions opts;
    opts.argv = {tool.string(), "--version"};
    opts.timeout = std::chrono::seconds(60);
    std::string text = run_process(opts).output;
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    version = line == VersionLine::first ? text.substr(0, text.find('\n')) : text.substr(text.rfind('\n') + 1);
    if (!version.empty() && !ec) {
      // Written whole, then renamed: a reader finds the line or no file.
      fs::create_directories(file.parent_path(), ec);
      try {
        write_file_atomically(file, version + '\n');
      } catch (const std::system_error&) {
        // Not kept: the tool is asked again next time.
      }
    }
  }
  known.emplace(known_key, version);
  return version;
}

}  // namespace cudalab
