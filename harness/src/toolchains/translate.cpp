// The simulator's pre-pass (see translate.hpp): a C++ tokenizer, a light scope tracker, and a
// list of non-overlapping edits applied to the original text.
#include "translate.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
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
      : s_(src), t_(std::move(toks)), template_kernels_(known.template_kernels), substitutions_(known.dynamic_shared) {}

  std::string run() {
    collect_template_kernels();
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
  Declarations declared() const { return {template_kernels_, substitutions_}; }

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
        if (id != "__shared__" && id != "__managed__" && id != "__device__" && id != "volatile" && id != "const") {
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

  std::string apply() {
    std::stable_sort(edits_.begin(), edits_.end(), [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
    std::string out;
    out.reserve(s_.size() + 256 * edits_.size());
    std::size_t pos = 0;
    for (const Edit& e : edits_) {
      if (e.begin < pos) continue;  // overlapping edit: keep the first
      out.append(s_.substr(pos, e.begin - pos));
      out += e.text;
      pos = e.end;
    }
    out.append(s_.substr(pos));
    return out;
  }

  std::string_view s_;
  std::vector<Token> t_;
  std::vector<Edit> edits_;
  std::set<std::string> template_kernels_;
  std::map<std::string, std::string> substitutions_;
  bool macro_ = false;            // translating a #define's body
  std::set<std::string> params_;  // that macro's parameters (stringized in the launch's text)
};

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
  for (std::size_t f = 0; f < files.size(); ++f) {
    out.push_back(translate(files[f].text, files[f].name, {f == 0, {}}));
    all.template_kernels.insert(out.back().declared.template_kernels.begin(),
                                out.back().declared.template_kernels.end());
    all.dynamic_shared.insert(out.back().declared.dynamic_shared.begin(), out.back().declared.dynamic_shared.end());
  }
  if (all.template_kernels.empty() && all.dynamic_shared.empty()) return out;
  // Again, each file knowing what all of them declare (the order of inclusion is not known here).
  for (std::size_t f = 0; f < files.size(); ++f) out[f] = translate(files[f].text, files[f].name, {f == 0, all});
  return out;
}

}  // namespace cudalab::sim
