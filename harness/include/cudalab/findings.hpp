// What `check --sanitize` found in device code, in the student's words: each finding of the
// simulator's checks (or of compute-sanitizer on a GPU) becomes a sentence naming the kernel, the
// block and thread, the access and its source line, and a fix. Findings outrank guesses: a case
// with one leads with it, whatever its output was.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cudalab/exercise_check.hpp"
#include "cudalab/protocol.hpp"

namespace cudalab {

/// A place in the source: "kernel.cu:41" (file name only) and the line.
struct SourcePlace {
  std::string file;  ///< as the compiler saw it (the student's path), empty if unknown
  int line = 0;      ///< 1-based line number; 0 if unknown
};

/// The source places of module offsets `pcs` in `module` (its debug lines, through addr2line;
/// inlined helpers of the simulator's headers are skipped for the student's line that used them).
/// Offsets it cannot place are left out.
std::map<std::uint64_t, SourcePlace> locate_in_module(const std::filesystem::path& module,
                                                      const std::vector<std::uint64_t>& pcs);

/// Turns `findings` into `r`'s verdict, message, details and hints (the first finding leads; the
/// output's own verdict, if wrong, is kept as a detail). No-op when there are none. `known`: the
/// places of the findings' offsets where they are known already (compute-sanitizer names lines
/// itself); the rest are looked up in `module`. `in_place_steps`: TaskInfo::in_place_steps (a race
/// in one statement is then never fixed by an atomic).
void judge_findings(const std::vector<protocol::Finding>& findings, const std::filesystem::path& module, CaseResult& r,
                    const std::map<std::uint64_t, SourcePlace>* known = nullptr, bool in_place_steps = false);

/// compute-sanitizer's report (any of its tools, text output, with the runner's "cudalab-case N"
/// markers) as findings, each with the case it came from. The source places it names are added to
/// `places` under made-up offsets, which the findings' accesses carry. `source`: the file compiled,
/// read to order a race's two accesses (the tool may name it without its folder).
std::vector<std::pair<std::size_t, protocol::Finding>> parse_compute_sanitizer(
    const std::string& output, std::map<std::uint64_t, SourcePlace>& places, const std::filesystem::path& source = {});

/// The verdict a finding of `kind` gives.
Verdict verdict_of(protocol::FindingKind kind);

}  // namespace cudalab
