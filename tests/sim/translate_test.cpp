// The simulator's pre-pass: launches in every form, decoys in strings and comments, extern shared
// arrays, static shared notes, and line preservation.
#include "translate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace cudalab::sim {
namespace {

/// The translated body, without the two header lines the translator prepends.
std::string body(const std::string& src) {
  const Translation t = translate(src, "k.cu");
  EXPECT_TRUE(t.ok) << t.error;
  EXPECT_EQ(t.text.rfind("#include <cudalab_sim/prelude.hpp>\n#line 1 \"k.cu\"\n", 0), 0u);
  const std::size_t second = t.text.find('\n', t.text.find('\n') + 1);
  return t.text.substr(second + 1);
}

std::size_t lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

/// Line number (1-based) of the first occurrence of `what` in `s`.
std::size_t line_of(const std::string& s, const std::string& what) {
  const std::size_t p = s.find(what);
  EXPECT_NE(p, std::string::npos) << what << " not in:\n" << s;
  return 1 + std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(p), '\n');
}

constexpr const char* kLambda = "[&](auto&... cudalab_sim_args) { ";

TEST(SimTranslate, SimpleLaunch) {
  EXPECT_EQ(body("void f(int* d) { k<<<g, b>>>(d, 3); }\n"),
            std::string("void f(int* d) { ::cudalab_sim::launch(\"k\", \"d, 3\", ::cudalab_sim::kernel_address(k), ") +
                kLambda + "k(cudalab_sim_args...); }, ::cudalab_sim::config(g, b), d, 3); }\n");
}

TEST(SimTranslate, FourPartConfigAndNoArguments) {
  const std::string out = body("void f() { k<<<g, b, 128, s>>>(); }\n");
  EXPECT_NE(out.find("::cudalab_sim::config(g, b, 128, s))"), std::string::npos) << out;
  EXPECT_EQ(out.find("config(g, b, 128, s),"), std::string::npos) << out;
}

TEST(SimTranslate, TemplatedKernelWithCommasAndExpressions) {
  const std::string out =
      body("void f() { ns::k<float, 4><<<dim3(n / 2, (m > 1) ? m : 1), f(a, b)>>>(x, h(y, z)); }\n");
  EXPECT_NE(out.find("launch(\"ns::k<float, 4>\", \"x, h(y, z)\", ::cudalab_sim::kernel_address(ns::k<float, 4>)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("ns::k<float, 4>(cudalab_sim_args...)"), std::string::npos) << out;
  EXPECT_NE(out.find("config(dim3(n / 2, (m > 1) ? m : 1), f(a, b)), x, h(y, z));"), std::string::npos) << out;
}

TEST(SimTranslate, DeducedTemplateKernelHasNoAddress) {
  const std::string out = body(
      "template <typename T> __global__ void add(T* p, T v) {}\n"
      "void f(float* p) { add<<<1, 32>>>(p, 1.0f); add<float><<<1, 32>>>(p, 2.0f); }\n");
  EXPECT_NE(out.find("launch(\"add\", \"p, 1.0f\", nullptr,"), std::string::npos) << out;
  EXPECT_NE(out.find("launch(\"add<float>\", \"p, 2.0f\", ::cudalab_sim::kernel_address(add<float>)"),
            std::string::npos)
      << out;
}

TEST(SimTranslate, ShiftsAndNestedTemplatesAreNotLaunches) {
  const std::string src =
      "std::vector<std::vector<std::vector<int>>> v;\n"
      "int x = a << b, y = c >> 2, z = (a<<<3);\n"  // not valid C++ launch: no kernel call follows
      "friend std::ostream& operator<<<>(std::ostream&, const X&);\n";
  // `(a<<<3)` has no `>>>`: an error, reported with its position.
  const Translation t = translate(src, "k.cu");
  EXPECT_FALSE(t.ok);
  EXPECT_NE(t.error.find("k.cu:2:"), std::string::npos) << t.error;
  const std::string ok_src =
      "std::vector<std::vector<std::vector<int>>> v;\n"
      "int x = a << b, y = c >> 2;\n"
      "friend std::ostream& operator<<<>(std::ostream&, const X&);\n";
  EXPECT_EQ(body(ok_src), ok_src);
}

TEST(SimTranslate, StringsCommentsAndDirectivesAreLeftAlone) {
  const std::string src =
      "#define LAUNCH_TEXT \"k<<<1, 1>>>()\"\n"
      "const char* s = \"k<<<1, 1>>>(d);\";\n"
      "const char* r = R\"xy(k<<<1, 1>>>(d); )\" still raw)xy\";\n"
      "char c = '<'; char q = '\\'';\n"
      "// k<<<1, 1>>>(d);\n"
      "/* k<<<1, 1>>>(d);\n   still a comment */\n"
      "const wchar_t* w = L\"<<<\";\n";
  EXPECT_EQ(body(src), src);
}

TEST(SimTranslate, ExternSharedInFunctionBecomesAPointer) {
  const std::string out = body(
      "__global__ void k() {\n"
      "  extern __shared__ __align__(16) unsigned char smem[];\n"
      "  smem[0] = 1;\n"
      "}\n");
  EXPECT_NE(out.find("unsigned char* const smem = static_cast<unsigned char*>(::cudalab_sim::dynamic_shared());"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  smem[0] = 1;"), std::string::npos) << out;
}

TEST(SimTranslate, ExternSharedAtNamespaceScopeIsSubstituted) {
  const std::string out = body(
      "extern __shared__ float sdata[];\n"
      "struct S { float sdata; };\n"
      "__global__ void k(S s) {\n"
      "  sdata[threadIdx.x] = s.sdata;\n"
      "}\n");
  EXPECT_EQ(out.find("extern"), std::string::npos) << out;
  EXPECT_NE(out.find("(static_cast<float*>(::cudalab_sim::dynamic_shared()))[threadIdx.x] = s.sdata;"),
            std::string::npos)
      << out;
  EXPECT_EQ(lines(out), 5u);
}

TEST(SimTranslate, StaticSharedIsNotedInFunctionsAndRegisteredAtNamespaceScope) {
  const std::string out = body(
      "__shared__ int file_scope[4], other;\n"
      "template <class T> __shared__ T templated;\n"
      "__global__ void k() {\n"
      "  __shared__ float a[16][16], b;\n"
      "  __shared__ typename Foo<int, 2>::type c;\n"
      "  volatile __shared__ __align__(16) int d[8];\n"
      "}\n"
      "auto f = [] { __shared__ int in_lambda; };\n");
  EXPECT_NE(out.find("__shared__ int file_scope[4], other; CUDALAB_SIM_NAMESPACE_SHARED(file_scope); "
                     "CUDALAB_SIM_NAMESPACE_SHARED(other);\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("template <class T> __shared__ T templated;\n"), std::string::npos) << out;  // not attempted
  // In functions, each variable is renamed to its storage and declared again as a reference to it.
  EXPECT_NE(out.find("__shared__ float cudalab_sim_shared_a[16][16], cudalab_sim_shared_b; "
                     "CUDALAB_SIM_SHARED(a, cudalab_sim_shared_a); CUDALAB_SIM_SHARED(b, cudalab_sim_shared_b);"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("::type cudalab_sim_shared_c; CUDALAB_SIM_SHARED(c, cudalab_sim_shared_c);"), std::string::npos)
      << out;
  EXPECT_NE(out.find("int cudalab_sim_shared_d[8]; CUDALAB_SIM_SHARED(d, cudalab_sim_shared_d);"), std::string::npos)
      << out;
  EXPECT_NE(out.find("cudalab_sim_shared_in_lambda; CUDALAB_SIM_SHARED(in_lambda, cudalab_sim_shared_in_lambda);"),
            std::string::npos)
      << out;
  EXPECT_EQ(lines(out), 8u);
}

// Local arrays of device code declared without an initializer are noted for the checked build
// (which names a read of a slot never written); initialised ones, host code's, expressions, local
// types' members and declarations that are not plain are left alone. Lines stay where they were.
TEST(SimTranslate, LocalArraysOfDeviceCodeAreNoted) {
  const std::string out = body(
      "__device__ float pick(int i) { float w[9]; float* p[2], q[3][4]; return w[i]; }\n"
      "template <int N> __global__ void k(float* out) {\n"
      "  float window[N]; window[0] = 1.f; float done[3] = {};\n"
      "  for (int i = 0; i < 2; ++i) { unsigned int t[2]; out[i] = t[0]; }\n"
      "  struct S { float member[4]; };\n"
      "  if (out) float lone[2];\n"
      "  static float kept[2]; const float c[1] = {1.f}; float a[2], b;\n"
      "}\n"
      "void host() { float h[4]; (void)h; }\n");
  EXPECT_NE(out.find("float w[9]; CUDALAB_SIM_LOCAL(w);"), std::string::npos) << out;
  EXPECT_NE(out.find("float* p[2], q[3][4]; CUDALAB_SIM_LOCAL(p); CUDALAB_SIM_LOCAL(q);"), std::string::npos) << out;
  EXPECT_NE(out.find("float window[N]; CUDALAB_SIM_LOCAL(window); window[0] = 1.f; float done[3] = {};\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("unsigned int t[2]; CUDALAB_SIM_LOCAL(t);"), std::string::npos) << out;
  for (const char* left : {"member", "lone", "kept", "(c)", "(a)", "(h)", "(done)"}) {
    EXPECT_EQ(out.find(std::string("CUDALAB_SIM_LOCAL") + (left[0] == '(' ? "" : "(") + left), std::string::npos)
        << left << " should be left alone:\n"
        << out;
  }
  EXPECT_EQ(lines(out), 9u);
}

TEST(SimTranslate, ManagedVariablesAreRegistered) {
  const std::string out = body(
      "__device__ __managed__ int counter = 0, table[4];\n"
      "extern __managed__ int elsewhere;\n"
      "void f() { __managed__ int not_at_namespace_scope; }\n");
  EXPECT_NE(out.find("table[4]; CUDALAB_SIM_MANAGED_VARIABLE(counter); CUDALAB_SIM_MANAGED_VARIABLE(table);\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("extern __managed__ int elsewhere;\n"), std::string::npos) << out;
  EXPECT_NE(out.find("not_at_namespace_scope; }\n"), std::string::npos) << out;
}

TEST(SimTranslate, ConstantDefinitionsArePlacedAndRegistered) {
  const std::string out = body(
      "__constant__ float c[8], scale = 1.0f;\n"
      "static __constant__ int table[3] = {1, 2, 3};\n"
      "extern __constant__ float elsewhere[4];\n"
      "__constant__ const float fixed[2] = {1, 2};\n");
  EXPECT_NE(out.find("__constant__ CUDALAB_SIM_CONSTANT_PLACE float c[8], scale = 1.0f; "
                     "CUDALAB_SIM_CONSTANT_VARIABLE(c); CUDALAB_SIM_CONSTANT_VARIABLE(scale);\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("static __constant__ CUDALAB_SIM_CONSTANT_PLACE int table[3] = {1, 2, 3}; "
                     "CUDALAB_SIM_CONSTANT_VARIABLE(table);\n"),
            std::string::npos)
      << out;
  // A declaration is registered where it is defined; a read-only one cannot share the section.
  EXPECT_NE(out.find("extern __constant__ float elsewhere[4];\n"), std::string::npos) << out;
  EXPECT_NE(out.find("__constant__ const float fixed[2] = {1, 2};\n"), std::string::npos) << out;
}

TEST(SimTranslate, LaunchArgumentTextIsOneEscapedLine) {
  const std::string out = body(
      "void f() {\n"
      "  k<<<1, 1>>>(p,\n"
      "              \"a\\\"b\", '\\\\');\n"
      "  k<<<1, 1>>>();\n"
      "}\n");
  EXPECT_NE(out.find(R"(launch("k", "p, \"a\\\"b\", '\\\\'", )"), std::string::npos) << out;
  EXPECT_NE(out.find(R"(launch("k", "", )"), std::string::npos) << out;
  EXPECT_EQ(lines(out), 5u);
}

TEST(SimTranslate, LinesArePreserved) {
  const std::string src =
      "__global__ void k(int* p) {}\n"  // 1
      "void f(int* d) {\n"              // 2
      "  k\n"                           // 3
      "   <<<\n"                        // 4
      "     1,\n"                       // 5
      "     2>>>\n"                     // 6
      "   (d);\n"                       // 7
      "  int marker_after = 0;\n"       // 8
      "  k<<<1, 1>>>(d\n"               // 9
      "     , d_marker);\n"             // 10
      "  extern __shared__\n"           // 11
      "     float s[];\n"               // 12
      "  int marker_end = 0;\n"         // 13
      "}\n";
  const std::string out = body(src);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_EQ(line_of(out, "marker_after"), 8u);
  EXPECT_EQ(line_of(out, "d_marker);"), 10u);  // not its copy in the argument text
  EXPECT_EQ(line_of(out, "marker_end"), 13u);
  EXPECT_EQ(line_of(out, "2)"), 6u);  // the config keeps its lines
}

TEST(SimTranslate, LaunchInADefineBodyIsRewrittenInTheBody) {
  const std::string src =
      "#define LAUNCH(k, n) k<<<((n) + 255) / 256, 256>>>(d, n)\n"  // 1
      "void f(int* d, int n) { LAUNCH(add_one, n); }\n";            // 2
  const std::string out = body(src);
  // The kernel's and the arguments' text stringize the parameters: messages name what LAUNCH got.
  EXPECT_EQ(
      out.substr(0, out.find('\n') + 1),
      std::string("#define LAUNCH(k, n) ::cudalab_sim::launch(#k, \"d, \" #n, ::cudalab_sim::kernel_address(k), ") +
          kLambda + "k(cudalab_sim_args...); }, ::cudalab_sim::config(((n) + 255) / 256, 256), d, n)\n");
  EXPECT_NE(out.find("{ LAUNCH(add_one, n); }\n"), std::string::npos) << out;  // the use is left to the macro
  EXPECT_EQ(lines(out), lines(src));
}

TEST(SimTranslate, MultiLineDefineKeepsItsContinuations) {
  const std::string src =
      "template <class T> __global__ void scale(T* p, T f);\n"  // 1
      "#define RUN(k, grid, ...) \\\n"                          // 2
      "  k<<<grid, /* a comment */ \\\n"                        // 3
      "      32>>>(__VA_ARGS__)\n"                              // 4
      "#define PLAIN \\\n"                                      // 5
      "  scale<float><<<1, 1>>>(p, 2.0f)\n"                     // 6
      "int marker_after = 0;\n";                                // 7
  const std::string out = body(src);
  EXPECT_EQ(lines(out), lines(src));
  EXPECT_EQ(line_of(out, "marker_after"), 7u);
  EXPECT_EQ(line_of(out, "32)"), 4u) << out;  // the configuration keeps its line
  // Every line of a body but its last still ends with a continuation.
  std::size_t from = out.find("#define RUN");
  for (const bool continued : {true, true, false, true}) {
    const std::size_t eol = out.find('\n', from);
    ASSERT_NE(eol, std::string::npos);
    EXPECT_EQ(out[eol - 1] == '\\', continued) << out.substr(from, eol - from);
    from = eol + 1;
  }
  // A template kernel may come through `k`: no address (it would need template arguments).
  EXPECT_NE(out.find("launch(#k, #__VA_ARGS__, nullptr, "), std::string::npos) << out;
  // An empty __VA_ARGS__ must not leave a comma behind.
  EXPECT_NE(out.find("32) __VA_OPT__(,) __VA_ARGS__)"), std::string::npos) << out;
  // No parameters: the text as written, and the address of the explicit specialisation.
  EXPECT_NE(out.find("launch(\"scale<float>\", \"p, 2.0f\", ::cudalab_sim::kernel_address(scale<float>)"),
            std::string::npos)
      << out;
}

TEST(SimTranslate, DefinesWithoutALaunchAndIncompleteLaunchesInDefines) {
  const std::string untouched =
      "#define SHIFT(a) ((a) << 3)\n"
      "#define MSG \"k<<<1, 1>>>(d)\" // k<<<1, 1>>>(d)\n"
      "#define APOSTROPHE '\n"  // unbalanced quote, in a directive without '<<<': not looked at
      "#if 0 /* k<<<1, 1>>>(d) */\n#endif\n";
  EXPECT_EQ(body(untouched), untouched);
  // A configuration macro (`k CONFIG(args)`) cannot be rewritten: an error at its line, saying why.
  Translation t = translate("int a;\n#define CONFIG <<<1, 32>>>\n", "k.cu");
  EXPECT_FALSE(t.ok);
  EXPECT_EQ(t.error.rfind("k.cu:2:16: error: '<<<' without a kernel before it", 0), 0u) << t.error;
  EXPECT_NE(t.error.find("in the macro's body"), std::string::npos) << t.error;
  t = translate("#define HALF(k) \\\n  k<<<1, 32>>>\n", "k.cu");
  EXPECT_FALSE(t.ok);
  EXPECT_EQ(t.error.rfind("k.cu:2:", 0), 0u) << t.error;
}

TEST(SimTranslate, HeadersHaveNoPreludeAndShareDeclarationsWithTheModule) {
  const std::vector<Translation> out =
      translate_module({{"dir/k.cu", "#include \"h.cuh\"\nvoid f(float* p) { fill<<<1, 32>>>(p, 1.0f); }\n"},
                        {"/abs/dir/h.cuh",
                         "#pragma once\n"
                         "template <class T> __global__ void fill(T* p, T v) { p[threadIdx.x] = v; }\n"
                         "extern __shared__ float smem[];\n"
                         "#define LAUNCH_FILL(p) fill<<<1, 32>>>(p, smem[0])\n"}});
  ASSERT_EQ(out.size(), 2u);
  ASSERT_TRUE(out[0].ok) << out[0].error;
  ASSERT_TRUE(out[1].ok) << out[1].error;
  EXPECT_EQ(out[0].text.rfind("#include <cudalab_sim/prelude.hpp>\n#line 1 \"dir/k.cu\"\n", 0), 0u) << out[0].text;
  EXPECT_EQ(out[1].text.rfind("#line 1 \"/abs/dir/h.cuh\"\n#pragma once\n", 0), 0u) << out[1].text;
  EXPECT_EQ(out[1].text.find("prelude"), std::string::npos) << out[1].text;
  // The .cu file knows `fill` is a template (declared in the header): a deduced launch has no address.
  EXPECT_NE(out[0].text.find("launch(\"fill\", \"p, 1.0f\", nullptr, "), std::string::npos) << out[0].text;
  // The header's macro body sees its own namespace-scope extern __shared__ array.
  EXPECT_NE(out[1].text.find("config(1, 32), p, (static_cast<float*>(::cudalab_sim::dynamic_shared()))[0])\n"),
            std::string::npos)
      << out[1].text;
  EXPECT_EQ(out[0].declared.template_kernels.count("fill"), 1u);
  // An error in a header names the header.
  const std::vector<Translation> bad = translate_module({{"k.cu", "int a;\n"}, {"h.cuh", "\n  k<<<1, 1>>>;\n"}});
  EXPECT_TRUE(bad[0].ok);
  EXPECT_FALSE(bad[1].ok);
  EXPECT_EQ(bad[1].error.rfind("h.cuh:2:", 0), 0u) << bad[1].error;
}

TEST(SimTranslate, ErrorsNameFileLineAndColumn) {
  Translation t = translate("void f() {\n  k<<<1, 1(d);\n}\n", "dir/kernel.cu");
  EXPECT_FALSE(t.ok);
  EXPECT_EQ(t.error.rfind("dir/kernel.cu:2:4: error:", 0), 0u) << t.error;
  t = translate("void f() {\n  k<<<1, 1>>>;\n}\n", "kernel.cu");
  EXPECT_FALSE(t.ok);
  EXPECT_NE(t.error.find("expected '('"), std::string::npos) << t.error;
  t = translate("const char* s = \"unterminated;\n", "kernel.cu");
  EXPECT_FALSE(t.ok);
  EXPECT_EQ(t.error.rfind("kernel.cu:1:17: error:", 0), 0u) << t.error;
}

}  // namespace
}  // namespace cudalab::sim

namespace cudalab::sim {
namespace {

// A prelude macro for __noinline__ would break libstdc++ 13's own __attribute__((__noinline__)),
// so the translator rewrites the student's uses instead; strings keep the word.
TEST(SimTranslate, NoinlineBecomesAnAttributeOutsideStrings) {
  EXPECT_EQ(body("__device__ __noinline__ int f() { return 1; } const char* s = \"__noinline__\";\n"),
            "__device__ __attribute__((noinline)) int f() { return 1; } const char* s = \"__noinline__\";\n");
}

}  // namespace
}  // namespace cudalab::sim
