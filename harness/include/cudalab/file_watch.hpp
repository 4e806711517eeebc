// Waits for a file to be saved again: `check --watch`. inotify on the file's folder (editors save
// by writing in place or by renaming a new file over the old one, so the folder is watched, not the
// file), and a look at the file's size and time of change every poll interval, for folders where
// inotify never fires (WSL's Windows drives, network mounts).
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>

namespace cudalab {

/// One watched file.
class FileWatch {
 public:
  /// How the watch learns of a change.
  enum class Mode {
    automatic,  ///< inotify where the kernel grants it, with polling beside it
    poll_only,  ///< only the periodic look (CUDALAB_WATCH=poll)
  };

  /// Watches `file` from now on. `poll`: how often the file's size and time of change are looked at.
  explicit FileWatch(std::filesystem::path file, Mode mode = Mode::automatic,
                     std::chrono::milliseconds poll = std::chrono::milliseconds(500));
  ~FileWatch();
  FileWatch(const FileWatch&) = delete;
  FileWatch& operator=(const FileWatch&) = delete;

  /// Blocks until the file has changed since the last call (or since construction) and its writer
  /// has been quiet for a moment (an editor's save can take several writes), or until `stop`
  /// becomes true (looked at every poll interval, and at once when a signal interrupts the wait).
  /// True for a change, false for a stop.
  bool wait_for_change(const std::atomic<bool>& stop);

  /// "inotify and polling every 0.5 s" or "polling every 0.5 s (CUDALAB_WATCH=poll)".
  [[nodiscard]] std::string describe() const;

 private:
  /// The file's size and time of change now (zero where it does not exist, as mid-rename).
  [[nodiscard]] std::string stamp() const;

  std::filesystem::path file_;
  Mode mode_;
  std::chrono::milliseconds poll_;
  int inotify_fd_ = -1;  ///< -1: polling alone
  std::string last_stamp_;
};

/// The watch mode the environment asks for: CUDALAB_WATCH=poll forces polling.
FileWatch::Mode watch_mode_from_environment();

}  // namespace cudalab
