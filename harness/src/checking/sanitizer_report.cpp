// compute-sanitizer's report read into findings (findings.hpp): each error block's kind, thread,
// block, line and size, in the same words as the simulator's checks, so `--sanitize` on a GPU and
// the default check on the simulator explain a bug alike.
#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "cudalab/findings.hpp"

namespace cudalab {

namespace fs = std::filesystem;
using protocol::Finding;
using protocol::FindingKind;
namespace {

/// Whether a __syncthreads() lies on a line strictly between lines `a` and `b` of `file` (false
/// when the file cannot be read).
bool barrier_between_lines(const std::string& file, int a, int b) {
  std::ifstream in(file);
  if (!in) return false;
  const int lo = std::min(a, b);
  const int hi = std::max(a, b);
  std::string line;
  for (int n = 1; std::getline(in, line) && n < hi; ++n) {
    // Code only: "// no __syncthreads() here" is no barrier.
    const std::string code = line.substr(0, line.find("//"));
    if (n > lo && code.find("__syncthreads") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

std::vector<std::pair<std::size_t, Finding>> parse_compute_sanitizer(const std::string& output,
                                                                     std::map<std::uint64_t, SourcePlace>& places,
                                                                     const fs::path& source) {
  static const std::regex at_line(R"(in ([^\s:]+\.(?:cu|cuh|h|hpp|cpp|cc)):(\d+))");
  static const std::regex who_re(R"(thread \((\d+),(\d+),(\d+)\) in block \((\d+),(\d+),(\d+)\))");
  static const std::regex size_re(R"(of size (\d+) bytes?)");
  // "at kernel(int *, int)+0x70 in k.cu:9", "at void kernel<(bool)0>(...)+0x150", "at 0x130 in k.cu:61:kernel(int*)"
  static const std::regex kernel_re(
      R"(at\s+(?:0x[0-9a-fA-F]+ in [^\s:]+:\d+:)?(?:void\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*[<(])");
  std::vector<std::pair<std::size_t, Finding>> out;
  std::size_t current_case = 0;
  // One report: its header line and the indented lines after it.
  std::vector<std::string> block;
  const auto place = [&](const std::string& file, int line) {
    const std::uint64_t id = places.size() + 1;
    places[id] = SourcePlace{file, line};
    return id;
  };
  const auto flush = [&] {
    if (block.empty()) return;
    const std::string head = block.front();
    std::string all;
    for (const auto& l : block) all += l + "\n";
    const std::vector<std::string> lines_of_block = std::move(block);
    block.clear();
    if (head.find("SUMMARY") != std::string::npos) return;
    Finding f;
    f.grid = {0, 0, 0};  // which thread: unknown until the report says
    if (head.find("Race reported") != std::string::npos || head.find("hazard") != std::string::npos) {
      f.kind = FindingKind::race;
      f.shared = true;  // racecheck looks at shared memory only
    } else if (head.find("Uninitialized") != std::string::npos) {
      f.kind = FindingKind::uninitialized;
    } else if (head.find("Barrier") != std::string::npos || head.find("barrier") != std::string::npos ||
               head.find("Divergent") != std::string::npos) {
      f.kind = FindingKind::barrier;
    } else if (head.find("Invalid arguments") != std::string::npos || head.find("warp") != std::string::npos) {
      f.kind = FindingKind::warp;
    } else if (head.find("Invalid __") != std::string::npos || head.find("Out of bounds") != std::string::npos ||
               head.find("Misaligned") != std::string::npos) {
      f.kind = all.find("misaligned") != std::string::npos ? FindingKind::misaligned : FindingKind::out_of_bounds;
      f.shared = head.find("__shared__") != std::string::npos;
    } else {
      return;  // a summary, a CUDA error the check reports on its own, a leak
    }
    std::smatch m;
    std::vector<std::pair<std::string, int>> lines;
    for (auto it = std::sregex_iterator(all.begin(), all.end(), at_line); it != std::sregex_iterator(); ++it) {
      lines.emplace_back((*it)[1].str(), std::stoi((*it)[2].str()));
    }
    if (std::regex_search(all, m, who_re)) {
      f.access.thread = {static_cast<unsigned>(std::stoul(m[1])), static_cast<unsigned>(std::stoul(m[2])),
                         static_cast<unsigned>(std::stoul(m[3]))};
      f.access.block = {static_cast<unsigned>(std::stoul(m[4])), static_cast<unsigned>(std::stoul(m[5])),
                        static_cast<unsigned>(std::stoul(m[6]))};
      // The shape is not in the report: show every coordinate that is not 0.
      f.block = {f.access.thread[0] + 1, f.access.thread[1] + 1, f.access.thread[2] + 1};
      f.grid = {f.access.block[0] + 1, f.access.block[1] + 1, f.access.block[2] + 1};
    }
    if (std::regex_search(all, m, size_re)) f.bytes = static_cast<unsigned>(std::stoul(m[1]));
    if (std::regex_search(all, m, kernel_re)) f.kernel = m[1];
    f.access.write = head.find(" write") != std::string::npos;
    if (!lines.empty()) f.access.pc = place(lines[0].first, lines[0].second);
    const std::string memory = f.shared ? "shared memory" : "global memory";
    f.target = f.bytes != 0 ? fmt::format("{} bytes of {}", f.bytes, memory) : memory;
    // The lines after "by thread …" say where the access went ("Address 0x… is out of bounds and
    // is 4 bytes after the nearest allocation … of size 4000 bytes"), up to the host backtrace.
    std::string said;
    bool after_who = false;
    for (std::size_t i = 1; i < lines_of_block.size(); ++i) {
      std::string l = lines_of_block[i];
      l.erase(0, l.find_first_not_of(' '));
      if (l.rfind("Saved host backtrace", 0) == 0 || l.rfind("Host Frame", 0) == 0) break;
      if (after_who && !l.empty()) said += (said.empty() ? "" : " ") + l;
      if (l.rfind("by thread", 0) == 0) after_who = true;
    }
    f.where = (said.empty() ? head : said).substr(0, 300);
    static const std::regex after_re(R"(is (\d+) bytes? after the nearest allocation at \S+ of size (\d+) bytes?)");
    static const std::regex before_re(R"(is (\d+) bytes? before the nearest allocation at \S+ of size (\d+) bytes?)");
    // The tool counts from the last byte: "1 bytes after" starts right at the end.
    if (std::regex_search(said, m, after_re)) {
      const unsigned long gap = std::stoul(m[1].str()) - 1;
      f.where = gap == 0 ? fmt::format("right past the end of a {}-byte allocation", m[2].str())
                         : fmt::format("{} bytes past the end of a {}-byte allocation", gap, m[2].str());
    } else if (std::regex_search(said, m, before_re)) {
      f.where = fmt::format("{} bytes before the start of a {}-byte allocation", m[1].str(), m[2].str());
    }
    if (f.kind == FindingKind::race && lines.size() >= 2) {
      // "Race reported between Write access at … and Read access at …": lead with the read when the
      // write comes first in the source (the read was meant to see it), else with the write.
      static const std::regex kind_re(R"((Write|Read) access)");
      std::vector<bool> writes;
      for (auto it = std::sregex_iterator(all.begin(), all.end(), kind_re); it != std::sregex_iterator(); ++it) {
        writes.push_back((*it)[1].str() == "Write");
      }
      protocol::FindingAccess a;
      protocol::FindingAccess b;
      a.write = !writes.empty() && writes[0];
      b.write = writes.size() > 1 && writes[1];
      a.pc = place(lines[0].first, lines[0].second);
      b.pc = place(lines[1].first, lines[1].second);
      f.target = "a word of shared memory";
      f.where = "";
      if (a.write != b.write) {
        const bool a_writes = a.write;
        // The tool may name the file without its folder: the one compiled is `source`.
        std::string file = a_writes ? lines[0].first : lines[1].first;
        if (!source.empty() && fs::path(file).filename() == source.filename()) file = source.string();
        const int write_line = a_writes ? lines[0].second : lines[1].second;
        const int read_line = a_writes ? lines[1].second : lines[0].second;
        // racecheck does not say which of the two was meant to come first; the source does. Write
        // above read with no barrier between: the read came too early (a barrier is missing
        // between them). With a barrier between, they race across loop iterations: the write
        // came too early (a barrier is missing before it). One line (x[i] += x[i + s]): a step of
        // a tree whose barrier is missing after it.
        const bool barrier_between = barrier_between_lines(file, write_line, read_line);
        f.write_first = write_line == read_line || ((write_line < read_line) != barrier_between);
        const protocol::FindingAccess& w = a_writes ? a : b;
        const protocol::FindingAccess& rd = a_writes ? b : a;
        f.access = f.write_first ? rd : w;
        f.other = f.write_first ? w : rd;
      } else {
        f.access = a;
        f.other = b;
      }
    }
    out.emplace_back(current_case, std::move(f));
  };
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cudalab-case ", 0) == 0) {
      flush();
      current_case = std::strtoul(line.c_str() + 13, nullptr, 10);
      continue;
    }
    if (line.rfind("=========", 0) != 0) continue;
    std::size_t text = line.find_first_not_of('=');
    if (text == std::string::npos) continue;
    const std::string body = line.substr(text);
    if (body.size() > 1 && body[0] == ' ' && body[1] != ' ') {
      flush();
      block.push_back(body.substr(1));
    } else if (!block.empty()) {
      block.push_back(body);
    }
  }
  flush();
  return out;
}

}  // namespace cudalab
