// Register counts from nvcc, for explain's occupancy: `nvcc -Xptxas -v` compiles the source for
// the target's architecture and says how many registers each kernel uses.
#pragma once

#include <filesystem>
#include <map>
#include <string>

namespace cudalab {

/// What nvcc said, or why it could not.
struct NvccRegisters {
  std::map<std::string, unsigned> entries;  ///< registers per thread, by mangled entry name (empty: unknown)
  std::string note;                         ///< where the counts come from, or why they are assumed
};

/// Asks nvcc (CUDALAB_NVCC, PATH, /usr/local/cuda/bin) about `source` for `arch`; keeps the answer
/// in `cache_dir`/explain by the content of the source and its headers (empty: not kept).
NvccRegisters nvcc_registers(const std::filesystem::path& source, const std::string& arch,
                             const std::filesystem::path& cache_dir);

}  // namespace cudalab
