// FileWatch (check --watch): a save is seen whether the editor writes the file in place or renames
// a new file over it, by inotify and by polling alone, and a stop ends the wait.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "cudalab/file_watch.hpp"

namespace cudalab {
namespace {

namespace fs = std::filesystem;

fs::path fresh_file(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / ("cudalab-watch-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "kernel.cu") << "// first\n";
  return dir / "kernel.cu";
}

class FileWatchModes : public testing::TestWithParam<FileWatch::Mode> {};

TEST_P(FileWatchModes, SeesASaveInPlaceAndARenameOverTheFile) {
  const fs::path file = fresh_file(GetParam() == FileWatch::Mode::poll_only ? "poll" : "inotify");
  FileWatch watch(file, GetParam(), std::chrono::milliseconds(50));
  std::atomic<bool> stop = false;
  // A stop the test sets itself if a change is never seen: the test ends, failing, instead of hanging.
  std::thread guard([&] {
    for (int i = 0; i < 600 && !stop; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop = true;
  });
  std::ofstream(file, std::ios::trunc) << "// saved in place, longer\n";
  EXPECT_TRUE(watch.wait_for_change(stop));
  // As Vim and many editors save: a new file renamed over the old one.
  std::ofstream(file.parent_path() / ".kernel.cu.swp") << "// renamed over\n";
  fs::rename(file.parent_path() / ".kernel.cu.swp", file);
  EXPECT_TRUE(watch.wait_for_change(stop));
  // A neighbour's change is not the file's.
  std::ofstream(file.parent_path() / "notes.txt") << "x\n";
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    stop = true;
  });
  EXPECT_FALSE(watch.wait_for_change(stop)) << "a stop ends the wait, and nothing changed the file";
  stopper.join();
  guard.join();
}

INSTANTIATE_TEST_SUITE_P(Both, FileWatchModes, testing::Values(FileWatch::Mode::automatic, FileWatch::Mode::poll_only),
                         [](const testing::TestParamInfo<FileWatch::Mode>& info) {
                           return info.param == FileWatch::Mode::poll_only ? "poll" : "inotify";
                         });

TEST(FileWatch, SaysHowItWatches) {
  const fs::path file = fresh_file("describe");
  EXPECT_EQ(FileWatch(file, FileWatch::Mode::poll_only, std::chrono::milliseconds(500)).describe(),
            "polling every 0.5 s (CUDALAB_WATCH=poll)");
  EXPECT_EQ(FileWatch(file, FileWatch::Mode::automatic, std::chrono::milliseconds(500)).describe(),
            "inotify and polling every 0.5 s");
}

}  // namespace
}  // namespace cudalab
