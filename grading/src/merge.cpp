// `cudalab merge OUT SHARD_DIR...`: the gradebooks of a class graded in shards joined into one.
// The inputs are checked against each other first (seed, rubric, backend), then every row of every
// input goes into a new file, once, in the order it was graded, which is renamed over OUT's.
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cudalab/grading/gradebook.hpp"
#include "cudalab/grading/reports.hpp"
#include "cudalab/grading/scale.hpp"

namespace cudalab::grading {

namespace fs = std::filesystem;

namespace {

/// One gradebook read whole.
struct Input {
  std::string name;  ///< for messages: the path as given
  bool earlier_merge = false;
  std::uint64_t seed = 0;
  std::vector<RunRecord> runs;
  std::vector<Attempt> attempts;
  std::vector<StudentNote> notes;
};

Input read_input(const fs::path& file, std::string name, bool earlier_merge) {
  Input in;
  in.name = std::move(name);
  in.earlier_merge = earlier_merge;
  // Closed at the end of this scope, so that no connection keeps a -wal file alive.
  const Gradebook book(file);
  in.seed = book.seed();
  in.runs = book.runs();
  in.attempts = book.attempts();
  in.notes = book.student_notes();
  return in;
}

/// The gradebook file a shard argument names: the folder's gradebook.sqlite, or the file itself.
fs::path gradebook_of(const fs::path& shard) {
  const fs::path file = fs::is_directory(shard) ? shard / "gradebook.sqlite" : shard;
  if (!fs::is_regular_file(file)) {
    throw MergeError(fmt::format("{}: no gradebook there ({} does not exist): was this shard graded?", shard.string(),
                                 file.string()));
  }
  return file;
}

fs::path canonical_or_self(const fs::path& p) {
  std::error_code ec;
  const fs::path c = fs::weakly_canonical(fs::absolute(p), ec);
  return ec ? p : c;
}

/// Whether two runs were scored alike: the same backend and rubric (by content hash where both
/// have one, else by points). Returns what differs, or "".
std::string difference(const RunInfo& a, const RunInfo& b) {
  if (a.backend != b.backend) return fmt::format("graded on {}, not {}", b.backend, a.backend);
  if (!a.rubric_hash.empty() && !b.rubric_hash.empty()) {
    if (a.rubric_hash != b.rubric_hash) {
      return a.rubric_source == b.rubric_source
                 ? fmt::format("graded with another rubric ({} changed in between)", b.rubric_source)
                 : fmt::format("graded with another rubric ({}, not {})", b.rubric_source, a.rubric_source);
    }
    return "";
  }
  if (a.points != b.points) {
    return fmt::format("graded with other points ({}, not {})", nlohmann::json(b.points).dump(),
                       nlohmann::json(a.points).dump());
  }
  return "";
}

/// What identifies a run across copies of a gradebook.
using RunKey = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string, std::string,
                          std::string, std::string>;

RunKey key_of(const RunInfo& r) {
  return {r.started_at,
          r.cudalab_version,
          r.backend,
          r.device,
          r.command,
          r.rubric_source,
          nlohmann::json(r.points).dump(),
          r.rubric_hash,
          r.sandbox};
}

/// What identifies an attempt within its run across copies of a gradebook.
using AttemptKey = std::tuple<std::size_t, std::string, std::string, std::string, std::string, std::uint64_t>;

/// The shards that the inputs' `cudalab grade ... --shard K/N` runs say were graded: N → {K}.
std::map<unsigned, std::set<unsigned>> shards_seen(const std::vector<Input>& inputs) {
  static const std::regex kShardArg(R"((?:^|\s)--shard[ =](\d+)/(\d+)(?:\s|$))");
  std::map<unsigned, std::set<unsigned>> seen;
  for (const Input& in : inputs) {
    for (const RunRecord& r : in.runs) {
      std::smatch m;
      if (!std::regex_search(r.info.command, m, kShardArg)) continue;
      try {
        const Shard s = parse_shard(m[1].str() + "/" + m[2].str());
        seen[s.count].insert(s.index);
      } catch (const UsageError&) {
        // Not a shard this cudalab would have graded: nothing to say about it.
      }
    }
  }
  return seen;
}

}  // namespace

MergeSummary merge_gradebooks(const MergeOptions& options) {
  if (options.shards.empty()) {
    throw MergeError("nothing to merge: name the shards' folders (cudalab merge OUT SHARD_DIR...)");
  }
  const fs::path out_file = options.out_dir / "gradebook.sqlite";
  const fs::path out_canonical = canonical_or_self(out_file);

  MergeSummary summary;
  std::vector<std::pair<fs::path, std::string>> files;  // (gradebook, name for messages)
  std::set<fs::path> listed;
  for (const fs::path& shard : options.shards) {
    const fs::path file = gradebook_of(shard);
    const fs::path canonical = canonical_or_self(file);
    if (canonical == out_canonical) {
      throw MergeError(
          fmt::format("{} is OUT's own gradebook: merge into another folder than the shards'", shard.string()));
    }
    if (!listed.insert(canonical).second) {
      summary.notes.push_back(fmt::format("{} is listed twice: read once", shard.string()));
      continue;
    }
    files.emplace_back(file, shard.string());
  }

  // OUT's gradebook (an earlier merge) is the first input: its rows keep their order, and the
  // shards add only what it lacks.
  std::vector<Input> inputs;
  if (fs::is_regular_file(out_file)) inputs.push_back(read_input(out_file, out_file.string(), true));
  for (const auto& [file, name] : files) inputs.push_back(read_input(file, name, false));
  summary.shards = files.size();
  summary.had_gradebook = fs::is_regular_file(out_file);

  // Seeds, rubrics and backends must agree, or the students' grades are not comparable.
  const Input& first = inputs.front();
  const RunRecord* first_run = nullptr;
  const Input* first_run_input = nullptr;
  for (const Input& in : inputs) {
    if (in.seed != first.seed) {
      const std::string what = fmt::format(
          "{} was graded with another seed than {}: its students got other inputs (every shard of a class must "
          "grade with the one --seed-file)",
          in.name, first.name);
      if (!options.force) throw MergeError(what + "; --force merges anyway");
      summary.notes.push_back("--force: " + what);
    }
    if (in.runs.empty()) continue;
    // The newest run is the one whose rubric the reports use.
    const RunRecord& newest = in.runs.back();
    if (first_run == nullptr) {
      first_run = &newest;
      first_run_input = &in;
      continue;
    }
    if (const std::string d = difference(first_run->info, newest.info); !d.empty()) {
      const std::string what = fmt::format("{} was {} than {}", in.name, d, first_run_input->name);
      if (!options.force) throw MergeError(what + "; --force merges anyway");
      summary.notes.push_back("--force: " + what);
    }
  }

  // Runs: each once (an earlier merge holds copies of the shards'), oldest first.
  std::map<RunKey, std::size_t> run_of_key;
  std::vector<const RunRecord*> unique_runs;
  std::map<std::pair<std::size_t, std::int64_t>, std::size_t> unified;  // (input, run id) → unique run
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    for (const RunRecord& r : inputs[i].runs) {
      const auto [it, fresh] = run_of_key.emplace(key_of(r.info), unique_runs.size());
      if (fresh) unique_runs.push_back(&r);
      unified[{i, r.id}] = it->second;
    }
  }
  std::vector<std::size_t> run_order(unique_runs.size());
  for (std::size_t k = 0; k < run_order.size(); ++k) run_order[k] = k;
  std::ranges::stable_sort(run_order, [&](std::size_t a, std::size_t b) {
    return unique_runs[a]->info.started_at < unique_runs[b]->info.started_at;
  });

  // Attempts: a row another input already brought is left out; the rest go in the order graded,
  // so that "the newest row counts" still means "the latest graded counts".
  struct Kept {
    const Attempt* attempt;
    std::size_t input;
    std::size_t run;
  };
  std::vector<Kept> kept;
  std::map<AttemptKey, std::size_t> first_input;
  std::map<std::string, std::set<std::string>> shards_of_student;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    for (const Attempt& a : inputs[i].attempts) {
      const auto run = unified.find({i, a.run_id});
      if (run == unified.end()) {
        throw MergeError(
            fmt::format("{}: attempt {} names run {}, which is not there", inputs[i].name, a.id, a.run_id));
      }
      if (!inputs[i].earlier_merge) shards_of_student[a.student].insert(inputs[i].name);
      const AttemptKey key{run->second,   a.student,   a.exercise,
                           a.source_hash, a.graded_at, std::bit_cast<std::uint64_t>(a.seconds)};
      const auto [it, fresh] = first_input.emplace(key, i);
      if (!fresh && it->second != i) {
        ++summary.duplicates;
        continue;
      }
      kept.push_back({&a, i, run->second});
    }
  }
  std::ranges::stable_sort(kept, [](const Kept& a, const Kept& b) {
    return std::tie(a.attempt->graded_at, a.input, a.attempt->id) <
           std::tie(b.attempt->graded_at, b.input, b.attempt->id);
  });

  // Notes come whole per (run, student), as `cudalab grade` writes them.
  std::map<std::pair<std::size_t, std::string>, std::size_t> notes_from;  // (run, student) → input
  std::map<std::size_t, std::vector<const StudentNote*>> notes_of_run;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    for (const StudentNote& n : inputs[i].notes) {
      const auto run = unified.find({i, n.run_id});
      if (run == unified.end()) continue;
      if (!inputs[i].earlier_merge) shards_of_student[n.student].insert(inputs[i].name);
      const auto [it, fresh] = notes_from.emplace(std::pair{run->second, n.student}, i);
      if (!fresh && it->second != i) continue;
      notes_of_run[run->second].push_back(&n);
    }
  }

  for (const auto& [student, shards] : shards_of_student) {
    if (shards.size() > 1) {
      summary.notes.push_back(fmt::format("{} is in {}: every attempt is kept, the latest graded counts", student,
                                          fmt::join(shards, " and ")));
    }
  }
  for (const auto& [count, indices] : shards_seen(inputs)) {
    std::vector<std::string> missing;
    for (unsigned k = 0; k < count; ++k) {
      if (indices.count(k) == 0) missing.push_back(fmt::format("{}/{}", k, count));
    }
    if (!missing.empty()) {
      summary.notes.push_back(fmt::format("shard{} {} not among the inputs: {} students are not in the merge",
                                          missing.size() == 1 ? "" : "s", fmt::join(missing, ", "),
                                          missing.size() == 1 ? "its" : "their"));
    }
  }

  // Written beside OUT's gradebook, then renamed over it: a merge killed midway leaves the old one.
  fs::create_directories(options.out_dir);
  const fs::path temp = options.out_dir / fmt::format(".gradebook.sqlite.merging-{}", ::getpid());
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(temp.string() + suffix);
  try {
    Gradebook merged(temp, first.seed);
    std::map<std::size_t, std::int64_t> new_run;
    for (const std::size_t k : run_order) {
      new_run[k] = merged.begin_run(unique_runs[k]->info);
      std::map<std::string, std::vector<std::string>> by_student;
      std::vector<std::string> order;
      for (const StudentNote* n : notes_of_run[k]) {
        if (by_student.count(n->student) == 0) order.push_back(n->student);
        by_student[n->student].push_back(n->note);
      }
      for (const std::string& student : order) merged.add_student_notes(new_run[k], student, by_student[student]);
    }
    for (const Kept& k : kept) merged.add_attempt(new_run.at(k.run), *k.attempt);
  } catch (...) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(temp.string() + suffix);
    throw;
  }
  // Every connection is closed now, and SQLite removed its -wal files; one still there belongs to
  // a process that has OUT's gradebook open, and would be replayed into the new file.
  if (fs::exists(out_file.string() + "-wal")) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(temp.string() + suffix);
    throw MergeError(fmt::format("{} is open in another process ({}-wal exists): merge again once it is closed",
                                 out_file.string(), out_file.string()));
  }
  fs::remove(out_file.string() + "-shm");
  fs::rename(temp, out_file);

  const Gradebook merged(out_file);
  summary.results = merged.class_results();
  summary.attempts = kept.size();
  summary.added = kept.size() - (summary.had_gradebook ? inputs.front().attempts.size() : 0);
  summary.students = summary.results.students.size();
  if (options.write_reports) write_reports(summary.results, options.out_dir);
  return summary;
}

}  // namespace cudalab::grading
