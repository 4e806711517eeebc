#include "cudalab/file_watch.hpp"

#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <string_view>
#include <thread>
#include <utility>

namespace cudalab {

namespace fs = std::filesystem;

namespace {

/// An editor's save can be several writes (truncate, write, rename): a change counts once the file
/// has been quiet this long.
constexpr auto kSettle = std::chrono::milliseconds(150);

}  // namespace

FileWatch::FileWatch(fs::path file, Mode mode, std::chrono::milliseconds poll)
    : file_(std::move(file)), mode_(mode), poll_(poll) {
  if (mode_ == Mode::automatic) {
    inotify_fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    const fs::path folder = file_.parent_path().empty() ? fs::path(".") : file_.parent_path();
    if (inotify_fd_ >= 0 &&
        inotify_add_watch(inotify_fd_, folder.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_MODIFY) < 0) {
      close(inotify_fd_);  // the folder refuses it (a mount without inotify): polling alone
      inotify_fd_ = -1;
    }
  }
  last_stamp_ = stamp();
}

FileWatch::~FileWatch() {
  if (inotify_fd_ >= 0) close(inotify_fd_);
}

std::string FileWatch::stamp() const {
  struct stat st {};
  if (stat(file_.c_str(), &st) != 0) return {};
  return std::to_string(st.st_ino) + ' ' + std::to_string(st.st_size) + ' ' + std::to_string(st.st_mtim.tv_sec) + '.' +
         std::to_string(st.st_mtim.tv_nsec);
}

bool FileWatch::wait_for_change(const std::atomic<bool>& stop) {
  const std::string name = file_.filename().string();
  while (!stop) {
    bool maybe = false;
    if (inotify_fd_ >= 0) {
      pollfd p{inotify_fd_, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(poll_.count()));  // EINTR: a signal, look at `stop`
      if (ready > 0) {
        alignas(inotify_event) std::array<char, 4096> buffer{};
        for (ssize_t n; (n = read(inotify_fd_, buffer.data(), buffer.size())) > 0;) {
          for (ssize_t at = 0; at < n;) {
            const auto* event = reinterpret_cast<const inotify_event*>(buffer.data() + at);
            if (event->len > 0 && std::string_view(event->name) == name) maybe = true;
            at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
          }
        }
      }
    } else {
      std::this_thread::sleep_for(poll_);
    }
    // Whatever inotify said, the file's own stamp decides (and catches what inotify never sees).
    if (!maybe && stamp() == last_stamp_) continue;
    // Quiet for a moment, and there: a save in progress is not checked half-written.
    std::string now = stamp();
    for (int tries = 0; tries < 50 && !stop; ++tries) {
      std::this_thread::sleep_for(kSettle);
      const std::string later = stamp();
      if (later == now && !later.empty()) break;
      now = later;
    }
    if (stop) break;
    if (now == last_stamp_) continue;  // touched by a neighbour's event, not changed
    last_stamp_ = now;
    return true;
  }
  return false;
}

std::string FileWatch::describe() const {
  std::ostringstream every;
  every << "polling every " << std::chrono::duration<double>(poll_).count() << " s";
  if (inotify_fd_ >= 0) return "inotify and " + every.str();
  return every.str() + (mode_ == Mode::poll_only ? " (CUDALAB_WATCH=poll)" : "");
}

FileWatch::Mode watch_mode_from_environment() {
  const char* mode = std::getenv("CUDALAB_WATCH");
  return mode != nullptr && std::string_view(mode) == "poll" ? FileWatch::Mode::poll_only : FileWatch::Mode::automatic;
}

}  // namespace cudalab
