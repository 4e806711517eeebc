#include "cudalab/ladder.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace cudalab {

namespace fs = std::filesystem;

namespace {

/// Natural order of file names: runs of digits compare as numbers, so step2 < step10.
bool natural_less(const std::string& a, const std::string& b) {
  const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t i_end = i, j_end = j;
      while (i_end < a.size() && digit(a[i_end])) ++i_end;
      while (j_end < b.size() && digit(b[j_end])) ++j_end;
      // Leading zeros aside, the longer run is the larger number.
      std::string x = a.substr(i, i_end - i), y = b.substr(j, j_end - j);
      x.erase(0, std::min(x.find_first_not_of('0'), x.size()));
      y.erase(0, std::min(y.find_first_not_of('0'), y.size()));
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = i_end;
      j = j_end;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;  // equal up to leading zeros: any fixed order
}

void sort_naturally(std::vector<fs::path>& files) {
  std::ranges::sort(files, [](const fs::path& a, const fs::path& b) {
    return natural_less(a.filename().string(), b.filename().string());
  });
}

}  // namespace

std::vector<LadderStep> ladder_steps(const Task& task, const fs::path& solutions_dir) {
  const fs::path dir = solutions_dir / task.info().id;
  std::vector<fs::path> steps, tiers;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".cu" || !entry.is_regular_file(ec)) continue;
    const std::string name = entry.path().filename().string();
    if (name.starts_with("step")) steps.push_back(entry.path());
    // Other exercises have no TF32 tolerance to check such a file against.
    if (name.starts_with("tf32_") && task.info().supports_tf32) tiers.push_back(entry.path());
  }
  if (steps.empty()) return {};
  sort_naturally(steps);
  sort_naturally(tiers);
  std::vector<LadderStep> out;
  for (const auto& f : steps) out.push_back({f});
  out.push_back({dir / "kernel.cu"});
  for (const auto& f : tiers) out.push_back({f, Precision::tf32});
  return out;
}

}  // namespace cudalab
