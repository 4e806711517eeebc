// Docs that cannot drift: every command of a fenced ```sh, ```bash, ```shell or ```console block in
// README.md, exercises/*/README.md, grading/README.md, harness/sim/README.md and docs/**/*.md (found
// when the test runs: a new page is checked without being named anywhere) runs in a scratch copy of
// the project, and must end with the exit code the page implies; where the page shows its output,
// the output must have that shape.
//
// The convention, in the Markdown: HTML comments on the lines right above a block's opening fence
// (GitHub and Doxygen show nothing of them), one directive each:
//
//   <!-- docs-check: exit 1 (why) -->               every command of the block exits 1 (default: 0)
//   <!-- docs-check: exit 0 for `--solution` -->    ... those whose text contains `--solution`
//   <!-- docs-check: skip (why) -->                 not run here; the reason is printed and counted
//   <!-- docs-check: skip for `--tf32` (why) -->    ... those commands only
//   <!-- docs-check: needs a GPU -->                must stop with exit 2 and a line about the GPU,
//                                                   not a usage error (a wrong flag still fails)
//   <!-- docs-check: setup: SHELL COMMAND -->       run first in the block's scratch copy (a class
//                                                   to grade, a file for --file); must exit 0
//   <!-- docs-check: output of `COMMAND` -->        above a plain ``` block that shows an output
//                                                   with prose before it: COMMAND's output is compared
//   <!-- docs-check: output not compared (why) -->  above an output block that cannot be compared
//
// A ``` or ```text block that directly follows a command block (only blank lines or markers between)
// shows the output of that block's commands; in a ```console block (or a block using `$ ` prompts)
// the lines after a command are its output. Outputs are compared by shape, see normalise() and
// match_output(): numbers become #, spaces collapse, a shown line ending in … stands for the start
// of a longer line and a … inside one for left-out columns, a long line may be wrapped over several
// shown lines, and shown lines must appear in order (the output may have more lines between them).
// The test prints which lines were compared.
//
// A ```console block without `$ ` prompts is a list of commands, as ```sh is.
//
// How commands run: each block in a fresh copy of the source tree (no build trees, no .git) in
// CUDALAB_DOCS_SCRATCH_DIR/pages/block-N/project (kept until the next run), its commands one after
// another (a `cd` carries on to the next command of the block), from the project root, with bash,
// HOME in block-N/home (so `~/my-cuda` lands there), a path under /tmp moved into block-N/tmp (and
// shown as /tmp in the output), NO_COLOR=1, and one compile cache (CUDALAB_CACHE_DIR) for every
// block and run: its keys hold each kernel's path, which is why the folders are at the same place
// every time. `./cudalab` is the repository's wrapper that configures and builds first: here it is
// replaced by the built binary (CUDALAB_CLI), and a bare `cudalab` finds the same binary on PATH.
// Blocks run in parallel (CUDALAB_DOCS_JOBS, default 2 to 4 by the cores). Run once and shared: a
// `cudalab check` (or --help) that is the same command after the same setup in another block; and
// a block that begins with all the commands of another (the same class generated and graded) goes
// on from a copy of that block's folder.
//
// Never run here, whatever the page says (kNeverRun): scripts/test.sh and .ci/run (the suite
// itself) and scripts/setup.sh (installs packages as root). A command whose program is not
// installed here (git, sqlite3 or python3 on a bare CI image) is skipped, saying so, and so are
// the commands after it in its block (they use what it makes). Where an NVIDIA GPU is visible the
// test skips: the pages show what cudalab prints without one, as on CI's machines.
//
// The report (printed, and counted in the XML output's properties): the commands run, shared and
// skipped (each with its reason), the outputs compared (each with the shown lines found), those
// not compared, the slowest commands (CUDALAB_DOCS_SLOWEST=N prints N), the failures.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "cudalab/backend.hpp"
#include "cudalab/paths.hpp"
#include "cudalab/process.hpp"

extern char** environ;

namespace cudalab {
namespace {

namespace fs = std::filesystem;

constexpr std::chrono::seconds kCommandTimeout{240};
constexpr int kOutputTailLines = 40;
constexpr std::size_t kSlowestShown = 8;
constexpr const char* kWithAGpu =
    "an NVIDIA GPU is visible: the pages show what cudalab prints without one (the simulator's backend line, "
    "bench refusing), as on CI's machines, where this test runs; here `check` would run on the GPU and `bench` "
    "would time for minutes";

/// Programs a page may show that the suite must not run, with the reason printed for each.
const std::vector<std::pair<std::string, std::string>> kNeverRun = {
    {"scripts/test.sh", "it runs the test suite, this test included"},
    {".ci/run", "it runs the test suite, this test included"},
    {"scripts/setup.sh", "it installs Debian packages (root or sudo)"},
};

// ---- Reading the pages --------------------------------------------------------------------------

/// A line of a page: its number and text.
struct Line {
  int number = 0;
  std::string text;
};

/// An output shown in a page.
struct ShownOutput {
  std::string file;
  int line = 0;              ///< first line of the output (the line after the fence, or after the command)
  std::vector<Line> lines;   ///< as shown
  std::string not_compared;  ///< from `output not compared (why)`; empty: compared
};

/// One command of a page, with what the page implies about it.
struct Command {
  std::string file;
  int line = 0;
  std::string script;  ///< what bash runs: continuation lines kept, `# comment` tails removed
  int expected_exit = 0;
  bool needs_gpu = false;
  std::string skip;                   ///< why it is not run; empty: it is run
  std::optional<ShownOutput> output;  ///< console blocks: the lines shown after the command
};

/// A fenced command block (or the command of an `output of` marker) and the output shown after it.
struct Block {
  std::string file;
  int line = 0;
  std::vector<std::string> setup;
  std::vector<Command> commands;
  std::optional<ShownOutput> output;
};

struct Scan {
  std::vector<Block> blocks;
  std::vector<std::string> errors;  ///< malformed markers and the like: each fails the test
};

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return "";
  const auto last = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(first, last - first + 1));
}

/// A command on one line, for messages and keys.
std::string one_line(const std::string& script) {
  std::string out;
  for (std::size_t i = 0; i < script.size(); ++i) {
    if (script[i] == '\\' && i + 1 < script.size() && script[i + 1] == '\n') {
      ++i;
      continue;
    }
    out += script[i] == '\n' ? ' ' : script[i];
  }
  static const std::regex kSpaces("\\s+");
  return trim(std::regex_replace(out, kSpaces, " "));
}

/// The shell's view of one physical line: the line without its `# comment` tail, and whether the
/// command goes on to the next line (open quotes, a trailing backslash, a trailing && || |).
struct Lexed {
  std::string code;
  bool continues = false;
};

struct LexState {
  bool in_single = false;
  bool in_double = false;
};

Lexed lex_line(const std::string& line, LexState& state) {
  Lexed out;
  bool escaped_newline = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (state.in_single) {
      out.code += c;
      if (c == '\'') state.in_single = false;
      continue;
    }
    if (c == '\\') {
      if (i + 1 == line.size()) {
        escaped_newline = true;
        out.code += c;
        break;
      }
      out.code += c;
      out.code += line[++i];
      continue;
    }
    if (state.in_double) {
      out.code += c;
      if (c == '"') state.in_double = false;
      continue;
    }
    if (c == '\'') state.in_single = true;
    if (c == '"') state.in_double = true;
    if (c == '#') {
      const char before = i == 0 ? ' ' : line[i - 1];
      if (std::string_view(" \t;&|()<>").find(before) != std::string_view::npos) break;  // a comment
    }
    out.code += c;
  }
  while (!out.code.empty() && (out.code.back() == ' ' || out.code.back() == '\t')) out.code.pop_back();
  const std::string t = trim(out.code);
  const bool operator_end = t.size() >= 2 && (t.ends_with("&&") || t.ends_with("||"));
  const bool pipe_end = !t.empty() && t.back() == '|' && !operator_end;
  out.continues = state.in_single || state.in_double || escaped_newline || operator_end || pipe_end;
  return out;
}

/// The commands of a block's lines. With `$ ` prompts (console blocks), only prompted lines are
/// commands and the lines after one are its output.
std::vector<Command> commands_of(const std::string& file, const std::vector<Line>& lines) {
  // A ```console block without a prompt is a list of commands, as ```sh.
  bool prompted = false;
  for (const auto& l : lines) prompted = prompted || trim(l.text).starts_with("$ ");
  std::vector<Command> commands;
  LexState state;
  bool continuing = false;
  for (const auto& l : lines) {
    std::string text = l.text;
    if (continuing) {
      if (prompted && trim(text).starts_with("> ")) text = text.substr(text.find("> ") + 2);
      const Lexed lexed = lex_line(text, state);
      commands.back().script += "\n" + lexed.code;
      continuing = lexed.continues;
      continue;
    }
    const std::string t = trim(text);
    if (prompted) {
      if (t.starts_with("$ ") || t == "$") {
        text = t.size() > 2 ? t.substr(2) : "";
      } else {
        if (!commands.empty()) {
          auto& out = commands.back().output;
          if (!out) out = ShownOutput{file, l.number, {}, {}};
          out->lines.push_back(l);
        }
        continue;
      }
    }
    state = LexState{};
    const Lexed lexed = lex_line(text, state);
    if (trim(lexed.code).empty()) continue;  // a blank line or a comment alone
    Command c;
    c.file = file;
    c.line = l.number;
    c.script = lexed.code;
    commands.push_back(std::move(c));
    continuing = lexed.continues;
  }
  for (auto& c : commands) c.script = trim(c.script);
  return commands;
}

/// A `<!-- docs-check: ... -->` line.
struct Marker {
  int line = 0;
  std::string directive;
};

bool is_command_language(const std::string& lang) {
  return lang == "sh" || lang == "bash" || lang == "shell" || lang == "console" || lang == "zsh";
}
bool is_output_language(const std::string& lang) { return lang.empty() || lang == "text" || lang == "txt"; }

/// Applies a block's markers to it; a marker that makes no sense there is an error.
void apply_markers(Block& block, const std::vector<Marker>& markers, std::vector<std::string>& errors) {
  static const std::regex kExit(R"(exit (\d+)(?: for `([^`]+)`)?(?:\s*\(.+\))?)");
  static const std::regex kSkip(R"(skip(?: for `([^`]+)`)?\s*\((.+)\))");
  static const std::regex kGpu(R"(needs a GPU(?: for `([^`]+)`)?(?:\s*\(.+\))?)");
  static const std::regex kSetup(R"(setup: (.+))");
  const auto where = [&](const Marker& m) { return block.file + ":" + std::to_string(m.line); };
  // Markers for the whole block first, then those `for` some commands, so that these win.
  for (const bool targeted : {false, true}) {
    for (const auto& m : markers) {
      std::smatch match;
      std::string target;
      std::function<void(Command&)> apply;
      if (std::regex_match(m.directive, match, kExit)) {
        target = match[2];
        const int code = std::stoi(match[1]);
        apply = [code](Command& c) { c.expected_exit = code; };
      } else if (std::regex_match(m.directive, match, kSkip)) {
        target = match[1];
        const std::string why = match[2];
        apply = [why](Command& c) { c.skip = why; };
      } else if (std::regex_match(m.directive, match, kGpu)) {
        target = match[1];
        apply = [](Command& c) { c.needs_gpu = true; };
      } else if (std::regex_match(m.directive, match, kSetup)) {
        if (!targeted) block.setup.push_back(match[1]);
        continue;
      } else if (m.directive.starts_with("output ")) {
        continue;  // read with the output block
      } else {
        if (!targeted) {
          errors.push_back(where(m) + ": unknown docs-check marker '" + m.directive +
                           "' (exit N, skip (why), needs a GPU, setup: ..., output of `...`, "
                           "output not compared (why); a skip must say why)");
        }
        continue;
      }
      if (target.empty() == targeted) continue;
      std::size_t hits = 0;
      for (auto& c : block.commands) {
        if (target.empty() || one_line(c.script).find(target) != std::string::npos) {
          apply(c);
          ++hits;
        }
      }
      if (hits == 0) {
        errors.push_back(where(m) + ": docs-check marker '" + m.directive + "' matches no command of its block");
      }
    }
  }
}

/// Reads a page's command blocks, their markers and the outputs shown after them.
Scan scan_markdown(const std::string& file, const std::string& text) {
  Scan scan;
  std::vector<Line> lines;
  {
    std::istringstream in(text);
    std::string l;
    for (int n = 1; std::getline(in, l); ++n) {
      if (!l.empty() && l.back() == '\r') l.pop_back();
      lines.push_back({n, l});
    }
  }
  static const std::regex kMarker(R"(\s*<!--\s*docs-check:\s*(.*?)\s*-->\s*)");
  static const std::regex kFence(R"((\s*)(`{3,}|~{3,})\s*([^\s`{]*).*)");
  std::vector<Marker> pending;
  // The command block an output block may belong to: set when a command block closes, cleared by
  // any line of prose.
  constexpr std::size_t kNoBlock = static_cast<std::size_t>(-1);
  std::size_t last_commands = kNoBlock;
  const auto error = [&](int line, const std::string& what) {
    scan.errors.push_back(file + ":" + std::to_string(line) + ": " + what);
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i].text;
    std::smatch m;
    if (std::regex_match(l, m, kMarker)) {
      pending.push_back({lines[i].number, m[1]});
      continue;
    }
    if (trim(l).starts_with("<!--") && l.find("docs-check") != std::string::npos) {  // prose may name one
      error(lines[i].number, "malformed docs-check marker (one `<!-- docs-check: DIRECTIVE -->` a line): " + l);
      continue;
    }
    if (!std::regex_match(l, m, kFence)) {
      if (trim(l).empty()) continue;
      if (!pending.empty()) error(pending.front().line, "docs-check marker not followed by a fenced block");
      pending.clear();
      last_commands = kNoBlock;
      continue;
    }
    // A fenced block: its lines, without the fence's indentation.
    const std::size_t indent = m[1].length();
    const std::string fence = m[2];
    std::string lang = m[3];
    std::transform(lang.begin(), lang.end(), lang.begin(), [](unsigned char c) { return std::tolower(c); });
    const int fence_line = lines[i].number;
    std::vector<Line> body;
    for (++i; i < lines.size(); ++i) {
      const std::string t = trim(lines[i].text);
      if (t.starts_with(fence) && t.find_first_not_of(fence[0]) == std::string::npos) break;
      std::string b = lines[i].text;
      std::size_t cut = 0;
      while (cut < indent && cut < b.size() && b[cut] == ' ') ++cut;
      body.push_back({lines[i].number, b.substr(cut)});
    }
    std::vector<Marker> markers;
    markers.swap(pending);
    const auto find_marker = [&](const std::string& prefix) -> std::optional<Marker> {
      for (const auto& mk : markers) {
        if (mk.directive.starts_with(prefix)) return mk;
      }
      return std::nullopt;
    };
    if (is_command_language(lang)) {
      Block block;
      block.file = file;
      block.line = fence_line;
      block.commands = commands_of(file, body);
      if (const auto out = find_marker("output ")) {
        error(out->line, "an output marker belongs above an output block, not above commands");
      }
      apply_markers(block, markers, scan.errors);
      if (block.commands.empty()) {
        if (!markers.empty()) error(markers.front().line, "docs-check marker above a block without commands");
        last_commands = kNoBlock;
        continue;
      }
      scan.blocks.push_back(std::move(block));
      last_commands = scan.blocks.size() - 1;
      continue;
    }
    if (is_output_language(lang)) {
      ShownOutput shown{file, fence_line + 1, body, {}};
      static const std::regex kNotCompared(R"(output not compared \((.+)\))");
      static const std::regex kOutputOf(R"(output of `([^`]+)`)");
      std::smatch om;
      if (const auto nc = find_marker("output not compared"); nc) {
        if (std::regex_match(nc->directive, om, kNotCompared)) {
          shown.not_compared = om[1];
        } else {
          error(nc->line, "`output not compared` must say why: output not compared (why)");
        }
      }
      if (const auto of = find_marker("output of"); of) {
        if (!std::regex_match(of->directive, om, kOutputOf)) {
          error(of->line, "write `output of `COMMAND``: " + of->directive);
          last_commands = kNoBlock;
          continue;
        }
        // The command whose output this is, as if shown in a block of its own at the marker.
        Block block;
        block.file = file;
        block.line = of->line;
        Command c;
        c.file = file;
        c.line = of->line;
        c.script = om[1];
        block.commands.push_back(c);
        std::vector<Marker> rest;
        for (const auto& mk : markers) {
          if (!mk.directive.starts_with("output ")) rest.push_back(mk);
        }
        apply_markers(block, rest, scan.errors);
        block.output = shown;
        scan.blocks.push_back(std::move(block));
      } else if (last_commands != kNoBlock) {
        for (const auto& mk : markers) {
          if (!mk.directive.starts_with("output ")) {
            error(mk.line, "above an output block only `output of` and `output not compared` mean anything");
          }
        }
        scan.blocks[last_commands].output = shown;
      } else if (!markers.empty()) {
        error(markers.front().line,
              "docs-check marker above a block that follows no command block (use `output of `COMMAND``)");
      }
      last_commands = kNoBlock;
      continue;
    }
    if (!markers.empty()) error(markers.front().line, "docs-check marker above a ```" + lang + " block");
    last_commands = kNoBlock;
  }
  if (!pending.empty()) error(pending.front().line, "docs-check marker at the end of the page");
  return scan;
}

// ---- Comparing outputs ---------------------------------------------------------------------------

/// The shape of a line: escape sequences gone, every number `#` (a digit run with its decimals,
/// also inside a word, as in a time stamp's T17 or a version's deb12u1, but not next to a `_`, as
/// in 03_matmul or sm_90), a number with a time unit `#s`, runs of blanks one space, no blanks at
/// the ends.
std::string normalise(std::string_view line) {
  static const std::regex kEscape("\x1b\\[[0-9;]*[A-Za-z]");
  std::string s = std::regex_replace(std::string(line), kEscape, "");
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    // A minus sign before a number is the number's (random inputs give either sign), not a dash
    // inside a word or a range.
    const bool negative = s[i] == '-' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])) &&
                          (i == 0 || !std::isalnum(static_cast<unsigned char>(s[i - 1])));
    if (!negative && !std::isdigit(static_cast<unsigned char>(s[i]))) {
      out += s[i++];
      continue;
    }
    std::size_t j = negative ? i + 1 : i;
    while (j < s.size() &&
           (std::isdigit(static_cast<unsigned char>(s[j])) ||
            ((s[j] == '.' || s[j] == ',') && j + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[j + 1]))))) {
      ++j;
    }
    if ((i > 0 && s[i - 1] == '_') || (j < s.size() && s[j] == '_')) {  // a name: 03_matmul, sm_90
      out.append(s, i, j - i);
    } else {
      out += '#';
    }
    i = j;
  }
  static const std::regex kTime(R"(# ?(ns|us|µs|ms|s|min)\b)");
  out = std::regex_replace(out, kTime, "#s");
  static const std::regex kBlanks("[ \t]+");
  return trim(std::regex_replace(out, kBlanks, " "));
}

struct ShapeLine {
  int line = 0;
  std::string shape;
  bool prefix = false;             ///< it ended in …: the rest of the line is left out
  std::vector<std::string> parts;  ///< split at a … inside the line (left-out columns): in this order
};

/// The shown lines that are compared: all but blank ones and lines of … alone.
std::vector<ShapeLine> shape_of(const std::vector<Line>& shown) {
  static const std::string kEllipsis = "…";
  std::vector<ShapeLine> out;
  for (const auto& l : shown) {
    std::string t = trim(l.text);
    bool prefix = false;
    for (const std::string_view ellipsis : {std::string_view(kEllipsis), std::string_view("...")}) {
      if (t.ends_with(ellipsis)) {
        t = trim(t.substr(0, t.size() - ellipsis.size()));
        prefix = true;
      }
    }
    if (t.empty()) continue;
    ShapeLine s{l.number, normalise(t), prefix, {}};
    for (std::size_t from = 0;;) {
      const std::size_t at = s.shape.find(kEllipsis, from);
      s.parts.push_back(trim(s.shape.substr(from, at == std::string::npos ? std::string::npos : at - from)));
      if (at == std::string::npos) break;
      from = at + kEllipsis.size();
    }
    out.push_back(std::move(s));
  }
  return out;
}

/// Whether `actual` holds a shown line's parts in order: the first at its start, the last at its
/// end (unless the shown line ends in …).
bool matches_parts(std::string_view actual, const ShapeLine& shown) {
  if (!actual.starts_with(shown.parts.front())) return false;
  std::size_t at = shown.parts.front().size();
  for (std::size_t k = 1; k < shown.parts.size(); ++k) {
    const std::string& part = shown.parts[k];
    if (k + 1 == shown.parts.size() && !shown.prefix) {
      return actual.size() >= at + part.size() && actual.ends_with(part);
    }
    at = actual.find(part, at);
    if (at == std::string_view::npos) return false;
    at += part.size();
  }
  return true;
}

/// How many shown lines, from `first`, line `actual` accounts for: one, or several when the page
/// wraps a long line; 0 when it does not match.
std::size_t match_at(const std::string& actual, const std::vector<ShapeLine>& shown, std::size_t first) {
  if (shown[first].parts.size() > 1) return matches_parts(actual, shown[first]) ? 1 : 0;
  std::string_view rest = actual;
  for (std::size_t k = first; k < shown.size() && shown[k].parts.size() == 1; ++k) {
    const std::string& s = shown[k].shape;
    if (!rest.starts_with(s)) return 0;
    if (shown[k].prefix || rest.size() == s.size()) return k - first + 1;
    if (rest[s.size()] != ' ') return 0;
    rest.remove_prefix(s.size() + 1);
  }
  return 0;
}

struct Comparison {
  std::size_t compared = 0;  ///< shown lines matched
  std::string mismatch;      ///< empty: every shown line was found, in order
};

/// Whether the shown lines appear, in order, in `output` (see the file's comment).
Comparison match_output(const std::vector<Line>& shown, const std::string& output) {
  const std::vector<ShapeLine> want = shape_of(shown);
  std::vector<std::string> have;
  {
    std::istringstream in(output);
    std::string l;
    while (std::getline(in, l)) {
      std::string n = normalise(l);
      if (!n.empty()) have.push_back(std::move(n));
    }
  }
  Comparison c;
  std::size_t at = 0;
  for (std::size_t j = 0; j < want.size();) {
    std::size_t used = 0;
    for (; at < have.size() && used == 0; ++at) used = match_at(have[at], want, j);
    if (used == 0) {
      std::ostringstream msg;
      msg << "line " << want[j].line << " is not in the output (after the lines matched before it): '" << want[j].shape
          << (want[j].prefix ? " …'" : "'") << "\n    the output, normalised:";
      for (const auto& h : have) msg << "\n      " << h;
      c.mismatch = msg.str();
      return c;
    }
    c.compared += used;
    j += used;
  }
  return c;
}

// ---- Running them -------------------------------------------------------------------------------

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// The first word of each simple command of a script (a program, a builtin or a keyword).
std::vector<std::string> programs_of(const std::string& script) {
  std::vector<std::string> programs;
  std::string word;
  bool at_start = true;
  bool in_single = false;
  bool in_double = false;
  const auto end_word = [&] {
    if (word.empty()) return;
    static const std::set<std::string> kKeywords = {"then", "do", "else", "elif", "!", "{", "time"};
    if (at_start && word.find('=') == std::string::npos && !kKeywords.contains(word)) {
      programs.push_back(word);
      at_start = false;
    }
    word.clear();
  };
  for (std::size_t i = 0; i < script.size(); ++i) {
    const char c = script[i];
    if (in_single) {
      if (c == '\'') in_single = false;
      continue;
    }
    if (in_double) {
      if (c == '\\') ++i;
      if (c == '"') in_double = false;
      continue;
    }
    if (c == '\\') {
      ++i;
      continue;
    }
    if (c == '\'' || c == '"') {
      (c == '\'' ? in_single : in_double) = true;
      if (at_start) word += '?';  // a quoted program name: not checked
      continue;
    }
    if (std::string_view(";&|()\n").find(c) != std::string_view::npos) {
      end_word();
      at_start = true;
      continue;
    }
    if (c == ' ' || c == '\t') {
      end_word();
      continue;
    }
    word += c;
  }
  end_word();
  return programs;
}

/// The interpreter a script of the project names on its #! line ("python3"), or "".
std::string interpreter_of(const fs::path& script) {
  std::ifstream in(script);
  std::string first;
  if (!std::getline(in, first) || !first.starts_with("#!")) return "";
  std::istringstream words(first.substr(2));
  std::string program;
  std::string argument;
  words >> program >> argument;
  return fs::path(program).filename() == "env" ? argument : program;
}

/// Why a command cannot run here, or "".
std::string cannot_run(const Command& c) {
  static const std::set<std::string> kBuiltins = {
      "cd",    "umask", "echo", "printf", "export", "set", "test", "[",      "true", "false",  "exit",
      "for",   "if",    "fi",   "done",   "while",  "in",  "read", "source", ".",    "pushd",  "popd",
      "local", "unset", "wait", "case",   "esac",   "[[",  "}",    "{",      "type", "command"};
  for (const auto& p : programs_of(c.script)) {
    for (const auto& [program, why] : kNeverRun) {
      if (p == program || p == "./" + program) return p + " is never run by the suite: " + why;
    }
    if (p.find('/') != std::string::npos && p.find('$') == std::string::npos && p != "./cudalab") {
      const std::string interpreter = interpreter_of(fs::path(CUDALAB_SOURCE_DIR) / p);
      if (!interpreter.empty() && (interpreter.find('/') != std::string::npos ? !is_executable(interpreter)
                                                                              : find_on_path(interpreter).empty())) {
        return interpreter + " (the interpreter of " + p + ") is not installed here";
      }
      continue;
    }
    if (p == "cudalab" || p == "./cudalab" || kBuiltins.contains(p) || p.find('?') != std::string::npos ||
        p.find('$') != std::string::npos) {
      continue;
    }
    if (find_on_path(p).empty()) return p + " is not installed here";
  }
  return "";
}

/// Why each command of a block is not run here ("" for those that are): its marker's reason, or
/// cannot_run()'s; the commands after one whose program is missing depend on it and are skipped too.
std::vector<std::string> skip_reasons(const Block& block) {
  std::vector<std::string> why;
  std::string missing;
  for (const auto& c : block.commands) {
    if (!c.skip.empty()) {
      why.push_back(c.skip);
    } else if (!missing.empty()) {
      why.push_back("it comes after " + missing);
    } else {
      why.push_back(cannot_run(c));
      if (why.back().find("is not installed here") != std::string::npos) {
        missing = "`" + one_line(c.script) + "`, not run here (" + why.back() + ")";
      }
    }
  }
  return why;
}

/// What one command did.
struct Outcome {
  ProcessResult result;
  std::string cwd_after;  ///< where a `cd` left the shell
  bool shared = false;    ///< an identical command elsewhere ran it
};

struct Failure {
  std::string where;
  std::string what;
};

/// What a block's run left: its commands' outcomes (none for those not run), where it ran.
struct Ran {
  std::vector<std::optional<Outcome>> outcomes;
  std::string setup_failure;
  fs::path dir;     ///< the block's folder: project/, home/, tmp/
  std::string cwd;  ///< where its last command left the shell
};

struct Report {
  std::size_t commands = 0;  ///< in the pages
  std::size_t run = 0;       ///< run here (shared ones counted once each place)
  std::size_t shared = 0;    ///< of those, results taken from an identical command
  std::size_t gpu_refusals = 0;
  std::vector<std::string> skipped;       ///< "file:line `command`: why"
  std::vector<std::string> compared;      ///< "file:line-line: N lines ..."
  std::vector<std::string> not_compared;  ///< "file:line: why"
  std::vector<Failure> failures;
  std::vector<std::pair<double, std::string>> slowest;  ///< seconds, "file:line `command`"
  double seconds = 0;
};

/// Runs blocks in scratch copies of a project, in parallel, sharing one compile cache.
class Runner {
 public:
  Runner(fs::path source, fs::path cli, fs::path cache, fs::path work)
      : source_(std::move(source)), cli_(std::move(cli)), cache_(std::move(cache)), work_(std::move(work)) {
    // The last run's folder goes aside and away while this one runs: removing files the disk is
    // still writing back took up to a minute on a busy machine.
    if (fs::exists(work_)) {
      const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
      fs::rename(work_, work_.string() + ".old-" + std::to_string(stamp));
    }
    cleanup_ = std::thread([dir = work_.parent_path(), name = work_.filename().string() + ".old-"] {
      std::error_code ec;
      for (const auto& e : fs::directory_iterator(dir, ec)) {
        if (e.path().filename().string().starts_with(name)) fs::remove_all(e.path(), ec);
      }
    });
    fs::create_directories(work_ / "bin");
    fs::create_symlink(cli_, work_ / "bin" / "cudalab");
    fs::create_directories(cache_);
    fs::remove(cache_ / "status.json");  // `list` starts from nothing checked
    share_modules();
    static const std::set<std::string> kDropped = {
        "HOME",    "CUDALAB_ROOT",  "CUDALAB_CACHE_DIR", "NO_COLOR",          "PATH",
        "GIT_DIR", "GIT_WORK_TREE", "XDG_CONFIG_HOME",   "CUDALAB_NO_SANDBOX"};
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry = *e;
      if (!kDropped.contains(entry.substr(0, entry.find('=')))) env_.push_back(entry);
    }
    const char* path = std::getenv("PATH");
    env_.push_back("PATH=" + (work_ / "bin").string() + ":" + (path != nullptr ? path : "/usr/bin:/bin"));
    env_.push_back("CUDALAB_CACHE_DIR=" + cache_.string());
    env_.push_back("NO_COLOR=1");
    for (const char* who : {"AUTHOR", "COMMITTER"}) {
      env_.push_back(std::string("GIT_") + who + "_NAME=docs check");
      env_.push_back(std::string("GIT_") + who + "_EMAIL=docs-check@example.invalid");
    }
    env_.push_back("GIT_CONFIG_NOSYSTEM=1");
  }

  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;
  ~Runner() { cleanup_.join(); }

  /// The compiled modules (and the simulator's precompiled prelude) are the other test programs':
  /// the pages check the reference solutions and the corpus files those tests compile too, and the
  /// suite compiled each twice. Only the status of `list` and `next` stays the pages' own.
  void share_modules() {
#ifdef CUDALAB_TEST_CACHE_DIR
    const fs::path shared = CUDALAB_TEST_CACHE_DIR;
    for (const char* part : {"sim", "sim-pch", "gpu", "nvcc-front-end", "explain", "tools"}) {
      fs::create_directories(shared / part);
      const fs::path here = cache_ / part;
      std::error_code ec;
      if (fs::is_symlink(here, ec) && fs::read_symlink(here, ec) == shared / part) continue;
      fs::remove_all(here, ec);
      fs::create_directory_symlink(shared / part, here);
    }
#endif
  }

  Report run(const std::vector<Block>& blocks, unsigned jobs) {
    const auto start = std::chrono::steady_clock::now();
    Report report;
    skips_.clear();
    for (const auto& b : blocks) skips_.push_back(skip_reasons(b));
    // A block that begins with all of another's commands (after the same setup) goes on from where
    // that one ended, in a copy of its folder: the same class is not graded twice. It runs after
    // it, on the same thread.
    std::vector<std::optional<std::size_t>> base(blocks.size());
    std::vector<std::vector<std::size_t>> continued(blocks.size());
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      for (std::size_t a = 0; a < blocks.size(); ++a) {
        const std::size_t na = blocks[a].commands.size();
        const std::size_t nb = blocks[b].commands.size();
        if (a == b || na > nb || (na == nb && a > b) || !begins_with(blocks, b, a)) continue;
        if (!base[b] || blocks[*base[b]].commands.size() < na) base[b] = a;
      }
      if (base[b]) continued[*base[b]].push_back(b);
    }
    // Longest first: a block that checks --all goes before the rest.
    std::vector<std::size_t> order;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      if (!base[b]) order.push_back(b);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return weight(blocks[a]) > weight(blocks[b]); });
    std::vector<Ran> ran(blocks.size());
    std::atomic<std::size_t> next{0};
    const std::function<void(std::size_t)> run_with_continuations = [&](std::size_t b) {
      run_block(b, blocks[b], base[b] ? &ran[*base[b]] : nullptr, ran[b]);
      for (const std::size_t c : continued[b]) run_with_continuations(c);
    };
    const auto worker = [&] {
      for (std::size_t k = next++; k < order.size(); k = next++) run_with_continuations(order[k]);
    };
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < std::max(1u, jobs); ++t) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
    for (std::size_t b = 0; b < blocks.size(); ++b) judge(blocks[b], skips_[b], ran[b], report);
    std::sort(report.slowest.rbegin(), report.slowest.rend());
    const char* shown = std::getenv("CUDALAB_DOCS_SLOWEST");  // how many of the slowest commands to print
    const std::size_t keep = shown != nullptr ? std::strtoul(shown, nullptr, 10) : kSlowestShown;
    if (report.slowest.size() > keep) report.slowest.resize(keep);
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
  }

 private:
  /// A guess at a block's cost, for starting the long ones first: a check of every exercise, a
  /// class graded (each submission compiled).
  static int weight(const Block& b) {
    int w = 0;
    for (const auto& c : b.commands) {
      w += c.script.find("--all") != std::string::npos ? 100 : c.script.find(" grade ") != std::string::npos ? 30 : 1;
    }
    for (const auto& s : b.setup) w += s.find(" grade ") != std::string::npos ? 30 : 0;
    return w;
  }

  fs::path scratch_of(std::size_t index) const { return work_ / ("block-" + std::to_string(index)); }

  /// A copy of the source tree: no build trees, no version control, nothing hidden but .ci.
  void copy_project(const fs::path& to) const {
    fs::create_directories(to);
    for (auto it = fs::recursive_directory_iterator(source_); it != fs::recursive_directory_iterator(); ++it) {
      const fs::path rel = fs::relative(it->path(), source_);
      const std::string name = it->path().filename().string();
      const bool hidden = name.starts_with(".") && name != ".ci" && name != ".clang-format" && name != ".clang-tidy" &&
                          name != ".gitignore";
      if (it->is_symlink()) {
        if (!hidden) fs::copy_symlink(it->path(), to / rel);
        continue;
      }
      if (it->is_directory()) {
        if (hidden || (it.depth() == 0 && name == "build") || fs::exists(it->path() / "CMakeCache.txt")) {
          it.disable_recursion_pending();
        } else {
          fs::create_directories(to / rel);
        }
        continue;
      }
      if (!hidden && !name.ends_with(".swp") && it->is_regular_file()) fs::copy_file(it->path(), to / rel);
    }
  }

  /// Runs `script` with bash in `cwd`; `cwd_after` gets where it ended. The output is read with the
  /// scratch folder's paths as a page shows them: relative to the project, `~` for the home folder.
  Outcome shell(const std::string& script, const fs::path& cwd, const fs::path& project, const fs::path& home) const {
    // A path under /tmp moves into the block's own folder (two pages may name the same one), and
    // comes back as /tmp in the output.
    const fs::path tmp = home.parent_path() / "tmp";
    fs::create_directories(tmp);
    static const std::regex kTmp(R"((^|[\s'"=:(])/tmp/)");
    static const std::regex kWrapper(R"((^|[\s;&|(])\./cudalab(?=\s|$))");
    const std::string command = std::regex_replace(std::regex_replace(script, kTmp, "$1" + tmp.string() + "/"),
                                                   kWrapper, "$1" + shell_quote(cli_.string()));
    const fs::path pwd_file = home.parent_path() / ("pwd-" + std::to_string(counter_++));
    ProcessOptions o;
    o.argv = {"/bin/bash", "--noprofile", "--norc", "-c",
              "cd -- " + shell_quote(cwd.string()) + " || exit 97\n" + command + "\n__docs_check_rc=$?\npwd >" +
                  shell_quote(pwd_file.string()) + " 2>/dev/null\nexit $__docs_check_rc\n"};
    std::vector<std::string> env = env_;
    env.push_back("HOME=" + home.string());
    o.environment = env;
    o.working_dir = cwd.string();
    o.timeout = kCommandTimeout;
    o.max_output_bytes = 64 << 20;
    o.kept_output_bytes = 4 << 20;
    Outcome out;
    out.result = run_process(o);
    std::ifstream in(pwd_file);
    std::getline(in, out.cwd_after);
    if (out.cwd_after.empty()) out.cwd_after = cwd.string();
    std::string& text = out.result.output;
    for (const auto& [from, to] :
         {std::pair{project.string() + "/", std::string()}, {home.string(), "~"}, {tmp.string() + "/", "/tmp/"}}) {
      for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
      }
    }
    return out;
  }

  /// A `cudalab check` or a --help alone: the same command after the same setup gives the same
  /// result in any block, so it runs once.
  static bool shareable(const std::string& script) {
    static const std::regex kPure(R"((\./)?cudalab (check\b[^;&|<>`$()]*|[^;&|<>`$()]*--help|--version))");
    return script.find('\n') == std::string::npos && std::regex_match(script, kPure);
  }

  /// Whether block `b` begins with every command of block `a`, after the same setup, all of them run.
  bool begins_with(const std::vector<Block>& blocks, std::size_t b, std::size_t a) const {
    const Block& block = blocks[b];
    const Block& base = blocks[a];
    if (base.commands.empty() || block.setup != base.setup) return false;
    for (std::size_t i = 0; i < base.commands.size(); ++i) {
      if (!skips_[a][i].empty() || !skips_[b][i].empty() ||
          one_line(base.commands[i].script) != one_line(block.commands[i].script) ||
          base.commands[i].needs_gpu != block.commands[i].needs_gpu) {
        return false;
      }
    }
    return true;
  }

  void run_block(std::size_t index, const Block& block, const Ran* base, Ran& ran) {
    auto& outcomes = ran.outcomes;
    outcomes.resize(block.commands.size());
    bool any = false;
    for (const auto& why : skips_[index]) any = any || why.empty();
    if (!any) return;
    const fs::path dir = scratch_of(index);
    const fs::path project = dir / "project";
    const fs::path home = dir / "home";
    std::string key;  // the setup and what ran before, for sharing
    for (const auto& s : block.setup) key += "setup: " + s + "\n";
    std::string cwd = project.string();
    std::size_t first = 0;
    if (base != nullptr) {
      // Go on from the end of the block this one begins with.
      ran.setup_failure = base->setup_failure;
      if (!ran.setup_failure.empty()) return;
      fs::copy(base->dir, dir, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
      for (; first < base->outcomes.size(); ++first) {
        outcomes[first] = base->outcomes[first];
        outcomes[first]->shared = true;
        key += one_line(block.commands[first].script) + "\n";
      }
      cwd = (dir / fs::relative(base->cwd, base->dir)).lexically_normal().string();
    } else {
      copy_project(project);
      fs::create_directories(home);
      for (const auto& s : block.setup) {
        Outcome o = shell(s, project, project, home);
        if (!o.result.ok()) {
          ran.setup_failure = "setup `" + s + "` failed (" + describe(o.result) + "):\n" + tail(o.result.output);
          return;
        }
      }
    }
    ran.dir = dir;
    for (std::size_t i = first; i < block.commands.size(); ++i) {
      const Command& c = block.commands[i];
      if (!skips_[index][i].empty()) continue;
      const auto run = [&] { return shell(c.script, cwd, project, home); };
      if (shareable(c.script)) {  // leaves the working folder as it was
        const std::string relative_cwd = fs::relative(cwd, dir).string();
        outcomes[i] = shared_run(key + relative_cwd + "\n" + one_line(c.script), run);
      } else {
        outcomes[i] = run();
        key += one_line(c.script) + "\n";
        cwd = outcomes[i]->cwd_after;
      }
    }
    ran.cwd = cwd;
  }

  Outcome shared_run(const std::string& key, const std::function<Outcome()>& run) {
    std::shared_future<Outcome> future;
    std::promise<Outcome> promise;
    bool mine = false;
    {
      std::lock_guard lock(mutex_);
      auto it = shared_.find(key);
      if (it == shared_.end()) {
        future = promise.get_future().share();
        shared_.emplace(key, future);
        mine = true;
      } else {
        future = it->second;
      }
    }
    if (mine) {
      promise.set_value(run());
      return future.get();
    }
    Outcome o = future.get();
    o.shared = true;
    return o;
  }

  static std::string describe(const ProcessResult& r) {
    switch (r.status) {
      case ProcessResult::Status::exited:
        return "exit " + std::to_string(r.exit_code);
      case ProcessResult::Status::signaled:
        return "killed by " + describe_signal(r.signal);
      case ProcessResult::Status::timed_out:
        return "still running after " + std::to_string(kCommandTimeout.count()) + " s";
      case ProcessResult::Status::output_flood:
        return "output flood";
      case ProcessResult::Status::spawn_failed:
        return "not started: " + r.error;
    }
    return "?";
  }

  static std::string tail(const std::string& output) {
    std::size_t at = output.size();
    for (int n = 0; n <= kOutputTailLines && at != std::string::npos && at > 0; ++n) at = output.rfind('\n', at - 1);
    const std::string t = at == std::string::npos || at == 0 ? output : output.substr(at + 1);
    std::string indented = "    | ";
    for (const char c : t) indented += c == '\n' ? std::string("\n    | ") : std::string(1, c);
    return indented;
  }

  static void compare(const ShownOutput& shown, const std::string& output, const std::string& of, Report& report) {
    const Comparison c = match_output(shown.lines, output);
    const int last = shown.lines.empty() ? shown.line : shown.lines.back().number;
    const std::string where = shown.file + ":" + std::to_string(shown.line) + "-" + std::to_string(last);
    if (!c.mismatch.empty()) {
      report.failures.push_back(
          {where, "the output shown is not the shape of the output of " + of + ": " + c.mismatch});
      return;
    }
    report.compared.push_back(where + ": " + std::to_string(c.compared) + " shown lines found in the output of " + of);
  }

  void judge(const Block& block, const std::vector<std::string>& skips, const Ran& ran, Report& report) const {
    const std::vector<std::optional<Outcome>>& outcomes = ran.outcomes;
    const std::string& setup_failure = ran.setup_failure;
    std::string block_output;
    bool all_ran = true;
    for (std::size_t i = 0; i < block.commands.size(); ++i) {
      const Command& c = block.commands[i];
      ++report.commands;
      const std::string where = c.file + ":" + std::to_string(c.line);
      const std::string shown = "`" + one_line(c.script) + "`";
      const std::string& why = skips[i];
      if (!why.empty()) {
        report.skipped.push_back(where + " " + shown + ": " + why);
        all_ran = false;
        if (c.output) report.not_compared.push_back(where + ": its command was skipped");
        continue;
      }
      if (!setup_failure.empty()) {
        report.failures.push_back({where, shown + " not run: " + setup_failure});
        all_ran = false;
        continue;
      }
      const Outcome& o = *outcomes.at(i);
      ++report.run;
      if (o.shared) ++report.shared;
      const ProcessResult& r = o.result;
      if (!o.shared) report.slowest.emplace_back(r.wall_ms / 1000, where + " " + shown);
      block_output += r.output;
      if (c.needs_gpu) {
        // Without a GPU, cudalab says so (exit 2) rather than taking the command apart: a usage
        // error ("Run with --help") means the command itself is wrong.
        const bool refused = r.status == ProcessResult::Status::exited && r.exit_code == 2 &&
                             r.output.find("GPU") != std::string::npos &&
                             r.output.find("Run with --help") == std::string::npos;
        if (refused) {
          ++report.gpu_refusals;
        } else {
          report.failures.push_back({where, shown + " needs a GPU: without one it must stop with exit 2 and say " +
                                                "why, but it ended with " + describe(r) + ":\n" + tail(r.output)});
        }
        continue;
      }
      if (r.status != ProcessResult::Status::exited || r.exit_code != c.expected_exit) {
        report.failures.push_back({where, shown + ": expected exit " + std::to_string(c.expected_exit) + ", got " +
                                              describe(r) + ":\n" + tail(r.output)});
        continue;
      }
      if (c.output) {
        if (!c.output->not_compared.empty()) {
          report.not_compared.push_back(where + ": " + c.output->not_compared);
        } else {
          compare(*c.output, r.output, where + " " + shown, report);
        }
      }
    }
    if (!block.output) return;
    const ShownOutput& shown = *block.output;
    const std::string where = shown.file + ":" + std::to_string(shown.line);
    if (!shown.not_compared.empty()) {
      report.not_compared.push_back(where + ": " + shown.not_compared);
    } else if (!all_ran) {
      report.not_compared.push_back(where + ": a command of its block was skipped or not run");
    } else {
      compare(shown, block_output, block.file + ":" + std::to_string(block.line), report);
    }
  }

  fs::path source_;
  fs::path cli_;
  fs::path cache_;
  fs::path work_;
  std::vector<std::string> env_;
  mutable std::atomic<unsigned> counter_{0};
  std::vector<std::vector<std::string>> skips_;  ///< skip_reasons() of each block of the run
  std::thread cleanup_;                          ///< removes the last run's folders
  std::mutex mutex_;
  std::map<std::string, std::shared_future<Outcome>> shared_;
};

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The pages whose commands are checked, found now: a page added to docs/ is in.
std::vector<fs::path> documented_pages(const fs::path& root) {
  std::vector<fs::path> pages;
  for (const char* page : {"README.md", "grading/README.md", "harness/sim/README.md"}) {
    if (fs::exists(root / page)) pages.emplace_back(page);
  }
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator(root / "exercises")) {
    if (fs::exists(e.path() / "README.md")) found.push_back(fs::relative(e.path() / "README.md", root));
  }
  if (fs::exists(root / "docs")) {
    for (const auto& e : fs::recursive_directory_iterator(root / "docs")) {
      if (e.is_regular_file() && e.path().extension() == ".md") found.push_back(fs::relative(e.path(), root));
    }
  }
  std::sort(found.begin(), found.end());
  pages.insert(pages.end(), found.begin(), found.end());
  return pages;
}

unsigned jobs() {
  if (const char* j = std::getenv("CUDALAB_DOCS_JOBS"); j != nullptr && std::atoi(j) > 0) return std::atoi(j);
  return std::clamp(std::thread::hardware_concurrency(), 2u, 4u);
}

/// The scratch folder of a test: in the build folder, at the same path on every run, so that the
/// compile cache (whose keys hold each kernel's path) serves the next run too.
fs::path scratch_for(const std::string& name) { return fs::path(CUDALAB_DOCS_SCRATCH_DIR) / name; }

Runner runner_for(const std::string& name) {
  return Runner(CUDALAB_SOURCE_DIR, CUDALAB_CLI, CUDALAB_DOCS_CACHE_DIR, scratch_for(name));
}

Scan scan_text(const std::string& text) { return scan_markdown("page.md", text); }

// ---- The pages ----------------------------------------------------------------------------------

TEST(DocsCommands, EveryDocumentedCommandRunsAsShown) {
  const fs::path root = CUDALAB_SOURCE_DIR;
  if (!fs::exists(root / "solutions")) {
    GTEST_SKIP() << "the students' distribution: no solutions/, and exercises/ holds a student's own work, so "
                    "the pages' exit codes (the skeleton fails its check) do not hold";
  }
  if (nvidia_gpu_visible()) GTEST_SKIP() << kWithAGpu;
  std::vector<Block> blocks;
  std::size_t pages = 0;
  for (const auto& page : documented_pages(root)) {
    Scan scan = scan_markdown(page.string(), read_text(root / page));
    for (const auto& e : scan.errors) ADD_FAILURE() << e;
    pages += scan.blocks.empty() ? 0 : 1;
    for (auto& b : scan.blocks) blocks.push_back(std::move(b));
  }
  Runner runner = runner_for("pages");
  const Report report = runner.run(blocks, jobs());

  std::cout << "docs check: " << report.commands << " commands in " << blocks.size() << " blocks of " << pages
            << " pages, " << jobs() << " at once, " << std::fixed << std::setprecision(1) << report.seconds << " s\n";
  std::cout << "  run: " << report.run << " (" << report.shared << " of them the result of an identical command "
            << "elsewhere; " << report.gpu_refusals << " stopped as they must without a GPU)\n";
  std::cout << "  skipped: " << report.skipped.size() << "\n";
  for (const auto& s : report.skipped) std::cout << "    " << s << "\n";
  std::cout << "  outputs compared: " << report.compared.size() << "\n";
  for (const auto& s : report.compared) std::cout << "    " << s << "\n";
  std::cout << "  outputs shown but not compared: " << report.not_compared.size() << "\n";
  for (const auto& s : report.not_compared) std::cout << "    " << s << "\n";
  std::cout << "  slowest:\n";
  for (const auto& [seconds, what] : report.slowest) std::cout << "    " << seconds << " s " << what << "\n";
  std::cout << "  failed: " << report.failures.size() << std::endl;
  RecordProperty("commands_run", static_cast<int>(report.run));
  RecordProperty("commands_skipped", static_cast<int>(report.skipped.size()));
  RecordProperty("outputs_compared", static_cast<int>(report.compared.size()));

  for (const auto& f : report.failures) ADD_FAILURE() << f.where << ": " << f.what;
  EXPECT_GT(report.run, 0u) << "no command was run: did the pages move?";
  // The scratch folders stay until the next run (to look at after a failure): removing them took
  // from one second to a minute, depending on the disk.
  if (HasFailure()) std::cout << "the commands ran in " << scratch_for("pages").string() << "/block-N\n";
}

// ---- The check itself ---------------------------------------------------------------------------

TEST(DocsScan, CommandsWithCommentsContinuationsAndQuotes) {
  const Scan s = scan_text(
      "Text.\n"
      "```sh\n"
      "./cudalab list          # the course path\n"
      "# a comment alone\n"
      "\n"
      "sqlite3 db \\\n"
      "  \"SELECT a # not a comment\n"
      "   FROM t\"\n"
      "echo '#' && echo \"#x\" # tail\n"
      "make \\\n"
      "  all &&\n"
      "  echo done\n"
      "```\n"
      "```cpp\nint x;  // not a command\n```\n");
  ASSERT_TRUE(s.errors.empty()) << s.errors[0];
  ASSERT_EQ(s.blocks.size(), 1u);
  const auto& c = s.blocks[0].commands;
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].script, "./cudalab list");
  EXPECT_EQ(c[0].line, 3);
  EXPECT_EQ(c[1].script, "sqlite3 db \\\n  \"SELECT a # not a comment\n   FROM t\"");
  EXPECT_EQ(c[1].line, 6);
  EXPECT_EQ(one_line(c[1].script), "sqlite3 db \"SELECT a # not a comment FROM t\"");
  EXPECT_EQ(c[2].script, "echo '#' && echo \"#x\"");
  EXPECT_EQ(one_line(c[3].script), "make all && echo done");
  EXPECT_EQ(c[0].expected_exit, 0);
}

TEST(DocsScan, PromptsSeparateCommandsFromTheirOutput) {
  const Scan s = scan_text(
      "```console\n"
      "$ ./cudalab next\n"
      "next: 01_increment\n"
      "$ ./cudalab --version\n"
      "cudalab 0.1.0\n"
      "```\n");
  ASSERT_TRUE(s.errors.empty()) << s.errors[0];
  ASSERT_EQ(s.blocks.size(), 1u);
  const auto& c = s.blocks[0].commands;
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].script, "./cudalab next");
  ASSERT_TRUE(c[0].output);
  ASSERT_EQ(c[0].output->lines.size(), 1u);
  EXPECT_EQ(c[0].output->lines[0].text, "next: 01_increment");
  EXPECT_EQ(c[0].output->lines[0].number, 3);
  EXPECT_EQ(c[1].script, "./cudalab --version");
}

TEST(DocsScan, MarkersSetExitCodesSkipsSetupAndTheOutput) {
  const Scan s = scan_text(
      "Check it:\n"
      "\n"
      "<!-- docs-check: exit 1 (the skeleton fails) -->\n"
      "<!-- docs-check: exit 0 for `--solution` -->\n"
      "<!-- docs-check: skip for `--tf32` (needs tensor cores) -->\n"
      "<!-- docs-check: needs a GPU for `bench` -->\n"
      "<!-- docs-check: setup: mkdir -p path/to && cp a b -->\n"
      "```sh\n"
      "./cudalab check 1\n"
      "./cudalab check 1 --solution\n"
      "./cudalab check 3 --tf32\n"
      "./cudalab bench 1\n"
      "```\n"
      "\n"
      "```\n"
      "exercise  result\n"
      "```\n"
      "Prose.\n"
      "<!-- docs-check: output of `./cudalab check 2` -->\n"
      "<!-- docs-check: exit 1 -->\n"
      "```text\n"
      "02_vector_add  not implemented\n"
      "```\n");
  ASSERT_TRUE(s.errors.empty()) << s.errors[0];
  ASSERT_EQ(s.blocks.size(), 2u);
  const Block& b = s.blocks[0];
  EXPECT_EQ(b.setup, std::vector<std::string>{"mkdir -p path/to && cp a b"});
  ASSERT_EQ(b.commands.size(), 4u);
  EXPECT_EQ(b.commands[0].expected_exit, 1);
  EXPECT_EQ(b.commands[1].expected_exit, 0);
  EXPECT_EQ(b.commands[2].skip, "needs tensor cores");
  EXPECT_TRUE(b.commands[3].needs_gpu);
  EXPECT_FALSE(b.commands[0].needs_gpu);
  ASSERT_TRUE(b.output);
  EXPECT_EQ(b.output->line, 16);
  EXPECT_EQ(b.output->lines.size(), 1u);
  const Block& of = s.blocks[1];
  ASSERT_EQ(of.commands.size(), 1u);
  EXPECT_EQ(of.commands[0].script, "./cudalab check 2");
  EXPECT_EQ(of.commands[0].expected_exit, 1);
  ASSERT_TRUE(of.output);
  EXPECT_EQ(of.output->lines[0].text, "02_vector_add  not implemented");
}

TEST(DocsScan, ProseThatNamesTheConventionIsNoMarker) {
  const Scan s = scan_text("Write `<!-- docs-check: skip (why) -->` above a block.\n```sh\nls\n```\n");
  EXPECT_TRUE(s.errors.empty()) << s.errors[0];
  ASSERT_EQ(s.blocks.size(), 1u);
  EXPECT_EQ(s.blocks[0].commands[0].skip, "");
}

TEST(DocsScan, AnOutputAfterProseIsNotAttachedToTheCommandsBeforeIt) {
  const Scan s = scan_text("```sh\n./cudalab list\n```\nThe output:\n```\nexercise\n```\n");
  ASSERT_EQ(s.blocks.size(), 1u);
  EXPECT_FALSE(s.blocks[0].output);
}

TEST(DocsScan, AMarkerThatCannotBeReadIsAnError) {
  for (const std::string page : {
           "<!-- docs-check: skip -->\n```sh\nls\n```\n",                                // no reason
           "<!-- docs-check: exit one -->\n```sh\nls\n```\n",                            // not a number
           "<!-- docs-check: exit 1 for `nothing here` -->\n```sh\nls\n```\n",           // matches nothing
           "<!-- docs-check exit 1 -->\n```sh\nls\n```\n",                               // no colon
           "<!-- docs-check: exit 1 -->\nProse.\n```sh\nls\n```\n",                      // not above the block
           "<!-- docs-check: exit 1 -->\n```cpp\nint x;\n```\n",                         // not a command block
           "<!-- docs-check: output not compared -->\n```sh\nls\n```\n```\nx\n```\n",    // on the commands
           "<!-- docs-check: exit 1 --> <!-- docs-check: exit 2 -->\n```sh\nls\n```\n",  // two a line
       }) {
    const Scan s = scan_text(page);
    EXPECT_FALSE(s.errors.empty()) << "accepted:\n" << page;
  }
}

TEST(DocsOutput, ShapesIgnoreNumbersTimingsAndSpacing) {
  EXPECT_EQ(normalise("03_matmul        wrong output              11/14    123.4ms"), "03_matmul wrong output #/# #s");
  EXPECT_EQ(normalise("03_matmul passed 16/16 8.4 ms"), "03_matmul passed #/# #s");
  // Random inputs give either sign: the shape is the same (README's wrong matmul, 2026-11-27).
  EXPECT_EQ(normalise("C[0][0]: expected -4.182, got 3.911"), normalise("C[0][0]: expected 4.182, got -3.911"));
  EXPECT_EQ(normalise("C[0][0]: expected -4.182, got 3.911"), "C[#][#]: expected #, got #");
  EXPECT_EQ(normalise("deb12u1 x86-64 1-2"), "deb#u# x#-# #-#");
  EXPECT_EQ(normalise("seed 516062142 (repeat with --seed 516062142)"), "seed # (repeat with --seed #)");
  EXPECT_EQ(normalise("\x1b[32mpassed\x1b[0m at M=17 N=17, sm_90"), "passed at M=# N=#, sm_90");
  EXPECT_EQ(normalise("graded 2026-11-25T17:15:25Z with cudalab 0.1.0"), "graded #-#-#T#:#:#Z with cudalab #");
  EXPECT_EQ(normalise("c++ (Debian 12.2.0-14+deb12u1) 12.2.0"), "c++ (Debian #-#+deb#u#) #");
  EXPECT_EQ(normalise("solutions/03_matmul/step3_register_blocking.cu"),
            "solutions/03_matmul/step3_register_blocking.cu");
  EXPECT_EQ(normalise("   "), "");
}

TEST(DocsOutput, ShownLinesMustAppearInOrderWrappedOrCutShort) {
  const std::string output =
      "backend: sim\n"
      "\n"
      "exercise         result                  checks solve time\n"
      "03_matmul        wrong output              6/16    103.9ms\n"
      "  ✗ wrong output at M=1 N=1 K=1: 1 of 1 element of C wrong, and a long explanation that goes on\n"
      "  hint: fails exactly when K is not a multiple of 16: does the code handle the last tile?\n";
  const auto lines = [](std::initializer_list<const char*> texts) {
    std::vector<Line> out;
    int n = 10;
    for (const char* t : texts) out.push_back({n++, t});
    return out;
  };
  // Wrapped over two lines, and a hint cut short with …
  Comparison c = match_output(lines({"exercise  result  checks solve time", "03_matmul  wrong output  11/14  1.2ms", "",
                                     "  ✗ wrong output at M=17 N=17 K=17: 289 of 289 element of C wrong, and a long",
                                     "    explanation that goes on", "  hint: fails exactly when K is not …"}),
                              output);
  EXPECT_EQ(c.mismatch, "");
  EXPECT_EQ(c.compared, 5u);
  // Another result, a line out of order, a half line without …, a wrap that adds words: each fails.
  for (const auto& bad : {lines({"03_matmul  passed  16/16  1.2ms"}), lines({"03_matmul  wrong output", "exercise"}),
                          lines({"exercise  result  checks solve time", "03_matmul  wrong output"}),
                          lines({"  ✗ wrong output at M=1 N=1 K=1: 1 of 1 element of C wrong, and a long",
                                 "    explanation that does not go on"})}) {
    c = match_output(bad, output);
    EXPECT_NE(c.mismatch, "") << "accepted " << bad[0].text;
  }
  c = match_output(lines({"03_matmul  passed"}), output);
  EXPECT_NE(c.mismatch.find("line 10 is not in the output"), std::string::npos) << c.mismatch;
}

TEST(DocsCommands, ProgramsAndSkips) {
  EXPECT_EQ(programs_of("cd ../x && git init && A=1 git add -A; (umask 077 && od -An | tr -d ' ' > f)"),
            (std::vector<std::string>{"cd", "git", "git", "umask", "od", "tr"}));
  EXPECT_EQ(programs_of("for k in 0 1; do cudalab grade c --shard $k/2; done"),
            (std::vector<std::string>{"for", "cudalab", "done"}));
  Command c;
  c.script = "scripts/test.sh";
  EXPECT_NE(cannot_run(c).find("never run by the suite"), std::string::npos);
  c.script = "./cudalab list && no-such-program-anywhere --x";
  EXPECT_EQ(cannot_run(c), "no-such-program-anywhere is not installed here");
  c.script = "./cudalab list";
  EXPECT_EQ(cannot_run(c), "");
  // What follows a command whose program is missing depends on it: skipped too.
  const Scan s =
      scan_text("```sh\nno-such-program-anywhere out\n./cudalab grade out\n```\n```sh\n./cudalab list\n```\n");
  ASSERT_EQ(s.blocks.size(), 2u);
  const auto why = skip_reasons(s.blocks[0]);
  ASSERT_EQ(why.size(), 2u);
  EXPECT_EQ(
      why[1],
      "it comes after `no-such-program-anywhere out`, not run here (no-such-program-anywhere is not installed here)");
  EXPECT_EQ(skip_reasons(s.blocks[1]), std::vector<std::string>{""});
}

// The check fails where a page is wrong: a flag that does not exist, an exit code the page gets
// wrong, an output of another shape, a GPU command that is really a usage error, a setup that
// fails; and what it skips it reports as skipped.
TEST(DocsCommands, ABrokenPageFails) {
  if (!fs::exists(fs::path(CUDALAB_SOURCE_DIR) / "solutions")) GTEST_SKIP() << "the students' distribution";
  if (nvidia_gpu_visible()) GTEST_SKIP() << kWithAGpu;
  const Scan s = scan_markdown("broken.md",
                               "<!-- docs-check: exit 1 -->\n"
                               "```sh\n"
                               "./cudalab check 01_increment --no-such-flag   # a flag that does not exist\n"
                               "./cudalab check 01_increment                   # the page is right: exit 1\n"
                               "```\n"
                               "```sh\n"
                               "./cudalab check 01_increment                   # the page says 0: wrong\n"
                               "./cudalab list\n"
                               "```\n"
                               "```\n"
                               "exercise         verdict\n"
                               "```\n"
                               "<!-- docs-check: needs a GPU -->\n"
                               "```sh\n"
                               "./cudalab bench 01_increment --no-such-flag\n"
                               "./cudalab bench 01_increment\n"
                               "```\n"
                               "<!-- docs-check: setup: false -->\n"
                               "```sh\n"
                               "./cudalab --help\n"
                               "```\n"
                               "<!-- docs-check: skip (a reason) -->\n"
                               "```sh\n"
                               "./cudalab --help\n"
                               "```\n"
                               "```console\n"
                               "$ ./cudalab --version\n"
                               "cudalab 9.9.9\n"
                               "```\n");
  ASSERT_TRUE(s.errors.empty()) << s.errors[0];
  Runner runner = runner_for("broken");
  const Report r = runner.run(s.blocks, jobs());
  std::vector<std::string> failed;
  for (const auto& f : r.failures) failed.push_back(f.where + " " + f.what.substr(0, f.what.find('\n')));
  const auto has = [&](const std::string& where, const std::string& what) {
    return std::any_of(failed.begin(), failed.end(),
                       [&](const std::string& f) { return f.starts_with(where) && f.find(what) != std::string::npos; });
  };
  std::string all;
  for (const auto& f : failed) all += f + "\n";
  EXPECT_TRUE(has("broken.md:3", "expected exit 1, got exit 2")) << all;
  EXPECT_TRUE(has("broken.md:7", "expected exit 0, got exit 1")) << all;
  EXPECT_TRUE(has("broken.md:11-11", "not the shape of the output")) << all;
  EXPECT_TRUE(has("broken.md:15", "needs a GPU")) << all;
  EXPECT_TRUE(has("broken.md:20", "setup `false` failed")) << all;
  EXPECT_EQ(failed.size(), 5u) << all;
  EXPECT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.compared.size(), 1u) << "the console block's output";
  EXPECT_EQ(r.gpu_refusals, 1u);
  EXPECT_EQ(r.shared, 1u) << "`./cudalab check 01_increment` ran twice";
  fs::remove_all(scratch_for("broken"));
}

// The second block begins with the first's commands: it goes on from the first's end (the file the
// first wrote is there) instead of running them again.
TEST(DocsCommands, ABlockThatBeginsWithAnotherGoesOnFromItsEnd) {
  const Scan s = scan_markdown("continued.md",
                               "```sh\n"
                               "mkdir -p out && echo once >> out/log\n"
                               "```\n"
                               "```sh\n"
                               "mkdir -p out && echo once >> out/log\n"
                               "test \"$(cat out/log)\" = once\n"
                               "```\n");
  ASSERT_TRUE(s.errors.empty()) << s.errors[0];
  Runner runner = runner_for("continued");
  const Report r = runner.run(s.blocks, jobs());
  for (const auto& f : r.failures) ADD_FAILURE() << f.where << ": " << f.what;
  EXPECT_EQ(r.run, 3u);
  EXPECT_EQ(r.shared, 1u);
  fs::remove_all(scratch_for("continued"));
}

}  // namespace
}  // namespace cudalab
