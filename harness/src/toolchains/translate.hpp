// The simulator's source pre-pass: rewrites the two CUDA constructs the preprocessor cannot
// express, and nothing else, keeping every line where it was.
//
//   kernel<<<grid, block[, shmem[, stream]]>>>(args)
//     -> ::cudalab_sim::launch("kernel", "args", address, [&](auto&... a) { kernel(a...); },
//                              ::cudalab_sim::config(grid, block[, shmem[, stream]]), args)
//        ("args" is the argument list as written, for the runtime's messages)
//   extern __shared__ T name[];          (in a function)
//     -> T* const name = static_cast<T*>(::cudalab_sim::dynamic_shared());
//   extern __shared__ T name[];          (at namespace scope)
//     -> removed; later uses of `name` become the same pointer expression
//   __shared__ T a[N], b;                (in a function)
//     -> __shared__ T cudalab_sim_shared_a[N], cudalab_sim_shared_b;
//        CUDALAB_SIM_SHARED(a, cudalab_sim_shared_a); ... (declares `a` as a reference to its
//        storage: poisoned per block, sized for the launch records, and checked under --sanitize)
//   __shared__ T a[N];                   (at namespace scope)
//     -> unchanged, followed by CUDALAB_SIM_NAMESPACE_SHARED(a); (poisoned before every block)
//   __managed__ T m;                     (at namespace scope)
//     -> unchanged, followed by CUDALAB_SIM_MANAGED_VARIABLE(m); (kernels may take its address)
//
// A launch in a `#define` body is rewritten in the body, on its own continued lines; in a
// function-like macro the kernel's and the arguments' text stringize the parameters (`#k`), so
// messages name what the macro was given. The launch must be whole in one body: `<<<` formed by
// token pasting is not rewritten (the compiler rejects it), and a configuration macro used as
// `k CONFIG(args)` is a translator error. Declarations in macro bodies are not marked.
//
// The output starts with `#include <cudalab_sim/prelude.hpp>` (the .cu file only: its headers
// come after it) and `#line 1 "<filename>"`, so the compiler's messages name the student's file
// and lines. The sim toolchain translates the quoted headers a .cu file includes too
// (translate_module), each under its own name. Launches are found by a tokenizer that knows
// comments, string/char/raw-string literals, preprocessor lines and template brackets.
//
// It also rejects what nvcc rejects and g++ cannot know about (execution spaces), with nvcc's
// words, at the student's line and column:
//   a launch `f<<<...>>>` of a function that is not __global__ ("a host function call cannot be
//   configured"), a __global__ function called without <<<...>>> ("... must be configured"), a
//   host function called from __global__/__device__ code, a __device__ function called from host
//   code, and a namespace-scope host variable used in device code ("identifier "x" is undefined in
//   device code"). Only names the module itself declares, unambiguously, are judged: anything it
//   does not define (built-ins, math, std, members, lambdas, macros) or defines more than one way
//   (an overload callable from device code, a local of the same name) is left alone.
// `map_diagnostics` then maps the compiler's columns on rewritten lines back to the student's.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace cudalab::sim {

/// What one file declares that the rewriting of the other files of its module depends on.
struct Declarations {
  std::set<std::string> template_kernels;  ///< kernels declared as templates (no address when deduced)
  /// Namespace-scope `extern __shared__` arrays: name -> the expression their uses become.
  std::map<std::string, std::string> dynamic_shared;
  /// Unqualified names the file declares, for the execution-space checks: a bit per kind of
  /// declaration (host/device/__host__ __device__/__global__ function, host/device variable,
  /// template, macro, anything else), merged over the module.
  std::map<std::string, unsigned> names;
};

/// How to translate one file.
struct TranslateOptions {
  bool prelude = true;  ///< start with the prelude's #include: the .cu file, not its headers
  Declarations known;   ///< what the module's other files declare
  /// Rejects what nvcc rejects about execution spaces (calls, launches, host variables): off
  /// only while the module's other files are not yet in `known`.
  bool check_spaces = true;
};

/// A run of one rewritten line of a translation: `length` bytes from byte column `column`
/// (1-based) were copied from byte column `source_column` of the same line of the original, or
/// written by the translator when `source_column` is 0: then `anchor` is the original's column
/// where the rewritten text began (a launch's kernel name), 0 if that was on another line.
struct ColumnPiece {
  int column = 0;
  int length = 0;
  int source_column = 0;
  int anchor = 0;
};

/// Result of translating one file.
struct Translation {
  bool ok = false;
  std::string text;       ///< the translated source, when ok
  std::string error;      ///< "file:line:col: error: what", when not ok
  Declarations declared;  ///< this file's declarations and the known ones, when ok
  /// The lines the translator changed (line numbers are the original's: lines never move), each
  /// as its pieces in order; lines not here are the original's byte for byte.
  std::map<int, std::vector<ColumnPiece>> rewritten;
};

/// Translates CUDA C++ `source`, read from `filename` (used in #line and messages).
Translation translate(std::string_view source, const std::string& filename, const TranslateOptions& options = {});

/// One file of a module: its name (for #line and messages) and content.
struct SourceFile {
  std::string name;
  std::string text;
};

/// Translates a .cu file (`files[0]`, with the prelude) and the local headers it includes (the
/// rest, without), each knowing what the others declare: a template kernel defined in a header
/// and launched in the .cu file, an `extern __shared__` array declared in one and used in
/// another. Results in the order of `files`.
std::vector<Translation> translate_module(const std::vector<SourceFile>& files);

/// The compiler's messages about a translated module, as the student wrote it: on lines the
/// translator rewrote, a `file:line:col:` column is mapped back to the original's column (one in
/// the translator's own text to where the rewritten construct starts, or dropped when that is on
/// another line), with its source excerpt and caret
/// redrawn from the original line; a "did you mean 'x'?" naming something the student's files
/// do not contain (a libc name) is dropped, with its fix-it line and its "declared here" note.
/// `files` and `translations` are translate_module's input and output, in the same order.
std::string map_diagnostics(std::string_view output, const std::vector<SourceFile>& files,
                            const std::vector<Translation>& translations);

}  // namespace cudalab::sim
