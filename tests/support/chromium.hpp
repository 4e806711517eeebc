// Renders an HTML file as a person would see it: headless Chromium (Debian's `chromium`) takes a
// screenshot of the page, with no network and a profile of the test's own.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>

namespace cudalab::testing_support {

inline const std::filesystem::path kChromium = "/usr/bin/chromium";

/// Screenshots `html` into `png` (a `width`×`height` window); empty on success, else what went
/// wrong (the command and Chromium's log).
inline std::string screenshot(const std::filesystem::path& html, const std::filesystem::path& png, int width = 1400,
                              int height = 2000) {
  const std::filesystem::path profile = png.string() + ".profile";
  const std::filesystem::path log = png.string() + ".log";
  std::filesystem::create_directories(profile);
  const std::string command = fmt::format(
      "timeout 120 {} --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
      "--disable-background-networking --disable-component-update --disable-sync --user-data-dir='{}' "
      "--window-size={},{} --screenshot='{}' 'file://{}' >'{}' 2>&1",
      kChromium.string(), profile.string(), width, height, png.string(), html.string(), log.string());
  const int rc = std::system(command.c_str());
  if (rc == 0 && std::filesystem::exists(png)) return "";
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  return command + "\n" + text.str();
}

}  // namespace cudalab::testing_support
