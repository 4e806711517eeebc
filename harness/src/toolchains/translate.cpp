// The simulator's pre-pass (see translate.hpp): a C++ tokenizer, a light scope tracker, and a
// list of non-overlapping edits applied to the original text.
#include "translate.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace cudalab::sim {
namespace {

enum class Kind { ident, number, string, chr, punct, directive };

struct Token {
  Kind kind;
  std::size_t begin;
  std::size_t end;
  int line;
  int col;
};

struct TranslateError : std::runtime_error {
  TranslateError(int l, int c, const std::string& what) : std::runtime_error(what), line(l), col(c) {}
  int line;
  int col;
};

// What a name means to the execution-space checks (Declarations::names): one bit per kind of
// declaration the module makes of it. A check judges a name only when its bits say exactly one
// thing; an overload callable from the other side, a type or macro of the same name, anything
// unsure, and the name is left to the compiler.
constexpr unsigned kHostFn = 1;        // a function without a space, or __host__ only
constexpr unsigned kDeviceFn = 2;      // __device__ only
constexpr unsigned kHostDeviceFn = 4;  // __host__ __device__, or constexpr (nvcc may relax it)
constexpr unsigned kGlobalFn = 8;
constexpr unsigned kHostVar = 16;    // a namespace-scope variable in host memory, not const
constexpr unsigned kDeviceVar = 32;  // __device__, __constant__, __managed__ or __shared__
constexpr unsigned kTemplate = 64;   // a function template: calls may name template arguments
constexpr unsigned kMacro = 128;     // a #define: anything at all
constexpr unsigned kMacroFn = 256;   // a function-like #define: its arguments may vanish
constexpr unsigned kOther = 512;     // a type, member, enumerator, or a declaration not understood

/// The bits of `bits` that say what the name is (not whether it is a template).
unsigned meaning(unsigned bits) { return bits & ~kTemplate; }

bool keyword(std::string_view w) {
  static const std::set<std::string_view> kWords = {"alignas",
                                                    "alignof",
                                                    "and",
                                                    "asm",
                                                    "auto",
                                                    "bool",
                                                    "break",
                                                    "case",
                                                    "catch",
                                                    "char",
                                                    "char8_t",
                                                    "char16_t",
                                                    "char32_t",
                                                    "class",
                                                    "concept",
                                                    "const",
                                                    "consteval",
                                                    "constexpr",
                                                    "constinit",
                                                    "const_cast",
                                                    "continue",
                                                    "co_await",
                                                    "co_return",
                                                    "co_yield",
                                                    "decltype",
                                                    "default",
                                                    "delete",
                                                    "do",
                                                    "double",
                                                    "dynamic_cast",
                                                    "else",
                                                    "enum",
                                                    "explicit",
                                                    "export",
                                                    "extern",
                                                    "false",
                                                    "final",
                                                    "float",
                                                    "for",
                                                    "friend",
                                                    "goto",
                                                    "if",
                                                    "inline",
                                                    "int",
                                                    "long",
                                                    "mutable",
                                                    "namespace",
                                                    "new",
                                                    "noexcept",
                                                    "not",
                                                    "nullptr",
                                                    "operator",
                                                    "or",
                                                    "override",
                                                    "private",
                                                    "protected",
                                                    "public",
                                                    "register",
                                                    "reinterpret_cast",
                                                    "requires",
                                                    "restrict",
                                                    "return",
                                                    "short",
                                                    "signed",
                                                    "sizeof",
                                                    "static",
                                                    "static_assert",
                                                    "static_cast",
                                                    "struct",
                                                    "switch",
                                                    "template",
                                                    "this",
                                                    "thread_local",
                                                    "throw",
                                                    "true",
                                                    "try",
                                                    "typedef",
                                                    "typeid",
                                                    "typename",
                                                    "union",
                                                    "unsigned",
                                                    "using",
                                                    "virtual",
                                                    "void",
                                                    "volatile",
                                                    "wchar_t",
                                                    "while",
                                                    "xor",
                                                    "typeof"};
  return kWords.count(w) != 0;
}

/// Keywords and reserved names (`__syncthreads`, `__launch_bounds__`): never a student's function.
bool reserved(std::string_view w) { return keyword(w) || w.rfind("__", 0) == 0; }

/// Keywords after which a name is an operand (`return n`), not a declarator (`int n`).
bool expression_keyword(std::string_view w) {
  static const std::set<std::string_view> kWords = {
      "return", "case",   "else",    "do",       "throw",    "co_return", "co_yield", "co_await", "new",
      "delete", "sizeof", "goto",    "not",      "and",      "or",        "xor",      "bitand",   "bitor",
      "compl",  "typeid", "alignof", "decltype", "noexcept", "if",        "while",    "for",      "switch"};
  return kWords.count(w) != 0;
}

/// Operators whose operand is not evaluated: a host name inside is no use of it.
bool unevaluated(std::string_view w) {
  return w == "sizeof" || w == "alignof" || w == "decltype" || w == "typeid" || w == "noexcept" ||
         w == "static_assert" || w == "__typeof__" || w == "typeof" || w == "__alignof__" || w == "_Alignof" ||
         w == "requires";
}

/// Looks like a macro from a header (DEVICE_INLINE, CHECK): no lowercase letter, two characters or more.
bool macro_like(std::string_view w) {
  if (w.size() < 2) return false;
  bool letter = false;
  for (char c : w) {
    if (c >= 'a' && c <= 'z') return false;
    letter |= c >= 'A' && c <= 'Z';
  }
  return letter;
}

/// Names CUDA's headers declare for device code too (math, min/max): a host function of the same
/// name is one more overload, not the only one.
bool cuda_overloaded(std::string_view w) {
  static const std::set<std::string_view> kNames = {
      "min",    "max",       "abs",     "fabs",   "sqrt",  "rsqrt",    "cbrt",   "rcbrt",  "exp",     "exp2",
      "exp10",  "expm1",     "log",     "log2",   "log10", "log1p",    "pow",    "sin",    "cos",     "tan",
      "asin",   "acos",      "atan",    "atan2",  "sinh",  "cosh",     "tanh",   "asinh",  "acosh",   "atanh",
      "floor",  "ceil",      "round",   "trunc",  "rint",  "lrint",    "llrint", "lround", "llround", "nearbyint",
      "fmod",   "remainder", "fmin",    "fmax",   "fma",   "fdim",     "hypot",  "erf",    "erfc",    "tgamma",
      "lgamma", "copysign",  "signbit", "isnan",  "isinf", "isfinite", "ldexp",  "frexp",  "modf",    "scalbn",
      "sincos", "sinpi",     "cospi",   "norm",   "rnorm", "umin",     "umax",   "llmin",  "llmax",   "ullmin",
      "ullmax", "saturate",  "printf",  "malloc", "free",  "memcpy",   "memset", "assert"};
  if (kNames.count(w) != 0) return true;
  return w.size() > 1 && w.back() == 'f' && kNames.count(w.substr(0, w.size() - 1)) != 0;
}

bool ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }
bool digit(char c) { return c >= '0' && c <= '9'; }

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}
  /// Lexes `s` from `begin` (at `line`:`col`): a directive's tokens, with positions in the file.
  Lexer(std::string_view s, std::size_t begin, int line, int col)
      : s_(s), i_(begin), line_(line), col_(col), line_start_(false) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    bool line_start = line_start_;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\n') {
        advance();
        line_start = true;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        advance();
        continue;
      }
      if (c == '\\' && peek(1) == '\n') {  // line splice
        advance();
        advance();
        continue;
      }
      if (c == '/' && peek(1) == '/') {
        skip_line_comment();
        continue;
      }
      if (c == '/' && peek(1) == '*') {
        skip_block_comment();
        continue;
      }
      const std::size_t b = i_;
      const int l = line_;
      const int col = col_;
      if (c == '#' && line_start) {
        skip_directive();
        out.push_back({Kind::directive, b, i_, l, col});
        continue;
      }
      line_start = false;
      Kind k;
      if (ident_start(c)) {
        while (i_ < s_.size() && ident_char(s_[i_])) advance();
        const std::string_view id = s_.substr(b, i_ - b);
        if (i_ < s_.size() && (s_[i_] == '"' || s_[i_] == '\'') && encoding_prefix(id)) {
          if (s_[i_] == '"' && id.back() == 'R') {
            raw_string(l, col);
          } else {
            quoted(s_[i_], l, col);
          }
          k = s_[b + id.size()] == '\'' ? Kind::chr : Kind::string;
        } else {
          k = Kind::ident;
        }
      } else if (digit(c) || (c == '.' && digit(peek(1)))) {
        number();
        k = Kind::number;
      } else if (c == '"' || c == '\'') {
        quoted(c, l, col);
        k = c == '"' ? Kind::string : Kind::chr;
      } else {
        punct();
        k = Kind::punct;
      }
      out.push_back({k, b, i_, l, col});
    }
    return out;
  }

 private:
  char peek(std::size_t n) const { return i_ + n < s_.size() ? s_[i_ + n] : '\0'; }
  void advance() {
    if (s_[i_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++i_;
  }
  static bool encoding_prefix(std::string_view id) {
    return id == "L" || id == "u" || id == "U" || id == "u8" || id == "R" || id == "LR" || id == "uR" || id == "UR" ||
           id == "u8R";
  }
  void skip_line_comment() {
    while (i_ < s_.size() && s_[i_] != '\n') {
      if (s_[i_] == '\\' && peek(1) == '\n') advance();
      advance();
    }
  }
  void skip_block_comment() {
    const int l = line_, c = col_;
    advance();
    advance();
    while (i_ < s_.size() && !(s_[i_] == '*' && peek(1) == '/')) advance();
    if (i_ >= s_.size()) throw TranslateError(l, c, "unterminated comment");
    advance();
    advance();
  }
  void skip_directive() {
    while (i_ < s_.size() && s_[i_] != '\n') {
      if (s_[i_] == '\\' && peek(1) == '\n') {
        advance();
        advance();
        continue;
      }
      if (s_[i_] == '/' && peek(1) == '*') {
        skip_block_comment();
        continue;
      }
      if (s_[i_] == '/' && peek(1) == '/') {
        skip_line_comment();
        break;
      }
      if (s_[i_] == '"' || s_[i_] == '\'') {
        // Quotes in directives (#include "x", #error don't) may be unbalanced: stop at the line end.
        const char q = s_[i_];
        advance();
        while (i_ < s_.size() && s_[i_] != q && s_[i_] != '\n') {
          if (s_[i_] == '\\' && i_ + 1 < s_.size()) advance();
          advance();
        }
        if (i_ < s_.size() && s_[i_] == q) advance();
        continue;
      }
      advance();
    }
  }
  void quoted(char q, int l, int c) {
    advance();
    while (i_ < s_.size() && s_[i_] != q) {
      if (s_[i_] == '\n') {
        throw TranslateError(l, c, q == '"' ? "missing terminating \" character" : "missing terminating ' character");
      }
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) advance();
      advance();
    }
    if (i_ >= s_.size()) throw TranslateError(l, c, "unterminated literal");
    advance();
  }
  void raw_string(int l, int c) {
    advance();  // "
    const std::size_t d = i_;
    while (i_ < s_.size() && s_[i_] != '(' && s_[i_] != '\n') advance();
    if (i_ >= s_.size() || s_[i_] != '(') throw TranslateError(l, c, "invalid raw string delimiter");
    const std::string close = ")" + std::string(s_.substr(d, i_ - d)) + "\"";
    const std::size_t e = s_.find(close, i_);
    if (e == std::string_view::npos) throw TranslateError(l, c, "unterminated raw string");
    while (i_ < e + close.size()) advance();
  }
  void number() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if ((c == 'e' || c == 'E' || c == 'p' || c == 'P') && (peek(1) == '+' || peek(1) == '-')) {
        advance();
        advance();
      } else if (c == '\'' && ident_char(peek(1))) {
        advance();
        advance();
      } else if (ident_char(c) || c == '.') {
        advance();
      } else {
        break;
      }
    }
  }
  void punct() {
    const char c = s_[i_];
    const char n = peek(1);
    if ((c == ':' && n == ':') || (c == '-' && n == '>')) {
      advance();
      advance();
    } else if (c == '.' && n == '.' && peek(2) == '.') {
      advance();
      advance();
      advance();
    } else {
      advance();  // everything else one character at a time: '<' and '>' above all
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
  int line_ = 1;
  int col_ = 1;
  bool line_start_ = true;  // a '#' here starts a directive (not inside one: stringizing)
};

enum class Scope { ns, cls, function, init };

struct Edit {
  std::size_t begin;
  std::size_t end;
  std::string text;
};

class Translator {
 public:
  Translator(std::string_view src, std::vector<Token> toks, const Declarations& known)
      : s_(src),
        t_(std::move(toks)),
        template_kernels_(known.template_kernels),
        substitutions_(known.dynamic_shared),
        names_(known.names) {}

  std::string run() {
    collect_template_kernels();
    collect_spaces();
    note_local_arrays();
    std::vector<Scope> scopes{Scope::ns};
    for (std::size_t i = 0; i < t_.size(); ++i) {
      const Token& tk = t_[i];
      if (tk.kind == Kind::directive) {
        define_body(i);
        continue;
      }
      if (tk.kind == Kind::punct) {
        const char c = s_[tk.begin];
        if (c == '{') {
          scopes.push_back(classify_brace(i, scopes.back()));
          continue;
        }
        if (c == '}') {
          if (scopes.size() > 1) scopes.pop_back();
          continue;
        }
        if (c == '<' && is_launch(i)) {
          i = launch(i);
          continue;
        }
        continue;
      }
      if (tk.kind != Kind::ident) continue;
      const std::string_view id = text(i);
      if (id == "__shared__") {
        i = shared_declaration(i, scopes.back());
        continue;
      }
      if (id == "__managed__" && scopes.back() == Scope::ns) {
        i = managed_declaration(i);
        continue;
      }
      if (id == "__constant__" && scopes.back() == Scope::ns) {
        constant_declaration(i);
        continue;
      }
      // Not a macro in the prelude: libstdc++ 13 writes __attribute__((__noinline__)) itself,
      // which such a macro would break. Only the student's own uses are rewritten.
      if (id == "__noinline__") {
        edits_.push_back({tk.begin, tk.end, "__attribute__((noinline))"});
        continue;
      }
      auto sub = substitutions_.find(std::string(id));
      if (sub != substitutions_.end() && !member_or_qualified(i)) {
        edits_.push_back({tk.begin, tk.end, sub->second});
      }
    }
    return apply();
  }

  /// What this file declared (and what it was told), for the other files of its module.
  Declarations declared() const { return {template_kernels_, substitutions_, names_}; }

  /// One call, launch or use that nvcc rejects: where, nvcc's words, and what to do.
  struct SpaceError {
    int line;
    int col;
    std::string what;
    std::string note;
  };

  /// The execution-space checks over the bodies `run` found, judged by the names the whole module
  /// declares (this file's and `known`'s), in the order of the file.
  using SpaceErrorList = std::vector<SpaceError>;
  SpaceErrorList check_spaces() const;

  /// The lines `run` rewrote, as pieces (see ColumnPiece).
  const std::map<int, std::vector<ColumnPiece>>& rewritten() const { return rewritten_; }

 private:
  std::string_view text(std::size_t i) const { return s_.substr(t_[i].begin, t_[i].end - t_[i].begin); }
  bool is(std::size_t i, std::string_view what) const { return i < t_.size() && text(i) == what; }
  bool punct(std::size_t i, char c) const {
    return i < t_.size() && t_[i].kind == Kind::punct && t_[i].end - t_[i].begin == 1 && s_[t_[i].begin] == c;
  }
  bool adjacent(std::size_t a, std::size_t b) const { return t_[a].end == t_[b].begin; }
  [[noreturn]] void error(std::size_t i, const std::string& what) const {
    const Token& tk = i < t_.size() ? t_[i] : t_.back();
    throw TranslateError(tk.line, tk.col,
                         macro_ ? what +
                                      " (a launch in a #define needs the kernel, <<<...>>> and (arguments) "
                                      "all in the macro's body)"
                                : what);
  }
  /// `n` line breaks for a replacement: in a macro body, continued lines (the body must go on).
  std::string line_breaks(int n) const {
    std::string r;
    for (int k = 0; k < n; ++k) r += macro_ ? " \\\n" : "\n";
    return r;
  }
  static int newlines(std::string_view v) { return static_cast<int>(std::count(v.begin(), v.end(), '\n')); }

  /// Tokens [a, b) as one line of text, spaced only where the source had space.
  std::string join(std::size_t a, std::size_t b) const {
    std::string r;
    for (std::size_t i = a; i < b; ++i) {
      if (i > a && !adjacent(i - 1, i)) r += ' ';
      r += text(i);
    }
    return r;
  }

  bool member_or_qualified(std::size_t i) const {
    if (i > 0 && (is(i - 1, ".") || is(i - 1, "->") || is(i - 1, "::"))) return true;
    return is(i + 1, "::");
  }

  /// Index of the first token of the statement that contains token `i`.
  std::size_t statement_start(std::size_t i) const {
    std::size_t j = i;
    while (j > 0) {
      const std::size_t p = j - 1;
      if (t_[p].kind == Kind::directive || punct(p, ';') || punct(p, '{') || punct(p, '}')) break;
      if (t_[p].kind == Kind::punct && s_[t_[p].begin] == ':' && t_[p].end - t_[p].begin == 1) {
        break;  // label or access specifier
      }
      j = p;
    }
    return j;
  }

  /// Index of the ';' ending the statement that contains `i` (outside brackets).
  std::size_t statement_end(std::size_t i) const {
    int depth = 0;
    for (std::size_t j = i; j < t_.size(); ++j) {
      if (t_[j].kind != Kind::punct) continue;
      const char c = s_[t_[j].begin];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
      if (depth < 0) break;
      if (c == ';' && depth == 0) return j;
    }
    error(i, "expected ';' after __shared__ declaration");
  }

  /// Skips `template < ... >` groups starting at `j`.
  std::size_t skip_template_heads(std::size_t j, std::size_t end) const {
    while (j < end && is(j, "template") && punct(j + 1, '<')) {
      int depth = 0;
      std::size_t k = j + 1;
      for (; k < end; ++k) {
        if (punct(k, '<')) ++depth;
        if (punct(k, '>') && --depth == 0) break;
      }
      j = k + 1;
    }
    return j;
  }

  Scope classify_brace(std::size_t i, Scope outer) const {
    if (outer == Scope::function || outer == Scope::init) {
      return outer == Scope::init ? Scope::init : Scope::function;
    }
    const std::size_t head = statement_start(i);
    if (head == i) return outer == Scope::cls ? Scope::function : Scope::function;
    if (punct(i - 1, '=') || punct(i - 1, ',') || punct(i - 1, '(')) return Scope::init;
    std::size_t j = skip_template_heads(head, i);
    if (is(j, "extern") && j + 1 < i && t_[j + 1].kind == Kind::string) return Scope::ns;
    bool paren = false;
    for (std::size_t k = j; k < i; ++k) {
      if (is(k, "namespace")) return Scope::ns;
      if (punct(k, '(')) paren = true;
      if (!paren && (is(k, "struct") || is(k, "class") || is(k, "union") || is(k, "enum"))) {
        return Scope::cls;
      }
    }
    if (outer == Scope::cls && !paren) return Scope::init;  // member `int x{1};`
    return Scope::function;
  }

  /// Names of kernels declared as templates (their launch cannot take the kernel's address
  /// without template arguments).
  void collect_template_kernels() {
    for (std::size_t i = 0; i < t_.size(); ++i) {
      if (!is(i, "__global__")) continue;
      const std::size_t head = statement_start(i);
      if (!is(head, "template")) continue;
      for (std::size_t k = i + 1; k < t_.size(); ++k) {
        if (punct(k, ';') || punct(k, '{')) break;
        if (t_[k].kind == Kind::ident && punct(k + 1, '(') && text(k) != "__launch_bounds__" &&
            text(k) != "__attribute__" && text(k) != "__align__") {
          template_kernels_.insert(std::string(text(k)));
          break;
        }
      }
    }
  }

  bool is_launch(std::size_t i) const {
    if (!(punct(i + 1, '<') && punct(i + 2, '<') && adjacent(i, i + 1) && adjacent(i + 1, i + 2))) {
      return false;
    }
    if (i > 0 && is(i - 1, "operator")) return false;  // operator<< <T>
    return true;
  }

  std::size_t match_back(std::size_t j, char open, char close) const {
    int depth = 0;
    for (std::size_t k = j + 1; k-- > 0;) {
      if (punct(k, close)) ++depth;
      if (punct(k, open) && --depth == 0) return k;
      if (open == '<' && punct(k, ')')) {  // parentheses inside template arguments
        k = match_back(k, '(', ')');
      }
      if (k == 0) break;
    }
    error(j, std::string("unbalanced '") + close + "' before '<<<'");
  }

  std::size_t match_forward(std::size_t j, char open, char close) const {
    int depth = 0;
    for (std::size_t k = j; k < t_.size(); ++k) {
      if (punct(k, open)) ++depth;
      if (punct(k, close) && --depth == 0) return k;
    }
    error(j, std::string("missing '") + close + "'");
  }

  /// Rewrites the launch whose '<<<' starts at token `i`; returns the index of its last token.
  std::size_t launch(std::size_t i) {
    if (i == 0) error(i, "'<<<' without a kernel before it");
    // The kernel expression: [::] name {:: name} [<template args>], or a parenthesised expression.
    std::size_t j = i - 1;
    std::size_t start;
    bool explicit_args = false;
    for (;;) {
      if (punct(j, '>')) {
        const std::size_t open = match_back(j, '<', '>');
        explicit_args = true;
        if (open == 0 || t_[open - 1].kind != Kind::ident) error(j, "cannot parse the kernel before '<<<'");
        j = open - 1;
        continue;
      }
      if (t_[j].kind == Kind::ident) {
        start = j;
        if (j >= 1 && (is(j - 1, "::") || is(j - 1, ".") || is(j - 1, "->"))) {
          start = j - 1;
          if (j >= 2 && (t_[j - 2].kind == Kind::ident || punct(j - 2, '>'))) {
            j -= 2;
            continue;
          }
        }
        break;
      }
      if (punct(j, ')')) {
        start = match_back(j, '(', ')');
        explicit_args = true;
        break;
      }
      error(i, "expected a kernel name before '<<<'");
    }
    // The configuration: up to '>>>' outside brackets.
    std::size_t k = i + 3;
    int depth = 0;
    std::size_t close = t_.size();
    for (; k + 2 < t_.size(); ++k) {
      if (t_[k].kind != Kind::punct) continue;
      const char c = s_[t_[k].begin];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
      if (depth < 0 || (depth == 0 && c == ';')) break;
      if (depth == 0 && c == '>' && punct(k + 1, '>') && punct(k + 2, '>') && adjacent(k, k + 1) &&
          adjacent(k + 1, k + 2)) {
        close = k;
        break;
      }
    }
    if (close == t_.size()) error(i, "'<<<' without a matching '>>>'");
    const std::size_t lparen = close + 3;
    if (!punct(lparen, '(')) error(close, "expected '(' with the kernel's arguments after '>>>'");
    const std::size_t rparen = match_forward(lparen, '(', ')');
    if (close == i + 3) error(i, "empty launch configuration");

    const std::string callee = join(start, i);
    std::string last_name;
    bool callee_parameter = false;
    for (std::size_t q = start; q < i; ++q) {
      if (t_[q].kind == Kind::ident) {
        last_name = std::string(text(q));
        callee_parameter |= params_.count(last_name) != 0;
      }
      if (punct(q, '<')) break;
    }
    // A launch in a macro's body is judged where the macro is used (main loop's are judged in
    // their function's body): not when the kernel is a parameter or an expression.
    if (macro_ && !callee_parameter && t_[start].kind == Kind::ident) {
      macro_launches_.push_back({last_name, t_[start].line, t_[start].col, 0, {}});
    }
    // A macro's kernel parameter may name a template kernel, whose address needs its arguments.
    const bool deduced =
        !explicit_args && (template_kernels_.count(last_name) != 0 || (callee_parameter && !template_kernels_.empty()));
    std::string head = "::cudalab_sim::launch(" + quoted_tokens(start, i) + ", " + quoted_tokens(lparen + 1, rparen) +
                       ", " + (deduced ? std::string("nullptr") : "::cudalab_sim::kernel_address(" + callee + ")") +
                       ", [&](auto&... cudalab_sim_args) { " + callee +
                       "(cudalab_sim_args...); }, ::cudalab_sim::config(";
    head += line_breaks(newlines(s_.substr(t_[start].begin, t_[i + 2].end - t_[start].begin)));
    edits_.push_back({t_[start].begin, t_[i + 2].end, head});
    std::string mid = ")";
    if (rparen == lparen + 2 && is(lparen + 1, "__VA_ARGS__") && params_.count("__VA_ARGS__") != 0) {
      mid += " __VA_OPT__(,) ";  // no comma before an empty variadic argument list
    } else if (rparen != lparen + 1) {
      mid += ", ";
    }
    mid += line_breaks(newlines(s_.substr(t_[close].begin, t_[lparen].end - t_[close].begin)));
    edits_.push_back({t_[close].begin, t_[lparen].end, mid});
    // Launches inside the configuration or the arguments are rewritten too (we return `close`).
    return i + 2;
  }

  /// Tokens [a, b) as written, as a string literal on one line, for the runtime's messages. In a
  /// function-like macro's body, parameters are stringized (`d, n` -> `"d, " #n`), so the text is
  /// what the macro was given rather than the parameter's name.
  std::string quoted_tokens(std::size_t a, std::size_t b) const {
    bool plain = params_.empty();
    for (std::size_t k = a; k < b && !plain; ++k) plain = punct(k, '#');  // `#`, `##`: keep them as text
    if (plain) return string_literal(a < b ? join(a, b) : std::string());
    std::string r;
    std::string pending;
    for (std::size_t k = a; k < b; ++k) {
      if (k > a && !adjacent(k - 1, k)) pending += ' ';
      if (t_[k].kind == Kind::ident && params_.count(std::string(text(k))) != 0) {
        if (!pending.empty()) r += string_literal(pending) + ' ';
        pending.clear();
        r += "#" + std::string(text(k)) + ' ';
      } else {
        pending += text(k);
      }
    }
    if (!pending.empty() || r.empty()) return r + string_literal(pending);
    r.pop_back();
    return r;
  }

  /// `text` as a C++ string literal on one line.
  static std::string string_literal(std::string_view text) {
    std::string r = "\"";
    for (char c : text) {
      if (c == '"' || c == '\\') r += '\\';
      if (c == '\n') {
        r += "\\n";
        continue;
      }
      r += c;
    }
    return r + "\"";
  }

  /// After each local array declared without an initializer in device code (`float window[9];`):
  /// ` CUDALAB_SIM_LOCAL(window);`, which the checked build makes a region of the checks, so that a
  /// read of a slot the thread never wrote is named (-ftrivial-auto-var-init only poisons it). Only
  /// plain declarations that start a statement of the body; anything else is left alone.
  void note_local_arrays() {
    for (const Function& f : functions_) {
      if (f.space != kGlobalFn && f.space != kDeviceFn && f.space != kHostDeviceFn) continue;
      bool statement_start = true;
      int parens = 0;
      for (std::size_t k = f.open + 1; k < f.close; ++k) {
        if (t_[k].kind == Kind::directive) continue;
        if (punct(k, '(')) ++parens;
        if (punct(k, ')')) --parens;
        if (parens == 0 && (punct(k, '{') || punct(k, '}') || punct(k, ';'))) {
          statement_start = true;
          continue;
        }
        if (!statement_start) continue;
        statement_start = false;
        if (parens != 0) continue;
        if (is(k, "struct") || is(k, "class") || is(k, "union") || is(k, "enum") || is(k, "typedef")) {
          // A local type: its members are not locals. Its body is skipped; its ';' ends it.
          std::size_t b = k;
          while (b < f.close && !punct(b, '{') && !punct(b, ';')) ++b;
          if (b < f.close && punct(b, '{')) k = match_forward(b, '{', '}');
          continue;
        }
        k = local_array_declaration(k, f.close);
      }
    }
  }

  /// The statement starting at `head` (within a body ending at `limit`): if it declares local
  /// arrays only (`T a[N], b[M][K];`), notes them after its ';'. Returns the last token looked at.
  std::size_t local_array_declaration(std::size_t head, std::size_t limit) {
    static const std::set<std::string_view> kNotLocal = {
        "static",       "extern",     "typedef",     "using",    "thread_local", "__shared__",
        "__constant__", "__device__", "__managed__", "struct",   "class",        "union",
        "enum",         "template",   "friend",      "operator", "const",        "constexpr"};
    std::size_t semi = head;
    int depth = 0;
    for (; semi < limit; ++semi) {
      if (punct(semi, '(') || punct(semi, '[') || punct(semi, '{')) ++depth;
      if (punct(semi, ')') || punct(semi, ']') || punct(semi, '}')) --depth;
      if (depth < 0 || (depth == 0 && (punct(semi, '=') || punct(semi, '(') || punct(semi, '{')))) return head;
      if (depth == 0 && punct(semi, ';')) break;
    }
    if (semi >= limit || t_[head].kind != Kind::ident) return head;
    // The type: names, `::`, template arguments, `*`; then declarators `name[...]...`, by commas.
    std::size_t k = head;
    int angle = 0;
    for (; k < semi; ++k) {
      if (t_[k].kind == Kind::ident) {
        if (kNotLocal.count(text(k)) != 0 || expression_keyword(text(k))) return head;
        if (angle == 0 && punct(k + 1, '[')) break;  // the first declarator's name
        continue;
      }
      if (punct(k, '<')) ++angle;
      if (punct(k, '>')) --angle;
      if (!(is(k, "::") || punct(k, '<') || punct(k, '>') || punct(k, '*') || punct(k, ',') ||
            t_[k].kind == Kind::number)) {
        return head;
      }
    }
    if (k == head || k >= semi) return head;  // `a[i];`: no type, an expression
    std::vector<std::string> names;
    while (k < semi) {
      while (k < semi && punct(k, '*')) ++k;
      if (k >= semi || t_[k].kind != Kind::ident || !punct(k + 1, '[')) return head;
      names.emplace_back(text(k));
      ++k;
      while (k < semi && punct(k, '[')) k = match_forward(k, '[', ']') + 1;
      if (k < semi && !punct(k, ',')) return head;
      if (k < semi) ++k;
    }
    std::string notes;
    for (const auto& name : names) notes += " CUDALAB_SIM_LOCAL(" + name + ");";
    edits_.push_back({t_[semi].end, t_[semi].end, notes});
    return semi - 1;  // the caller's loop meets the ';' and starts the next statement
  }

  /// Prefix of the storage a function-scope `__shared__` variable is renamed to.
  static constexpr const char* kSharedStorage = "cudalab_sim_shared_";

  /// Handles a declaration containing `__shared__` at token `i`; returns the last token handled.
  std::size_t shared_declaration(std::size_t i, Scope scope) {
    const std::size_t head = statement_start(i);
    const std::size_t semi = statement_end(i);
    bool is_extern = false;
    for (std::size_t k = head; k < semi; ++k) is_extern |= is(k, "extern");
    if (!is_extern) {
      // Lambdas in a namespace-scope initializer (Scope::init) have function bodies too.
      if (scope == Scope::function || scope == Scope::init) {
        note_declared(head, semi, "CUDALAB_SIM_SHARED", /*rename=*/true);
      } else if (scope == Scope::ns && !is(head, "template")) {
        note_declared(head, semi, "CUDALAB_SIM_NAMESPACE_SHARED");
      }
      return i;
    }
    // extern __shared__ T name[];
    std::size_t lb = semi;
    for (std::size_t k = head; k < semi; ++k) {
      if (punct(k, '[')) {
        lb = k;
        break;
      }
    }
    if (lb == semi || lb == head || t_[lb - 1].kind != Kind::ident) {
      error(i, "expected 'extern __shared__ T name[];'");
    }
    const std::string name(text(lb - 1));
    std::string type;
    for (std::size_t k = head; k < lb - 1; ++k) {
      if (is(k, "extern") || is(k, "__shared__")) continue;
      if ((is(k, "__align__") || is(k, "alignas") || is(k, "__attribute__")) && punct(k + 1, '(')) {
        k = match_forward(k + 1, '(', ')');
        continue;
      }
      if (!type.empty() && !adjacent(k - 1, k)) type += ' ';
      type += text(k);
    }
    if (type.empty()) error(i, "missing type in extern __shared__ declaration");
    const std::string pointer = "static_cast<" + type + "*>(::cudalab_sim::dynamic_shared())";
    const std::string pad(newlines(s_.substr(t_[head].begin, t_[semi].end - t_[head].begin)), '\n');
    if (scope == Scope::function) {
      edits_.push_back({t_[head].begin, t_[semi].end, type + "* const " + name + " = " + pointer + ";" + pad});
    } else {
      edits_.push_back({t_[head].begin, t_[semi].end, pad});
      substitutions_[name] = "(" + pointer + ")";
    }
    return semi;
  }

  /// `__managed__` variables at namespace scope are registered: kernels may take their address.
  std::size_t managed_declaration(std::size_t i) {
    const std::size_t head = statement_start(i);
    const std::size_t semi = statement_end(i);
    bool skip = is(head, "template");
    for (std::size_t k = head; k < semi; ++k) skip |= is(k, "extern") || is(k, "__shared__");
    if (!skip) note_declared(head, semi, "CUDALAB_SIM_MANAGED_VARIABLE");
    return i;
  }

  /// A `__constant__` definition at namespace scope is placed among the module's constants and
  /// registered (`__constant__ CUDALAB_SIM_CONSTANT_PLACE T c[N]; CUDALAB_SIM_CONSTANT_VARIABLE(c);`):
  /// the checked build lays constants out between padding and names a read past one. Declarations
  /// (`extern`), templates and read-only ones (`const`: a named section takes writable or read-only
  /// variables, not both) are left alone.
  void constant_declaration(std::size_t i) {
    const std::size_t head = statement_start(i);
    const std::size_t semi = statement_end(i);
    bool skip = is(head, "template");
    for (std::size_t k = head; k < semi; ++k) {
      skip |= is(k, "extern") || is(k, "__shared__") || is(k, "__managed__") || is(k, "const") || is(k, "constexpr") ||
              is(k, "constinit") || is(k, "typedef") || is(k, "using");
    }
    if (skip) return;
    edits_.push_back({t_[i].end, t_[i].end, " CUDALAB_SIM_CONSTANT_PLACE"});
    note_declared(head, semi, "CUDALAB_SIM_CONSTANT_VARIABLE");
  }

  /// After `__shared__ T a[N], b;` (or a `__managed__` declaration), appends `MACRO(a); MACRO(b);`.
  /// With `rename`, each declared name becomes `cudalab_sim_shared_<name>` and the macro gets both,
  /// `MACRO(a, cudalab_sim_shared_a);`: it declares `a` as a reference to the storage, through
  /// which the checked build (`--sanitize`) sees every access.
  void note_declared(std::size_t head, std::size_t semi, const char* macro, bool rename = false) {
    std::vector<std::string> names;
    std::size_t last_at = 0;
    int depth = 0;
    int angle = 0;
    std::string last;
    bool stop = false;
    for (std::size_t k = head; k <= semi; ++k) {
      if (t_[k].kind == Kind::punct) {
        const char c = s_[t_[k].begin];
        if ((c == ',' || c == ';') && depth == 0 && angle == 0) {
          if (!last.empty()) {
            names.push_back(last);
            if (rename) edits_.push_back({t_[last_at].begin, t_[last_at].end, std::string(kSharedStorage) + last});
          }
          last.clear();
          stop = false;
          continue;
        }
        if (c == '(' || c == '[' || c == '{') {
          if (depth == 0 && c != '(') stop = true;
          ++depth;
        }
        if (c == ')' || c == ']' || c == '}') --depth;
        if (depth == 0 && c == '<') ++angle;
        if (depth == 0 && c == '>' && angle > 0) --angle;
        if (depth == 0 && c == '=') stop = true;
        continue;
      }
      if (t_[k].kind == Kind::ident && depth == 0 && angle == 0 && !stop) {
        const std::string_view id = text(k);
        if (id != "__shared__" && id != "__managed__" && id != "__device__" && id != "volatile" && id != "const" &&
            id != "__constant__") {
          last = std::string(id);
          last_at = k;
        }
      }
    }
    std::string notes;
    for (const auto& n : names) {
      notes += std::string(" ") + macro + "(" + n + (rename ? ", " + std::string(kSharedStorage) + n : "") + ");";
    }
    if (!notes.empty()) edits_.push_back({t_[semi].end, t_[semi].end, notes});
  }

  /// A `#define` whose body holds a launch (or `__noinline__`, or a namespace-scope `extern
  /// __shared__` array's name): the body is rewritten in place, on its own (continued) lines, so
  /// the macro expands to what the translated code would have been.
  void define_body(std::size_t d) {
    const Token& tk = t_[d];
    const std::string_view v = s_.substr(tk.begin, tk.end - tk.begin);
    bool wanted = v.find("<<<") != std::string_view::npos || v.find("__noinline__") != std::string_view::npos;
    for (auto it = substitutions_.begin(); it != substitutions_.end() && !wanted; ++it) {
      wanted = v.find(it->first) != std::string_view::npos;
    }
    if (!wanted) return;
    const std::vector<Token> toks = Lexer(s_.substr(0, tk.end), tk.begin + 1, tk.line, tk.col + 1).run();
    const auto text_is = [&](std::size_t k, std::string_view what) {
      return k < toks.size() && s_.substr(toks[k].begin, toks[k].end - toks[k].begin) == what;
    };
    if (!text_is(0, "define") || toks.size() < 2 || toks[1].kind != Kind::ident) return;
    Translator body(s_, {}, declared());
    std::size_t b = 2;
    if (text_is(2, "(") && toks[1].end == toks[2].begin) {  // function-like: its parameters
      for (b = 3; b < toks.size() && !text_is(b, ")"); ++b) {
        if (text_is(b, "...")) {
          // `...` is __VA_ARGS__; `name...` (GNU) is `name`, already a parameter.
          if (!(b > 3 && toks[b - 1].kind == Kind::ident && toks[b - 1].end == toks[b].begin)) {
            body.params_.insert("__VA_ARGS__");
          }
        } else if (toks[b].kind == Kind::ident) {
          body.params_.insert(std::string(s_.substr(toks[b].begin, toks[b].end - toks[b].begin)));
        }
      }
      ++b;
    }
    if (b >= toks.size()) return;
    body.t_.assign(toks.begin() + static_cast<std::ptrdiff_t>(b), toks.end());
    body.macro_ = true;
    body.run_macro_body();
    edits_.insert(edits_.end(), body.edits_.begin(), body.edits_.end());
    for (MacroLaunch m : body.macro_launches_) {
      m.directive = d;
      m.macro = std::string(s_.substr(toks[1].begin, toks[1].end - toks[1].begin));
      macro_launches_.push_back(std::move(m));
    }
  }

  /// The main loop's rewrites that make sense in a macro body (no scopes, no declarations).
  void run_macro_body() {
    for (std::size_t i = 0; i < t_.size(); ++i) {
      if (punct(i, '<') && is_launch(i)) {
        i = launch(i);
        continue;
      }
      if (t_[i].kind != Kind::ident) continue;
      const std::string id(text(i));
      if (id == "__noinline__") {
        edits_.push_back({t_[i].begin, t_[i].end, "__attribute__((noinline))"});
        continue;
      }
      auto sub = substitutions_.find(id);
      if (sub != substitutions_.end() && params_.count(id) == 0 && !member_or_qualified(i) &&
          !(i > 0 && punct(i - 1, '#'))) {
        edits_.push_back({t_[i].begin, t_[i].end, sub->second});
      }
    }
  }

  // ---- Execution spaces: what nvcc rejects and g++ cannot know ----

  /// A function definition, and the space its body runs in.
  struct Function {
    std::string name;    // for messages (empty: an operator or a constructor's unsure head)
    unsigned space = 0;  // kHostFn, kDeviceFn, kGlobalFn, kHostDeviceFn; 0: not known, not checked
    bool templated = false;
    std::size_t head = 0;   // its first token (template head included)
    std::size_t open = 0;   // its body's '{'
    std::size_t close = 0;  // and '}'
  };

  /// A launch written in a #define body (judged if the macro is used).
  struct MacroLaunch {
    std::string kernel;
    int line;
    int col;
    std::size_t directive;  // the #define's token
    std::string macro;
  };

  /// What the tokens before a declarator say, and where the declarator's name is.
  struct Head {
    std::size_t name = std::string::npos;   // the declarator's name, if one was found
    std::size_t paren = std::string::npos;  // the '(' right after the name
    bool qualified = false;                 // `A::name`
    bool templated = false;
    bool host = false, device = false, global = false, memory = false;  // the space keywords
    bool constant = false;                                              // const, constexpr, consteval, constinit
    bool unsure = false;  // a macro (or what looks like one) among the specifiers
  };

  static constexpr std::size_t kNone = std::string::npos;

  /// The token closing the bracket opened at `open`, or `limit` when it is not before `limit`.
  std::size_t closing(std::size_t open, std::size_t limit) const {
    const char o = s_[t_[open].begin];
    const char c = o == '(' ? ')' : o == '[' ? ']' : o == '{' ? '}' : '>';
    int depth = 0;
    for (std::size_t k = open; k < limit; ++k) {
      if (punct(k, o)) ++depth;
      if (punct(k, c) && --depth == 0) return k;
      if (o == '<' && (punct(k, ';') || punct(k, '{') || punct(k, '}'))) return limit;
    }
    return limit;
  }

  bool single_colon(std::size_t k) const { return punct(k, ':'); }

  /// Marks the tokens no device compilation sees the way they are written: under a conditional
  /// on __CUDA_ARCH__ (either branch: host-only or device-only code) and in `#if 0`.
  void mark_inactive() {
    inactive_.assign(t_.size(), false);
    struct Frame {
      bool arch;
      bool zero;
      bool in_else;
    };
    std::vector<Frame> frames;
    for (std::size_t i = 0; i < t_.size(); ++i) {
      if (t_[i].kind != Kind::directive) {
        for (const Frame& f : frames) inactive_[i] = inactive_[i] || f.arch || (f.zero && !f.in_else);
        continue;
      }
      std::string_view d = text(i).substr(1);
      while (!d.empty() && (d.front() == ' ' || d.front() == '\t')) d.remove_prefix(1);
      std::size_t w = 0;
      while (w < d.size() && ident_char(d[w])) ++w;
      const std::string_view word = d.substr(0, w);
      std::string_view rest = d.substr(w);
      const bool arch = rest.find("__CUDA_ARCH__") != std::string_view::npos;
      rest = rest.substr(0, std::min(rest.find("//"), rest.find("/*")));
      while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
      while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t' || rest.back() == '\r')) rest.remove_suffix(1);
      if (word == "if" || word == "ifdef" || word == "ifndef") {
        frames.push_back({arch, word == "if" && rest == "0", false});
      } else if ((word == "elif" || word == "else") && !frames.empty()) {
        frames.back().in_else = true;
        frames.back().arch = frames.back().arch || arch;
      } else if (word == "endif" && !frames.empty()) {
        frames.pop_back();
      } else if (word == "define" && !rest.empty()) {
        // A macro means anything: judged by no check.
        std::size_t n = 0;
        while (n < rest.size() && ident_char(rest[n])) ++n;
        if (n > 0) {
          names_[std::string(rest.substr(0, n))] |= kMacro | (n < rest.size() && rest[n] == '(' ? kMacroFn : 0U);
        }
      }
      for (const Frame& f : frames) inactive_[i] = inactive_[i] || f.arch || (f.zero && !f.in_else);
    }
  }

  /// Reads the declaration tokens [a, b) up to its first declarator's name.
  Head parse_head(std::size_t a, std::size_t b) const {
    Head h;
    const std::size_t j = skip_template_heads(a, b);
    h.templated = j != a;
    std::size_t candidate = kNone;
    std::size_t k = j;
    for (; k < b; ++k) {
      if (is(k, "operator")) {  // operator+(...), operator()(...), operator float(...)
        std::size_t p = punct(k + 1, '(') && punct(k + 2, ')') ? k + 3 : k + 1;
        while (p < b && !punct(p, '(')) ++p;
        if (p < b) {
          h.name = k;
          h.paren = p;
        }
        break;
      }
      if (t_[k].kind == Kind::ident) {
        candidate = reserved(text(k)) ? kNone : k;
        continue;
      }
      if (t_[k].kind != Kind::punct) continue;                          // "C" of extern "C"
      if (punct(k, '<') && candidate != kNone && candidate + 1 == k) {  // template arguments of a type
        k = closing(k, b);
        continue;
      }
      if (punct(k, '(')) {
        if (candidate != kNone && candidate == k - 1) {
          h.name = candidate;
          h.paren = k;
          break;
        }
        k = closing(k, b);  // an attribute's arguments, or a declarator in parentheses
        candidate = kNone;
        continue;
      }
      if (punct(k, '[') || punct(k, '=') || punct(k, '{') || punct(k, ',') || punct(k, ';') || single_colon(k)) {
        h.name = candidate;
        break;
      }
    }
    if (k >= b) h.name = candidate;
    const std::size_t end = h.name == kNone ? k : h.name;
    for (std::size_t q = j; q < end && q < b; ++q) {
      if (t_[q].kind != Kind::ident) continue;
      const std::string_view w = text(q);
      h.host = h.host || w == "__host__";
      h.device = h.device || w == "__device__";
      h.global = h.global || w == "__global__";
      h.memory = h.memory || w == "__shared__" || w == "__constant__" || w == "__managed__";
      h.constant = h.constant || w == "const" || w == "constexpr" || w == "consteval" || w == "constinit";
      const auto it = names_.find(std::string(w));
      h.unsure = h.unsure || macro_like(w) || (it != names_.end() && (it->second & kMacro) != 0);
    }
    h.qualified = h.name != kNone && h.name > 0 && is(h.name - 1, "::");
    return h;
  }

  /// Whether the parentheses at `open` hold parameters (1), an initializer (0), or can't be told (-1).
  int parameters(std::size_t open) const {
    const std::size_t close = closing(open, t_.size());
    if (close >= t_.size()) return -1;
    if (close == open + 1) return 1;
    const std::size_t f = open + 1;
    if (t_[f].kind == Kind::number || t_[f].kind == Kind::string || t_[f].kind == Kind::chr) return 0;
    if (t_[f].kind == Kind::ident && keyword(text(f)) && !is(f, "this") && !is(f, "true") && !is(f, "false") &&
        !is(f, "nullptr") && !is(f, "sizeof") && !is(f, "new")) {
      return 1;
    }
    if (is(f, "...")) return 1;
    int depth = 0;
    for (std::size_t k = f; k + 1 < close; ++k) {
      if (punct(k, '(') || punct(k, '[') || punct(k, '{')) ++depth;
      if (punct(k, ')') || punct(k, ']') || punct(k, '}')) --depth;
      if (depth != 0 || t_[k].kind != Kind::ident) continue;
      // `T x`, `T* x`, `T&`, `T*,`: a parameter's type and name.
      std::size_t n = k + 1;
      while (n < close && (punct(n, '*') || punct(n, '&'))) ++n;
      if (n < close && t_[n].kind == Kind::ident && !reserved(text(n))) return 1;
      if (n > k + 1 && (n == close || punct(n, ','))) return 1;
    }
    return -1;
  }

  /// The names a namespace-scope declaration [a, b) declares, one per declarator.
  std::vector<std::size_t> declarator_names(std::size_t a, std::size_t b) const {
    std::vector<std::size_t> out;
    std::size_t last = kNone;
    bool stop = false;
    for (std::size_t k = skip_template_heads(a, b); k <= b && k < t_.size(); ++k) {
      if (k == b || punct(k, ',')) {
        if (last != kNone) out.push_back(last);
        last = kNone;
        stop = false;
        continue;
      }
      if (punct(k, '(') || punct(k, '[') || punct(k, '{') || (punct(k, '<') && last != kNone && last + 1 == k)) {
        if (!punct(k, '<')) stop = true;
        k = closing(k, b);
        continue;
      }
      if (punct(k, '=') || single_colon(k)) stop = true;
      if (!stop && t_[k].kind == Kind::ident && !reserved(text(k))) last = k;
    }
    return out;
  }

  void mark(std::size_t k, unsigned bits) { names_[std::string(text(k))] |= bits; }

  /// The function bits a declaration's head gives its name.
  static unsigned function_bits(const Head& h) {
    if (h.unsure) return kOther;
    unsigned bits = kHostFn;
    if (h.global) {
      bits = kGlobalFn;
    } else if (h.device && h.host) {
      bits = kHostDeviceFn;
    } else if (h.device) {
      bits = kDeviceFn;
    }
    if (h.constant && bits != kGlobalFn) bits = kHostDeviceFn;
    return bits | (h.templated ? kTemplate : 0U);
  }

  /// A namespace-scope declaration [a, b) ended by ';': functions and variables by name.
  void namespace_statement(std::size_t a, std::size_t b) {
    if (a >= b) return;
    const std::size_t j = skip_template_heads(a, b);
    for (std::size_t k = j; k < b; ++k) {
      const std::string_view w = text(k);
      if (w == "typedef" || w == "using" || w == "struct" || w == "class" || w == "union" || w == "enum" ||
          w == "friend" || w == "static_assert" || w == "namespace" || w == "asm" || w == "concept" ||
          w == "operator") {
        // What it names, outside the braces of a class body (whose members are marked already).
        int depth = 0;
        for (std::size_t q = j; q < b; ++q) {
          depth += punct(q, '{') ? 1 : punct(q, '}') ? -1 : 0;
          if (depth == 0 && t_[q].kind == Kind::ident && !reserved(text(q))) mark(q, kOther);
        }
        return;
      }
    }
    const Head h = parse_head(a, b);
    if (h.name == kNone || h.qualified) return;
    if (h.paren != kNone) {
      const int p = parameters(h.paren);
      if (p == 1) {
        mark(h.name, function_bits(h));
        return;
      }
      if (p < 0) {
        mark(h.name, kOther);
        return;
      }
    }
    unsigned bits = kHostVar;
    if (h.device || h.memory) {
      bits = kDeviceVar;
    } else if (h.constant || h.templated || h.unsure || h.global || h.host) {
      bits = kOther;
    }
    for (std::size_t n : declarator_names(a, b)) mark(n, bits);
  }

  /// Finds every function definition and namespace-scope declaration: the names the checks judge
  /// by, and the bodies they read.
  void collect_spaces() {
    mark_inactive();
    std::vector<Scope> scopes{Scope::ns};
    std::size_t stmt = 0;
    for (std::size_t i = 0; i < t_.size(); ++i) {
      if (t_[i].kind == Kind::directive) {
        if (stmt == i) stmt = i + 1;
        continue;
      }
      const Scope cur = scopes.back();
      if (cur == Scope::cls && t_[i].kind == Kind::ident && !reserved(text(i))) mark(i, kOther);  // members
      if (punct(i, '{')) {
        const Scope inner = classify_brace(i, cur);
        if ((cur == Scope::ns || cur == Scope::cls) && inner == Scope::function) {
          const std::size_t close = closing(i, t_.size());
          const std::size_t head = cur == Scope::ns ? stmt : statement_start(i);
          const Head h = parse_head(head, i);
          if (h.paren == kNone) {
            // `auto f = [] {...};`, `S s{...};`: the statement goes on; else it ends here.
            bool assigned = false;
            for (std::size_t q = head; q < i; ++q) assigned = assigned || punct(q, '=');
            if (cur == Scope::ns && !assigned && (punct(i - 1, ')') || t_[i - 1].kind == Kind::ident)) {
              stmt = close + 1;
            }
            i = close;
            continue;
          }
          Function f;
          f.name = is(h.name, "operator") ? join(h.name, h.paren) : std::string(text(h.name));
          f.templated = h.templated;
          f.head = head;
          f.open = i;
          f.close = close;
          // A constructor's initializers hide its head from statement_start: space unknown.
          const bool access = head > 1 && single_colon(head - 1) &&
                              (is(head - 2, "public") || is(head - 2, "private") || is(head - 2, "protected"));
          const bool initializers = head == i || punct(head, ',') || (head > 0 && single_colon(head - 1) && !access);
          const unsigned bits = function_bits(h);
          f.space = initializers ? 0 : meaning(bits) == kOther ? 0 : meaning(bits);
          functions_.push_back(f);
          if (cur == Scope::ns && !h.qualified && !reserved(f.name)) mark(h.name, bits);
          i = close;
          if (cur == Scope::ns) stmt = close + 1;
          continue;
        }
        scopes.push_back(inner);
        if (inner == Scope::ns) stmt = i + 1;
        continue;
      }
      if (punct(i, '}')) {
        const Scope popped = scopes.back();
        if (scopes.size() > 1) scopes.pop_back();
        if (popped == Scope::ns) stmt = i + 1;
        continue;
      }
      if (punct(i, ';') && cur == Scope::ns) {
        namespace_statement(stmt, i);
        stmt = i + 1;
      }
    }
  }

  /// Whether token `k` declares its name: `T k`, `T* k`, `ns::T<U>& k` after a statement or
  /// parameter boundary, `[k = ...]` captures, `a = 1, k = 2`. Errs towards yes: a name declared
  /// in a function is not judged anywhere in it.
  bool declares(std::size_t k, std::size_t from) const {
    if (k > from && (punct(k - 1, '[') || punct(k - 1, ',')) && punct(k + 1, '=') && !punct(k + 2, '=')) return true;
    bool type = false;
    std::size_t j = k;
    while (j > from) {
      const std::size_t p = j - 1;
      if (t_[p].kind == Kind::ident) {
        if (expression_keyword(text(p))) return false;
        type = true;
      } else if (punct(p, '>')) {
        const std::size_t o = match_back_quiet(p, from);
        if (o == kNone) return false;
        j = o;
        continue;
      } else if (!(punct(p, '*') || punct(p, '&') || is(p, "::") || is(p, "..."))) {
        const bool boundary = punct(p, ';') || punct(p, '{') || punct(p, '}') || punct(p, '(') || punct(p, ',') ||
                              punct(p, '<') || single_colon(p) || t_[p].kind == Kind::directive;
        return type && boundary;
      }
      j = p;
    }
    return type;
  }

  /// The '<' matching the '>' at `close`, not before `from`; kNone when it is not there.
  std::size_t match_back_quiet(std::size_t close, std::size_t from) const {
    int depth = 0;
    for (std::size_t k = close + 1; k-- > from;) {
      if (punct(k, '>')) ++depth;
      if (punct(k, '<') && --depth == 0) return k;
      if (punct(k, ';') || punct(k, '{') || punct(k, '}')) return kNone;
    }
    return kNone;
  }

  /// Every name declared in tokens [a, b): parameters, locals, captures, structured bindings.
  std::set<std::string> locally_declared(std::size_t a, std::size_t b) const {
    std::set<std::string> out;
    for (std::size_t k = a; k < b; ++k) {
      if (punct(k, '[') && k > a &&
          (is(k - 1, "auto") || (punct(k - 1, '&') && k > a + 1 && (is(k - 2, "auto") || punct(k - 2, '&'))))) {
        const std::size_t e = closing(k, b);  // auto [x, y] = ...
        for (std::size_t q = k + 1; q < e; ++q) {
          if (t_[q].kind == Kind::ident) out.insert(std::string(text(q)));
        }
        continue;
      }
      if (t_[k].kind != Kind::ident || reserved(text(k))) continue;
      if (declares(k, a)) out.insert(std::string(text(k)));
    }
    return out;
  }

  /// Whether a template's name appears outside its own definition (it is instantiated, maybe).
  bool used_elsewhere(const Function& f) const {
    for (std::size_t k = 0; k < t_.size(); ++k) {
      if (k >= f.head && k <= f.close) continue;
      if (t_[k].kind == Kind::ident && text(k) == f.name) return true;
    }
    return false;
  }

  /// Where code runs, for the checks of a body: its space, its function's kind and name.
  struct Context {
    bool device;
    const char* kind;  // "__global__", "__device__", "__host__"
    std::string function;
    const std::set<std::string>* locals;
  };

  /// A lambda starting at '[' token `k`: its body's '{' (kNone if this is no lambda), and whether
  /// it is annotated __device__ / __host__.
  std::size_t lambda_body(std::size_t k, std::size_t limit, bool& device, bool& host) const {
    device = host = false;
    if (punct(k + 1, '[')) return kNone;  // [[attribute]]
    if (k > 0 && (t_[k - 1].kind == Kind::ident && !expression_keyword(text(k - 1)))) return kNone;
    if (k > 0 && (punct(k - 1, ')') || punct(k - 1, ']') || punct(k - 1, '>'))) return kNone;  // a subscript
    const std::size_t close = closing(k, limit);
    if (close >= limit) return kNone;
    for (std::size_t j = close + 1; j < limit && j < close + 64; ++j) {
      if (punct(j, '{')) return j;
      if (punct(j, '(')) {
        j = closing(j, limit);
        continue;
      }
      if (t_[j].kind == Kind::ident) {
        device = device || is(j, "__device__");
        host = host || is(j, "__host__");
        continue;
      }
      if (!(is(j, "->") || is(j, "::") || punct(j, '*') || punct(j, '&') || punct(j, '<') || punct(j, '>') ||
            punct(j, ','))) {
        return kNone;
      }
    }
    return kNone;
  }

  /// Judges the tokens (a, b) of a body in context `c`.
  void scan(std::size_t a, std::size_t b, const Context& c, std::vector<SpaceError>& out) const {
    for (std::size_t k = a + 1; k < b; ++k) {
      if (inactive_[k]) continue;
      if (punct(k, '[')) {
        bool device = false;
        bool host = false;
        const std::size_t open = lambda_body(k, b, device, host);
        if (open == kNone) continue;
        const std::size_t close = closing(open, b);
        if (device && host) {  // __host__ __device__: whichever side calls it, nvcc judges there
          k = close;
          continue;
        }
        Context inner = c;
        if (device && !c.device) {
          inner.device = true;
          inner.kind = "__device__";
        }
        scan(open, close, inner, out);
        k = close;
        continue;
      }
      if (t_[k].kind != Kind::ident) continue;
      const std::string_view w = text(k);
      if (unevaluated(w)) {
        k = punct(k + 1, '(') ? closing(k + 1, b) : k + 1;
        continue;
      }
      if (punct(k + 1, '(')) {
        const auto it = names_.find(std::string(w));
        // A macro's arguments may vanish in its expansion (DEBUG_ONLY(x), assert(x) under NDEBUG).
        if (w == "assert" || macro_like(w) || (it != names_.end() && (it->second & kMacroFn) != 0)) {
          k = closing(k + 1, b);
          continue;
        }
      }
      judge(k, c, out);
    }
  }

  /// Judges a launch of `name` (whose declarations are `what`) at `line`:`col`.
  static void judge_launch(const std::string& name, unsigned what, int line, int col, std::vector<SpaceError>& out) {
    if ((what & (kGlobalFn | kHostVar | kDeviceVar | kMacro | kOther)) != 0 || what == 0) return;
    if ((what & kHostFn) != 0) {
      out.push_back({line, col, "a host function call cannot be configured",
                     "only a __global__ function can be launched with <<<...>>>: declare it '__global__ void " + name +
                         "(...)'"});
    } else {
      out.push_back({line, col, "a __device__ function call cannot be configured",
                     "'" + name +
                         "' is a __device__ function, called from GPU code like any function; only a __global__ "
                         "function can be launched with <<<...>>>"});
    }
  }

  /// Judges the name at token `k` in context `c`.
  void judge(std::size_t k, const Context& c, std::vector<SpaceError>& out) const {
    const std::string name(text(k));
    if (reserved(name) || cuda_overloaded(name)) return;
    if (k > 0 && (is(k - 1, ".") || is(k - 1, "->") || is(k - 1, "::") || is(k - 1, "goto"))) return;
    if (is(k + 1, "::") || c.locals->count(name) != 0) return;
    const auto it = names_.find(name);
    if (it == names_.end()) return;
    const unsigned bits = it->second;
    const unsigned what = meaning(bits);
    std::size_t after = k + 1;
    if ((bits & kTemplate) != 0 && punct(after, '<') && !is_launch(after)) {
      const std::size_t close = closing(after, t_.size());
      if (close < t_.size()) after = close + 1;
    }
    const Token& tk = t_[k];
    if (punct(after, '<') && is_launch(after)) {
      judge_launch(name, what, tk.line, tk.col, out);
      return;
    }
    const bool call = punct(after, '(');
    if (call && what == kGlobalFn) {
      out.push_back(
          {tk.line, tk.col, "a __global__ function call must be configured",
           "a kernel runs as a grid of threads: launch it as " + name + "<<<blocks, threadsPerBlock>>>(arguments)"});
      return;
    }
    if (c.device && call && what == kHostFn) {
      out.push_back({tk.line, tk.col,
                     "calling a __host__ function(\"" + name + "\") from a " + c.kind + " function(\"" + c.function +
                         "\") is not allowed",
                     "'" + name +
                         "' runs on the CPU only: declare it __device__ (or __host__ __device__ to call it "
                         "from both sides)"});
      return;
    }
    if (!c.device && call && what == kDeviceFn) {
      out.push_back({tk.line, tk.col,
                     "calling a __device__ function(\"" + name + "\") from a __host__ function(\"" + c.function +
                         "\") is not allowed",
                     "'" + name + "' runs on the GPU only: call it from a kernel, or declare it __host__ __device__"});
      return;
    }
    const bool label = single_colon(k + 1) && k > 0 && (punct(k - 1, ';') || punct(k - 1, '{') || punct(k - 1, '}'));
    if (c.device && what == kHostVar && !label) {
      out.push_back({tk.line, tk.col, "identifier \"" + name + "\" is undefined in device code",
                     "'" + name +
                         "' is a host variable: the GPU cannot read it. Pass its value as a kernel argument, or "
                         "declare it __device__ or __constant__ (set from the host with cudaMemcpyToSymbol)"});
    }
  }

  std::string apply() {
    std::stable_sort(edits_.begin(), edits_.end(), [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
    std::string out;
    out.reserve(s_.size() + 256 * edits_.size());
    // Each output line as pieces, kept for the lines an edit touched (map_diagnostics' columns).
    rewritten_.clear();
    std::vector<ColumnPiece> pieces;
    int line = 1;
    int col = 1;     // in the output
    int source = 1;  // in the original, at `pos`
    int anchor = 0;  // the original's column where the current edit began, on this line
    bool touched = false;
    const auto put = [&](char ch, int from) {  // from: the original's column, 0 for the translator's text
      out += ch;
      if (ch == '\n') {
        if (touched) rewritten_[line] = pieces;
        pieces.clear();
        ++line;
        col = 1;
        touched = from == 0;  // the edit goes on into the next line
        anchor = 0;
        return;
      }
      ColumnPiece* last = pieces.empty() ? nullptr : &pieces.back();
      const bool extends = last != nullptr && (last->source_column == 0) == (from == 0) &&
                           (from == 0 ? last->anchor == anchor : last->source_column + last->length == from);
      if (extends) {
        ++last->length;
      } else {
        pieces.push_back({col, 1, from, from == 0 ? anchor : 0});
      }
      ++col;
    };
    const auto copy = [&](std::size_t from, std::size_t to) {
      for (std::size_t k = from; k < to; ++k) {
        put(s_[k], source);
        source = s_[k] == '\n' ? 1 : source + 1;
      }
    };
    std::size_t pos = 0;
    for (const Edit& e : edits_) {
      if (e.begin < pos) continue;  // overlapping edit: keep the first
      copy(pos, e.begin);
      touched = true;
      anchor = source;
      for (char ch : e.text) put(ch, 0);
      for (std::size_t k = e.begin; k < e.end; ++k) source = s_[k] == '\n' ? 1 : source + 1;
      pos = e.end;
    }
    copy(pos, s_.size());
    if (touched) rewritten_[line] = pieces;
    return out;
  }

  std::string_view s_;
  std::vector<Token> t_;
  std::vector<Edit> edits_;
  std::set<std::string> template_kernels_;
  std::map<std::string, std::string> substitutions_;
  bool macro_ = false;                                 // translating a #define's body
  std::set<std::string> params_;                       // that macro's parameters (stringized in the launch's text)
  std::map<std::string, unsigned> names_;              // Declarations::names: the module's, this file's added
  std::vector<Function> functions_;                    // every function definition, in order
  std::vector<MacroLaunch> macro_launches_;            // launches in #define bodies
  std::vector<bool> inactive_;                         // per token: under #if 0 or a __CUDA_ARCH__ conditional
  std::map<int, std::vector<ColumnPiece>> rewritten_;  // what apply() changed, by line
};

Translator::SpaceErrorList Translator::check_spaces() const {
  std::vector<SpaceError> out;
  for (const Function& f : functions_) {
    if (f.space != kHostFn && f.space != kDeviceFn && f.space != kGlobalFn) continue;
    if (f.templated && !used_elsewhere(f)) continue;  // never instantiated: nvcc checks nothing
    const std::set<std::string> locals = locally_declared(f.head, f.close);
    const Context c{f.space != kHostFn,
                    f.space == kGlobalFn   ? "__global__"
                    : f.space == kDeviceFn ? "__device__"
                                           : "__host__",
                    f.name, &locals};
    scan(f.open, f.close, c, out);
  }
  for (const MacroLaunch& m : macro_launches_) {
    if (inactive_[m.directive] || reserved(m.kernel) || cuda_overloaded(m.kernel)) continue;
    const auto it = names_.find(m.kernel);
    if (it == names_.end()) continue;
    bool used = false;
    for (std::size_t k = 0; k < t_.size() && !used; ++k) {
      used = t_[k].kind == Kind::ident && !inactive_[k] && text(k) == m.macro;
    }
    if (used) judge_launch(m.kernel, meaning(it->second), m.line, m.col, out);
  }
  std::sort(out.begin(), out.end(), [](const SpaceError& a, const SpaceError& b) {
    return std::tie(a.line, a.col, a.what) < std::tie(b.line, b.col, b.what);
  });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const SpaceError& a, const SpaceError& b) {
                          return a.line == b.line && a.col == b.col && a.what == b.what;
                        }),
            out.end());
  return out;
}

std::string quote_path(const std::string& path) {
  std::string r;
  for (char c : path) {
    if (c == '"' || c == '\\') r += '\\';
    r += c;
  }
  return r;
}

}  // namespace

Translation translate(std::string_view source, const std::string& filename, const TranslateOptions& options) {
  Translation result;
  try {
    Translator tr(source, Lexer(source).run(), options.known);
    std::string body = tr.run();
    if (options.check_spaces) {
      const auto errors = tr.check_spaces();
      if (!errors.empty()) {
        // Every one (as nvcc lists them), with a note on what to do; a long list is cut.
        constexpr std::size_t kMaxErrors = 20;
        for (std::size_t k = 0; k < errors.size() && k < kMaxErrors; ++k) {
          const std::string at = filename + ":" + std::to_string(errors[k].line) + ":" + std::to_string(errors[k].col);
          result.error += at + ": error: " + errors[k].what + "\n" + at + ": note: " + errors[k].note + "\n";
        }
        result.error.pop_back();
        return result;
      }
    }
    result.rewritten = tr.rewritten();
    if (options.prelude) result.text = "#include <cudalab_sim/prelude.hpp>\n";
    result.text += "#line 1 \"" + quote_path(filename) + "\"\n";
    result.text += body;
    if (!result.text.empty() && result.text.back() != '\n') result.text += '\n';
    result.declared = tr.declared();
    result.ok = true;
  } catch (const TranslateError& e) {
    result.error = filename + ":" + std::to_string(e.line) + ":" + std::to_string(e.col) + ": error: " + e.what();
  }
  return result;
}

std::vector<Translation> translate_module(const std::vector<SourceFile>& files) {
  std::vector<Translation> out;
  Declarations all;
  // A single file knows all it needs at once; in a module, the execution-space checks wait for
  // the second pass (a header's overload must be known before a call is judged).
  const bool alone = files.size() == 1;
  for (std::size_t f = 0; f < files.size(); ++f) {
    out.push_back(translate(files[f].text, files[f].name, {f == 0, {}, alone}));
    all.template_kernels.insert(out.back().declared.template_kernels.begin(),
                                out.back().declared.template_kernels.end());
    all.dynamic_shared.insert(out.back().declared.dynamic_shared.begin(), out.back().declared.dynamic_shared.end());
    for (const auto& [name, bits] : out.back().declared.names) all.names[name] |= bits;
  }
  if (alone) return out;
  // Again, each file knowing what all of them declare (the order of inclusion is not known here).
  for (std::size_t f = 0; f < files.size(); ++f) out[f] = translate(files[f].text, files[f].name, {f == 0, all});
  return out;
}

namespace {

/// The lines of `text`, without their '\n'.
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t from = 0;
  while (from < text.size()) {
    const std::size_t eol = text.find('\n', from);
    if (eol == std::string_view::npos) {
      out.push_back(text.substr(from));
      break;
    }
    out.push_back(text.substr(from, eol - from));
    from = eol + 1;
  }
  return out;
}

// GCC counts columns as displayed: a tab moves to the next multiple of 8, a UTF-8 character is one.
int display_to_byte(std::string_view line, int display) {
  int d = 1;
  std::size_t b = 0;
  for (; b < line.size() && d < display; ++b) {
    const auto c = static_cast<unsigned char>(line[b]);
    if ((c & 0xC0) == 0x80) continue;
    d = c == '\t' ? ((d - 1) / 8 + 1) * 8 + 1 : d + 1;
  }
  while (b < line.size() && (static_cast<unsigned char>(line[b]) & 0xC0) == 0x80) ++b;
  return static_cast<int>(b) + 1 + (display - d > 0 ? display - d : 0);
}
int byte_to_display(std::string_view line, int byte) {
  int d = 1;
  for (std::size_t b = 0; b + 1 < static_cast<std::size_t>(byte); ++b) {
    const auto c = b < line.size() ? static_cast<unsigned char>(line[b]) : ' ';
    if ((c & 0xC0) == 0x80) continue;
    d = c == '\t' ? ((d - 1) / 8 + 1) * 8 + 1 : d + 1;
  }
  return d;
}

bool is_word_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || digit(c) || c == '_'; }

/// Whether `word` occurs as a whole identifier in `text`.
bool has_word(std::string_view text, std::string_view word) {
  for (std::size_t p = text.find(word); p != std::string_view::npos; p = text.find(word, p + 1)) {
    const bool left = p == 0 || !is_word_char(text[p - 1]);
    const bool right = p + word.size() >= text.size() || !is_word_char(text[p + word.size()]);
    if (left && right) return true;
  }
  return false;
}

/// A source excerpt line of GCC's ("   12 | code"), or a caret/label/fix-it line ("      | ^~~").
bool excerpt_line(std::string_view l) {
  std::size_t k = 0;
  while (k < l.size() && l[k] == ' ') ++k;
  if (k == 0) return false;
  const std::size_t digits = k;
  while (k < l.size() && digit(l[k])) ++k;
  if (k == digits) return k < l.size() && l[k] == '|';
  return k + 1 < l.size() && l[k] == ' ' && l[k + 1] == '|';
}

/// `name:line:col:` at the start of `l`, for one of the module's files: the file's index.
int located(std::string_view l, const std::vector<SourceFile>& files, int& line, int& col, std::size_t& end) {
  for (std::size_t f = 0; f < files.size(); ++f) {
    const std::string& n = files[f].name;
    if (l.rfind(n, 0) != 0 || l.size() <= n.size() || l[n.size()] != ':') continue;
    std::size_t k = n.size() + 1;
    int nums[2] = {0, 0};
    int got = 0;
    for (; got < 2; ++got) {
      const std::size_t b = k;
      int v = 0;
      while (k < l.size() && digit(l[k])) v = v * 10 + (l[k++] - '0');
      if (k == b || k >= l.size() || l[k] != ':') break;
      nums[got] = v;
      ++k;
    }
    if (got < 2) continue;
    line = nums[0];
    col = nums[1];
    end = k;
    return static_cast<int>(f);
  }
  return -1;
}

/// The suggestion of "...; did you mean 'x'?" in `l` (GCC quotes as '' or ‘’): where the clause
/// starts and the name, or npos.
std::size_t did_you_mean(std::string_view l, std::string& name) {
  const std::size_t p = l.find("; did you mean ");
  if (p == std::string_view::npos) return p;
  std::size_t b = p + 15;
  if (l.substr(b, 3) == "\xE2\x80\x98") {
    b += 3;
  } else if (b < l.size() && l[b] == '\'') {
    ++b;
  } else {
    return std::string_view::npos;
  }
  std::size_t e = b;
  while (e < l.size() && is_word_char(l[e])) ++e;
  if (e == b) return std::string_view::npos;
  name = std::string(l.substr(b, e - b));
  return p;
}

/// Names CUDA's API uses, whose suggestion helps even when the file does not name them yet.
bool cuda_name(std::string_view n) {
  for (std::string_view p : {"cuda", "__sync", "__shfl", "atomic", "threadIdx", "blockIdx", "blockDim", "gridDim"}) {
    if (n.rfind(p, 0) == 0) return true;
  }
  return false;
}

}  // namespace

std::string map_diagnostics(std::string_view output, const std::vector<SourceFile>& files,
                            const std::vector<Translation>& translations) {
  // Each translated file's body lines (after its `#line 1`), and each original's lines.
  std::vector<std::vector<std::string_view>> translated(files.size());
  std::vector<std::vector<std::string_view>> original(files.size());
  for (std::size_t f = 0; f < files.size() && f < translations.size(); ++f) {
    std::string_view t = translations[f].text;
    const std::size_t l = t.find("#line 1 ");
    if (l != std::string_view::npos) t = t.substr(t.find('\n', l) + 1);
    translated[f] = split_lines(t);
    original[f] = split_lines(files[f].text);
  }
  const std::vector<std::string_view> in = split_lines(output);
  std::vector<std::string> out;
  std::string dropped_note;  // a "did you mean" name whose "declared here" note goes too
  for (std::size_t i = 0; i < in.size(); ++i) {
    std::string l(in[i]);
    // A "declared here" note for a suggestion that was dropped, with its excerpt and the
    // "In file included from" lines before it.
    if (!dropped_note.empty() && l.find("note: ") != std::string::npos && has_word(l, dropped_note) &&
        l.find("declared here") != std::string::npos) {
      const auto included_from = [](const std::string& o) {
        const std::size_t b = o.find_first_not_of(' ');
        return o.rfind("In file included from ", 0) == 0 ||
               (b > 0 && b != std::string::npos && o.compare(b, 5, "from ") == 0);
      };
      while (!out.empty() && included_from(out.back())) {
        out.pop_back();
      }
      while (i + 1 < in.size() && excerpt_line(in[i + 1])) ++i;
      continue;
    }
    std::string suggestion;
    const std::size_t clause = did_you_mean(l, suggestion);
    bool drop_fixit = false;
    if (clause != std::string_view::npos) {
      bool known = cuda_name(suggestion);
      for (const auto& f : files) known = known || has_word(f.text, suggestion);
      if (!known) {
        l.erase(clause, l.find('?', clause) + 1 - clause);
        dropped_note = suggestion;
        drop_fixit = true;
      }
    }
    int line = 0;
    int col = 0;
    std::size_t end = 0;
    const int f = located(l, files, line, col, end);
    const bool rewritten = f >= 0 && translations[static_cast<std::size_t>(f)].rewritten.count(line) != 0;
    if (!rewritten) {
      out.push_back(l);
      // The fix-it line under the caret names the dropped suggestion.
      if (drop_fixit) {
        for (std::size_t k = i + 1; k < in.size() && excerpt_line(in[k]); ++k) {
          const std::string_view e = in[k];
          const std::size_t bar = e.find('|');
          const std::string_view after = e.substr(bar + 1);
          const std::size_t w = after.find_first_not_of(' ');
          if (w != std::string_view::npos && after.substr(w) == suggestion) {
            for (std::size_t q = i + 1; q < k; ++q) out.emplace_back(in[q]);
            i = k;
            break;
          }
        }
      }
      continue;
    }
    // A rewritten line: the column in the original, if it was copied from there.
    const auto uf = static_cast<std::size_t>(f);
    const auto& pieces = translations[uf].rewritten.at(line);
    const std::string_view tline = static_cast<std::size_t>(line) <= translated[uf].size()
                                       ? translated[uf][static_cast<std::size_t>(line) - 1]
                                       : std::string_view();
    const std::string_view oline = static_cast<std::size_t>(line) <= original[uf].size()
                                       ? original[uf][static_cast<std::size_t>(line) - 1]
                                       : std::string_view();
    const int byte = display_to_byte(tline, col);
    int mapped = 0;  // byte column in the original; 0: not known (the column is dropped)
    int room = 0;    // bytes of the copied piece from there on
    for (const ColumnPiece& p : pieces) {
      if (byte >= p.column && byte < p.column + p.length) {
        if (p.source_column != 0) {
          mapped = p.source_column + (byte - p.column);
          room = p.column + p.length - byte;
        } else {
          mapped = p.anchor;  // the start of what was rewritten (a launch: its kernel's name)
        }
        break;
      }
    }
    if (!pieces.empty() && byte >= pieces.back().column + pieces.back().length && pieces.back().source_column != 0) {
      mapped = pieces.back().source_column + (byte - pieces.back().column);  // at or past the line's end
      room = 1;
    }
    const std::string prefix = l.substr(0, end - std::to_string(col).size() - 1);  // "name:line:"
    const std::string rest = l.substr(end);
    const int shown_col = mapped == 0 ? 0 : byte_to_display(oline, mapped);
    out.push_back(mapped == 0 ? prefix + rest : prefix + std::to_string(shown_col) + ":" + rest);
    // Its excerpt: the original line, and a caret where the column now is (GCC drew the caret for
    // the translated column; its labels and fix-its described the translated text).
    std::size_t k = i + 1;
    std::string bar_prefix;
    std::string caret;
    for (; k < in.size() && excerpt_line(in[k]); ++k) {
      const std::string_view e = in[k];
      const std::size_t bar = e.find('|');
      if (bar_prefix.empty() && e.substr(0, bar).find_first_not_of(' ') != std::string_view::npos) {
        bar_prefix = std::string(e.substr(0, bar + 1));
      } else if (caret.empty()) {
        caret = std::string(e.substr(bar + 1));
      }
    }
    if (!bar_prefix.empty()) {
      std::string shown_line;  // as GCC shows it: tabs expanded, so that the caret lines up
      for (char ch : oline) {
        if (ch == '\t') {
          shown_line.append(8 - (byte_to_display(shown_line, static_cast<int>(shown_line.size()) + 1) - 1) % 8, ' ');
        } else {
          shown_line += ch;
        }
      }
      out.push_back(bar_prefix + " " + shown_line);
      if (mapped != 0) {
        std::size_t tildes = 0;
        const std::size_t c = caret.find('^');
        if (c != std::string::npos) {
          while (c + 1 + tildes < caret.size() && caret[c + 1 + tildes] == '~') ++tildes;
        }
        tildes = std::min<std::size_t>(tildes, room > 0 ? static_cast<std::size_t>(room - 1) : 0);
        out.push_back(std::string(bar_prefix.size() - 1, ' ') + "| " + std::string(shown_col - 1, ' ') + "^" +
                      std::string(tildes, '~'));
      }
    }
    i = k - 1;
  }
  std::string r;
  for (const auto& l : out) r += l + "\n";
  if (!output.empty() && output.back() != '\n' && !r.empty()) r.pop_back();
  return r;
}

}  // namespace cudalab::sim
