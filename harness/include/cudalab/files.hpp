// File helpers every stage shares: reading a whole file, and the content key that names what is
// stored by its content (compiled modules, a class's submissions, a rubric's version).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace cudalab {

/// 128-bit hash of `parts` (each length-prefixed, so boundaries matter), as 32 hex digits.
std::string content_key(const std::vector<std::string_view>& parts);

/// Reads a whole file; throws std::system_error (the path, errno) when it cannot.
std::string read_file(const std::filesystem::path& path);

/// Writes `text` to `path` whole or not at all: into a temporary file beside it, then renamed over
/// it, so that a reader never sees half of it. Throws std::system_error (the path, errno).
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

}  // namespace cudalab
