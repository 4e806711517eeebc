// cudalab-grading: the instructor's side of cudalab, run by `cudalab grade|report|merge|export`
// (the `cudalab` CLI hands these commands to this program, found next to it).
// Exit codes: 0 done (whatever the students' grades), 2 usage or set-up error.
#include <sys/ioctl.h>
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include "cudalab/errors.hpp"
#include "cudalab/grading/export.hpp"
#include "cudalab/grading/gradebook.hpp"
#include "cudalab/grading/grader.hpp"
#include "cudalab/grading/reports.hpp"
#include "cudalab/grading/scale.hpp"
#include "cudalab/judge.hpp"
#include "cudalab/paths.hpp"
#include "cudalab/report.hpp"
#include "cudalab/toolchain.hpp"

namespace {

namespace fs = std::filesystem;
using namespace cudalab;
using namespace cudalab::grading;

// The exit codes of errors.hpp's ExitCode, as main returns them.
constexpr int kExitDone = static_cast<int>(ExitCode::done);
constexpr int kExitUsage = static_cast<int>(ExitCode::not_run);

std::string minutes(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  return s >= 60 ? fmt::format("{}m{:02}s", s / 60, s % 60) : fmt::format("{}s", s);
}

/// The terminal's counter line: the attempt and its verdict (where its time went is the log's,
/// not a terminal's), cut to `columns` so that it never wraps: the next redraw clears one row only.
std::string counter_line(const GradeProgress& p, std::size_t columns) {
  const std::string attempt = p.current.substr(0, p.current.find(" ("));
  const std::string head = fmt::format("grading [{}/{}] ", p.done, p.total);
  const std::string tail = p.done < p.total ? " · about " + minutes(p.eta_s) + " left" : "";
  // Bytes, not columns: a name in UTF-8 takes fewer columns than bytes, so the cut is never short.
  const std::size_t room = columns > head.size() + tail.size() + 1 ? columns - head.size() - tail.size() - 1 : 0;
  if (attempt.size() <= room) return head + attempt + tail;
  std::size_t cut = room >= 3 ? room - 3 : 0;                                          // "…" is 3 bytes
  while (cut > 0 && (static_cast<unsigned char>(attempt[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  return head + attempt.substr(0, cut) + "…" + tail;
}

/// The terminal's width in columns (80 where it cannot be asked).
std::size_t terminal_columns() {
  winsize w{};
  return ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0 ? w.ws_col : 80;
}

int run_grade(GradeOptions options, bool color) {
  const bool tty = isatty(STDERR_FILENO) != 0;
  const GradeProgressFn progress = [&](const GradeProgress& p) {
    if (tty) {
      fmt::print(stderr, "\r\033[K{}", counter_line(p, terminal_columns()));
    } else {
      fmt::print(stderr, "graded {}/{}: {}\n", p.done, p.total, p.current);
    }
  };
  const GradeSummary s = grade_class(options, progress);
  if (tty) fmt::print(stderr, "\r\033[K");
  fmt::print("{}\n{}\n", s.backend_line, s.sandbox_line);
  for (const auto& line : s.devices) fmt::print("GPU: {}\n", line);
  if (!s.shard_line.empty()) fmt::print("{}\n", s.shard_line);
  fmt::print("{} student{}: {} attempt{} graded now{}\n\n", s.students, s.students == 1 ? "" : "s", s.graded,
             s.graded == 1 ? "" : "s",
             s.unchanged > 0 ? fmt::format(", {} unchanged since the gradebook's last grading", s.unchanged) : "");
  for (const auto& line : s.skipped) fmt::print("skipped {}\n", line);
  write_summary(std::cout, s.results, color);
  if (s.graded > 0) {
    const bool timed = !s.devices.empty();
    const std::string timing =
        timed ? fmt::format("timing {:.0f} s ({} GPU{} at once{})", s.timing_phase_s, s.devices.size(),
                            s.devices.size() == 1 ? "" : "s",
                            s.timed_beside_checks ? fmt::format(", the last one beside the checks; {} timed "
                                                                "again after them",
                                                                s.timed_again)
                                                  : "")
              : "no timing (not on a GPU)";
    fmt::print("\ngraded in {}{}: compiling and checking {:.0f} s ({} at once), {}\n", minutes(s.wall_s),
               s.wall_s >= 60 ? fmt::format(" ({:.0f} s)", s.wall_s) : "", s.check_phase_s, s.check_workers, timing);
    fmt::print("  summed over the attempts: compiling {:.0f} s, checking {:.0f} s{}\n", s.compile_s, s.check_s,
               timed ? fmt::format(", timing {:.0f} s", s.timing_s) : "");
    if (timed && s.timing_phase_s > 0) {
      // How busy the timing kept each GPU: a GPU idle in the timing phase waited for the CPU.
      std::vector<std::string> held;
      for (std::size_t g = 0; g < s.gpu_timing_s.size(); ++g) {
        held.push_back(fmt::format("GPU {} {:.0f} s ({:.0f} %)", g, s.gpu_timing_s[g],
                                   100 * s.gpu_timing_s[g] / s.timing_phase_s));
      }
      fmt::print("  held alone by timed runs, of the timing's {:.0f} s: {}\n", s.timing_phase_s, fmt::join(held, ", "));
    }
  }
  if (!s.similarity_line.empty()) fmt::print("\n{}\n", s.similarity_line);
  fmt::print(
      "\ngradebook and reports in {} (grades.csv, results.json, junit.xml, report.html, feedback/, "
      "gradescope/)\n",
      options.out_dir.string());
  return kExitDone;
}

int run_report(const fs::path& gradebook_file, fs::path out_dir, bool color) {
  if (!fs::is_regular_file(gradebook_file)) throw UsageError(gradebook_file.string() + " does not exist");
  const Gradebook gradebook(gradebook_file);
  const ClassResults results = gradebook.class_results();
  if (out_dir.empty()) out_dir = gradebook_file.parent_path().empty() ? fs::path(".") : gradebook_file.parent_path();
  write_summary(std::cout, results, color);
  write_reports(results, out_dir);
  fmt::print("\nreports in {}\n", out_dir.string());
  return kExitDone;
}

int run_merge(const MergeOptions& options, bool color) {
  const MergeSummary s = merge_gradebooks(options);
  fmt::print("merged {} shard{}{}: {} students, {} attempts ({} new)\n", s.shards, s.shards == 1 ? "" : "s",
             s.had_gradebook ? " into the gradebook already in " + options.out_dir.string() : "", s.students,
             s.attempts, s.added);
  for (const auto& note : s.notes) fmt::print("note: {}\n", note);
  fmt::print("\n");
  write_summary(std::cout, s.results, color);
  fmt::print("\ngradebook and reports in {}\n", options.out_dir.string());
  return kExitDone;
}

/// Where the instructors' page of the documentation is, for the end of a --help (as cudalab's own
/// --help names its pages): documentation_page(), else the page's title and source name.
std::string instructors_page() {
  if (const auto path = documentation_page("md_docs_instructors.html", "docs/instructors.md")) return path->string();
  return "\"For instructors\" in cudalab's documentation (docs/instructors.md in its source)";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "cudalab's grading: grade a class (on several GPUs, or in shards on a cluster), merge shards, write its "
      "reports, export the students' distribution"};
  app.name("cudalab");
  app.require_subcommand(1);
  const std::string docs = "Docs: " + instructors_page() + " (setting up a course, the rubric, grading, the reports)";
  app.footer("Exit codes: 0 done, 2 usage or set-up error (a malformed rubric, an unusable gradebook, no backend).\n" +
             docs);

  GradeOptions grade;
  std::string color = "auto";
  double timeout_s = 20;
  auto* grade_cmd = app.add_subcommand(
      "grade",
      "Grade every submission in a folder (one folder or .zip/.tar.gz per student) into a gradebook and reports");
  grade_cmd->add_option("submissions", grade.submissions, "Folder with one entry per student")->required();
  grade_cmd->add_option("--rubric", grade.rubric, "Rubric (TOML); default: grading/rubric.toml")
      ->check(CLI::ExistingFile);
  grade.out_dir = "grading-results";
  grade_cmd->add_option("--out", grade.out_dir, "Where the gradebook (gradebook.sqlite) and the reports go")
      ->capture_default_str();
  grade_cmd->add_option("--jobs", grade.jobs, "Attempts graded at once (default: one per CPU core)");
  grade_cmd->add_flag("--resume", grade.resume,
                      "Grade only what the gradebook lacks or what changed since (after an interrupted run)");
  grade_cmd->add_option("--only", grade.only, "Grade only these students (the others' rows stay as they are)");
  grade_cmd->add_option("--backend", grade.backend, "auto (the GPU if there is one), gpu, sim")
      ->check(CLI::IsMember({"auto", "gpu", "sim"}))
      ->capture_default_str();
  grade_cmd->add_option("--timeout", timeout_s, "Seconds allowed per check")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  auto* seed_opt =
      grade_cmd
          ->add_option("--seed", grade.seed,
                       "The class's grading seed, for a new gradebook (to replay a grading); default: a secret random "
                       "one. Prefer --seed-file: `ps` shows a command line")
          ->check(CLI::NonNegativeNumber);
  fs::path seed_file;
  grade_cmd
      ->add_option("--seed-file", seed_file,
                   "Read the class's seed from FILE (one decimal number; mode 600): every shard of a class grades "
                   "with the one seed, kept off the command line")
      ->excludes(seed_opt);
  std::string gpus_text;
  grade_cmd->add_option("--gpus", gpus_text,
                        "GPUs to grade on, e.g. 0,1 (numbered as cudalab sees them, after CUDA_VISIBLE_DEVICES): each "
                        "times one submission at a time, checks are spread over all; default: the first GPU. Not "
                        "with the simulator");
  grade_cmd->footer(
      "Several GPUs: --gpus 0,1 times on each GPU at once (one submission per GPU at a time, its speed against the "
      "reference solution timed on that same GPU; each attempt records its GPU). A cluster: --shard K/N --seed-file "
      "FILE grades one part of the class per job, `cudalab merge` joins the parts; grading/slurm/grade-on-slurm.sh "
      "does both with Slurm (grading/README.md).\n" +
      docs);
  std::string shard_text;
  grade_cmd->add_option("--shard", shard_text,
                        "Grade only shard K of N (0-based, K/N: $SLURM_ARRAY_TASK_ID/N in a Slurm array), chosen by a "
                        "stable hash of the student's name; needs --seed-file. Join the shards with `cudalab merge`");
  grade_cmd
      ->add_option("--time-cap", grade.time_cap_s,
                   "Seconds of timing per kernel on a GPU: a quarter per round; the rounds of the kernel and of the "
                   "reference solution, timed in turn, take at most four times it")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();

  fs::path gradebook_file, report_out;
  auto* report_cmd =
      app.add_subcommand("report", "Write the reports of a gradebook again (after grading, or another rubric)");
  report_cmd->add_option("gradebook", gradebook_file, "The gradebook.sqlite that `cudalab grade` wrote")->required();
  report_cmd->add_option("--out", report_out, "Where the reports go (default: beside the gradebook)");

  MergeOptions merge;
  auto* merge_cmd = app.add_subcommand(
      "merge",
      "Join the gradebooks of a class graded in shards (`cudalab grade --shard K/N`) into OUT/gradebook.sqlite and "
      "write the reports there");
  merge_cmd->add_option("out", merge.out_dir, "Folder for the merged gradebook and the reports")->required();
  merge_cmd
      ->add_option("shards", merge.shards,
                   "The shards' --out folders (or their gradebook.sqlite files), each graded with the same seed and "
                   "rubric")
      ->required();
  merge_cmd->add_flag("--force", merge.force, "Merge even when the shards' seeds, rubrics or backends differ");
  merge_cmd->footer(
      "Every attempt of every shard is kept (a student graded in two shards keeps both; the later graded counts). A "
      "gradebook already in OUT is kept and added to: merging the same shards again changes nothing, merging a "
      "re-graded shard adds what is new. Shards graded with different seeds, rubrics or backends are refused "
      "unless --force.\n" +
      docs);

  for (auto* cmd : {grade_cmd, merge_cmd}) {
    cmd->add_option("--color", color, "Colour: auto (on a terminal), always, never")
        ->check(CLI::IsMember({"auto", "always", "never"}));
  }

  fs::path export_out;
  auto* export_cmd = app.add_subcommand(
      "export", "Write the students' distribution: exercises, harness, docs and tests, without solutions or grading");
  export_cmd->add_option("outdir", export_out, "An empty folder outside the project")->required();
  report_cmd->footer(docs);
  export_cmd->footer(docs);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return e.get_exit_code() == 0 ? code : kExitUsage;
  }
  const bool use_color = color == "always" || (color == "auto" && want_color(STDOUT_FILENO));
  try {
    if (grade_cmd->parsed()) {
      grade.timeout = std::chrono::milliseconds(static_cast<long>(timeout_s * 1000));
      for (int i = 0; i < argc; ++i) grade.command += (i == 0 ? "cudalab" : std::string(" ") + argv[i]);
      if (!gpus_text.empty() || grade_cmd->count("--gpus") > 0) grade.gpus = parse_gpu_list(gpus_text);
      if (grade_cmd->count("--shard") > 0) grade.shard = parse_shard(shard_text);
      if (!seed_file.empty()) {
        std::string warning;
        grade.seed = read_seed_file(seed_file, warning);
        if (!warning.empty()) fmt::print(stderr, "cudalab: warning: {}\n", warning);
      }
      try {
        return run_grade(grade, use_color);
      } catch (const SetupError& e) {
        // The machine's fault: the submission in hand got no row; --resume grades it and the rest.
        fmt::print(stderr, "cudalab: grading stopped, no student's fault: {} (then go on with --resume)\n", e.what());
        return kExitUsage;
      }
    }
    if (report_cmd->parsed()) return run_report(gradebook_file, report_out, use_color);
    if (merge_cmd->parsed()) return run_merge(merge, use_color);
    if (export_cmd->parsed()) {
      export_distribution(project_root(), export_out);
      fmt::print("the students' distribution is in {}\n", export_out.string());
      return kExitDone;
    }
  } catch (...) {  // one line and the family's exit code (errors.hpp); a bug asks for a report
    const ErrorReport report = report_error(std::current_exception());
    fmt::print(stderr, "cudalab: {}\n", report.line);
    return static_cast<int>(report.code);
  }
  return kExitUsage;
}
