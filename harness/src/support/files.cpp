#include "cudalab/files.hpp"

#define XXH_INLINE_ALL  // header-only: nothing to link or carry
#include <xxhash.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <unistd.h>

#include <fmt/format.h>

namespace cudalab {

std::string content_key(const std::vector<std::string_view>& parts) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_128bits_reset(state);
  for (auto part : parts) {
    const std::uint64_t size = part.size();
    XXH3_128bits_update(state, &size, sizeof size);
    XXH3_128bits_update(state, part.data(), part.size());
  }
  const XXH128_hash_t h = XXH3_128bits_digest(state);
  XXH3_freeState(state);
  char hex[33];
  std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return hex;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::system_error(errno, std::generic_category(), "cannot read " + path.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw std::system_error(errno, std::generic_category(), "cannot read " + path.string());
  return ss.str();
}

void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  std::filesystem::path tmp = path;
  tmp += fmt::format(".tmp-{}", getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::system_error(errno, std::generic_category(), "cannot write " + path.string());
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) {
      const int error = errno;
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      throw std::system_error(error, std::generic_category(), "cannot write " + path.string());
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw std::system_error(ec, "cannot write " + path.string());
  }
}

}  // namespace cudalab
