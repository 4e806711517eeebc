// The translator's execution-space checks (what nvcc rejects and g++ cannot know): each rule with
// nvcc's words at the student's line and column, the traps that must stay quiet, the whole corpus
// of kernels that compile today, and map_diagnostics' columns and suggestions.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "translate.hpp"

namespace cudalab::sim {
namespace {

namespace fs = std::filesystem;

/// The translator's error for `src` (empty when it translates).
std::string error_of(const std::string& src) {
  const Translation t = translate(src, "k.cu");
  return t.ok ? std::string() : t.error;
}

/// Expects `src` to translate without an error.
#define EXPECT_ACCEPTED(src)                            \
  do {                                                  \
    const std::string e = error_of(src);                \
    EXPECT_TRUE(e.empty()) << e << "\nfor:\n" << (src); \
  } while (0)

// ---- 1. a launch of a function that is not __global__ ----

TEST(SimExecutionSpace, LaunchOfAHostFunctionIsRejected) {
  const std::string e = error_of(
      "void increment(int* d, int n) { d[0] += n; }\n"
      "void solve(int* d, int n) {\n"
      "  increment<<<1, 32>>>(d, n);\n"
      "}\n");
  EXPECT_EQ(e.rfind("k.cu:3:3: error: a host function call cannot be configured\n", 0), 0u) << e;
  EXPECT_NE(e.find("k.cu:3:3: note: only a __global__ function can be launched"), std::string::npos) << e;
}

TEST(SimExecutionSpace, LaunchOfADeviceFunctionIsRejected) {
  const std::string e = error_of(
      "__device__ void inc(int* d) { d[0] += 1; }\n"
      "__host__ __device__ void both(int* d) {}\n"
      "void solve(int* d) { inc<<<1, 1>>>(d); both<<<1, 1>>>(d); }\n");
  EXPECT_NE(e.find("k.cu:3:22: error: a __device__ function call cannot be configured"), std::string::npos) << e;
  EXPECT_NE(e.find("k.cu:3:40: error: a __device__ function call cannot be configured"), std::string::npos) << e;
}

TEST(SimExecutionSpace, LaunchInAUsedMacroOfAHostFunctionIsRejected) {
  const std::string src =
      "void inc(int* d) {}\n"
      "#define RUN(d) inc<<<1, 32>>>(d)\n"
      "void solve(int* d) { RUN(d); }\n";
  EXPECT_EQ(error_of(src).rfind("k.cu:2:16: error: a host function call cannot be configured", 0), 0u) << error_of(src);
  // Never expanded: nvcc never sees the launch.
  EXPECT_ACCEPTED(std::string("void inc(int* d) {}\n#define RUN(d) inc<<<1, 32>>>(d)\n"));
  // The kernel is the macro's parameter: judged nowhere.
  EXPECT_ACCEPTED(
      std::string("void inc(int* d) {}\n__global__ void k(int* d) {}\n#define RUN(f, d) f<<<1, 32>>>(d)\n"
                  "void solve(int* d) { RUN(k, d); }\n"));
}

TEST(SimExecutionSpace, LaunchesOfKernelsPointersAndUnknownNamesAreAccepted) {
  EXPECT_ACCEPTED(
      std::string("__global__ void k(int* d) {}\n"
                  "template <class T> __global__ void t(T* d) {}\n"
                  "namespace ns { __global__ void q(int*) {} }\n"
                  "void solve(int* d) {\n"
                  "  k<<<1, 1>>>(d); t<<<1, 1>>>(d); t<int><<<1, 1>>>(d); ns::q<<<1, 1>>>(d);\n"
                  "  void (*fp)(int*) = k; fp<<<1, 1>>>(d);\n"
                  "  from_a_header<<<1, 1>>>(d);\n"
                  "  (k)<<<1, 1>>>(d);\n"
                  "}\n"));
  // A host wrapper of the kernel's name (an overload) is not judged.
  EXPECT_ACCEPTED(
      std::string("__global__ void add(float* a, int n) {}\n"
                  "void add(float* a, int n, int blocks) { add<<<blocks, 256>>>(a, n); }\n"));
}

// ---- 2. a host function called from device code ----

TEST(SimExecutionSpace, HostFunctionCalledFromAKernelIsRejected) {
  const std::string e = error_of(
      "#include <cuda_runtime.h>\n"
      "float twice(float x) { return 2 * x; }\n"
      "__host__ float thrice(float x) { return 3 * x; }\n"
      "__global__ void scale(float* p, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) p[i] = twice(p[i]);\n"
      "}\n"
      "__device__ float helper(float x) { return thrice(x); }\n");
  EXPECT_EQ(e.rfind("k.cu:6:21: error: calling a __host__ function(\"twice\") from a __global__ function(\"scale\") "
                    "is not allowed\n",
                    0),
            0u)
      << e;
  EXPECT_NE(e.find("k.cu:8:43: error: calling a __host__ function(\"thrice\") from a __device__ function(\"helper\") "
                   "is not allowed"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("note: 'twice' runs on the CPU only"), std::string::npos) << e;
}

TEST(SimExecutionSpace, HostFunctionInADeviceLambdaIsRejectedAndInAHostLambdaIsNot) {
  const std::string e = error_of(
      "int host_only(int x) { return x; }\n"
      "__global__ void k(int* p) {\n"
      "  auto f = [&](int v) { return host_only(v); };\n"
      "  p[0] = f(1);\n"
      "}\n");
  EXPECT_EQ(e.rfind("k.cu:3:32: error: calling a __host__ function(\"host_only\")", 0), 0u) << e;
  EXPECT_ACCEPTED(
      std::string("int host_only(int x) { return x; }\n"
                  "void solve() { auto f = [](int v) { return host_only(v); }; f(1); }\n"));
}

TEST(SimExecutionSpace, CallsThatAreNotJudged) {
  // Overloads callable from device code, __host__ __device__ and constexpr functions, shadows,
  // members, and names the file does not define.
  EXPECT_ACCEPTED(
      std::string("#include <cstdio>\n"
                  "float f(float x) { return x; }\n"
                  "__device__ double f(double x) { return x; }\n"
                  "__host__ __device__ int both(int x) { return x; }\n"
                  "constexpr int cx(int x) { return x * 2; }\n"
                  "static inline __device__ __forceinline__ int fi(int x) { return x; }\n"
                  "int shadowed(int x) { return x; }\n"
                  "int member(int x) { return x; }\n"
                  "struct S { __device__ int member(int x) const { return x; } };\n"
                  "float max(float a, float b) { return a > b ? a : b; }\n"
                  "__global__ void k(float* p, S s) {\n"
                  "  auto shadowed = [](int v) { return v; };\n"
                  "  p[0] = f(1.0) + both(1) + cx(2) + fi(3) + shadowed(4) + s.member(5);\n"
                  "  p[1] = sqrtf(p[0]) + max(1.f, 2.f) + __float2int_rn(2.f);\n"
                  "  printf(\"%f\\n\", p[0]);\n"
                  "}\n"));
  // Where nvcc never compiles the call for the device: a template never instantiated, an
  // unevaluated operand, code for the host only, code never compiled. The same call outside them
  // is judged (the check can fail).
  const std::string quiet =
      "int g(int x) { return x; }\n"
      "template <class T> __global__ void never(T* p) { p[0] = g(1); }\n"
      "__global__ void k(int* p) {\n"
      "  p[2] = sizeof(g(1));\n"
      "#ifndef __CUDA_ARCH__\n"
      "  p[3] = g(1);\n"
      "#endif\n"
      "#if 0\n"
      "  p[4] = g(2);\n"
      "#endif\n";
  EXPECT_ACCEPTED(quiet + "}\n");
  EXPECT_EQ(error_of(quiet + "  p[5] = g(3);\n}\n").rfind("k.cu:11:10: error: calling a __host__ function(\"g\")", 0),
            0u)
      << error_of(quiet + "  p[5] = g(3);\n}\n");
  // The template, once launched, is instantiated: its call is judged.
  EXPECT_NE(error_of(quiet + "}\nvoid solve(int* p) { never<<<1, 1>>>(p); }\n").find("k.cu:2:57: error: calling a"),
            std::string::npos)
      << error_of(quiet + "}\nvoid solve(int* p) { never<<<1, 1>>>(p); }\n");
  // A name that is also a function-like macro, and a macro in the declaration's specifiers.
  EXPECT_ACCEPTED(
      std::string("#define HD __host__ __device__\n"
                  "#define DEBUG_ONLY(x)\n"
                  "int log_it(int x) { return x; }\n"
                  "HD int helper(int x) { return x; }\n"
                  "__global__ void k(int* p) { p[0] = helper(1); DEBUG_ONLY(log_it(p[0])); }\n"));
  // A local or parameter of the same name as a host function.
  EXPECT_ACCEPTED(
      std::string("int op(int x) { return x; }\n"
                  "template <class Op> __global__ void apply(int* p, Op op) { p[0] = op(p[0]); }\n"
                  "void solve(int* p) { apply<<<1, 1>>>(p, [] __device__ (int v) { return v; }); }\n"));
}

TEST(SimExecutionSpace, OperatorsAndMemberFunctionsAreReadToo) {
  const std::string e = error_of(
      "struct V { float x; };\n"
      "float host_len(V v) { return v.x; }\n"
      "__device__ V operator+(V a, V b) { return {host_len(a) + b.x}; }\n"
      "int after_operator = 2;\n"
      "struct Acc {\n"
      " public:\n"
      "  __device__ float get(V v) const { return host_len(v); }\n"
      "};\n"
      "__global__ void k(V* p) { p[0].x = host_len(p[0] + p[1]) + after_operator; }\n");
  EXPECT_NE(e.find("k.cu:3:44: error: calling a __host__ function(\"host_len\") from a __device__ "
                   "function(\"operator+\") is not allowed"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("k.cu:7:44: error: calling a __host__ function(\"host_len\") from a __device__ function(\"get\")"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("k.cu:9:36: error: calling a __host__ function(\"host_len\") from a __global__ function(\"k\")"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("k.cu:9:60: error: identifier \"after_operator\" is undefined in device code"), std::string::npos)
      << e;
}

// ---- 3. a host variable used in device code ----

TEST(SimExecutionSpace, HostVariableInAKernelIsRejected) {
  const std::string e = error_of(
      "int offset = 1;\n"
      "float table[4], *cursor;\n"
      "__global__ void k(int* p, int n) {\n"
      "  int i = threadIdx.x;\n"
      "  if (i < n) p[i] += offset + (int)table[i % 4];\n"
      "}\n");
  EXPECT_EQ(e.rfind("k.cu:5:22: error: identifier \"offset\" is undefined in device code\n", 0), 0u) << e;
  EXPECT_NE(e.find("k.cu:5:36: error: identifier \"table\" is undefined in device code"), std::string::npos) << e;
  EXPECT_NE(e.find("note: 'offset' is a host variable"), std::string::npos) << e;
}

TEST(SimExecutionSpace, DeviceConstantAndShadowedVariablesAreAccepted) {
  EXPECT_ACCEPTED(std::string(
      "#include <cuda_runtime.h>\n"
      "constexpr int kBlock = 256;\n"
      "const int kTile = 16;\n"
      "const float kScale = 0.5f;\n"
      "static const int kN = 4;\n"
      "__device__ int counter;\n"
      "__constant__ float coeffs[8];\n"
      "__managed__ int managed_total;\n"
      "__shared__ float ns_shared[32];\n"
      "int n = 3;\n"
      "int m = 5;\n"
      "int host_copy[4];\n"
      "struct Params { int n; int m; };\n"
      "enum Mode { kAdd, kMul };\n"
      "__global__ void k(float* p, int n, Params prm) {\n"
      "  int m = prm.m;\n"
      "  __shared__ float tile[kTile];\n"
      "  p[0] = kBlock * kScale + kN + counter + coeffs[0] + managed_total + ns_shared[0] + n + m + prm.n;\n"
      "  p[1] = sizeof(host_copy) + kAdd;\n"
      "}\n"
      "void solve(float* p) {\n"
      "  n = 4; host_copy[0] = n;\n"
      "  k<<<1, kBlock>>>(p, n, Params{n, m});\n"
      "}\n"));
  // Used only in host code or under a __CUDA_ARCH__ conditional.
  EXPECT_ACCEPTED(
      std::string("int calls = 0;\n"
                  "__host__ __device__ int count() {\n"
                  "#ifndef __CUDA_ARCH__\n"
                  "  ++calls;\n"
                  "#endif\n"
                  "  return 0;\n"
                  "}\n"
                  "__global__ void k(int* p) { p[0] = count(); }\n"));
}

// ---- 4. a __global__ function called without <<<>>>, a __device__ function called from host ----

TEST(SimExecutionSpace, KernelCalledWithoutALaunchIsRejected) {
  const std::string e = error_of(
      "__global__ void add(const float* a, const float* b, float* c, int n) {}\n"
      "template <class T> __global__ void fill(T* p) {}\n"
      "void solve(const float* a, const float* b, float* c, int n) {\n"
      "  add(a, b, c, n);\n"
      "  fill<float>(c);\n"
      "}\n");
  EXPECT_EQ(e.rfind("k.cu:4:3: error: a __global__ function call must be configured\n", 0), 0u) << e;
  EXPECT_NE(e.find("k.cu:4:3: note: a kernel runs as a grid of threads: launch it as add<<<"), std::string::npos) << e;
  EXPECT_NE(e.find("k.cu:5:3: error: a __global__ function call must be configured"), std::string::npos) << e;
}

TEST(SimExecutionSpace, DeviceFunctionCalledFromHostIsRejected) {
  const std::string e = error_of(
      "__device__ float square(float x) { return x * x; }\n"
      "void solve(float* out) {\n"
      "  out[0] = square(2.0f);\n"
      "}\n");
  EXPECT_EQ(e.rfind("k.cu:3:12: error: calling a __device__ function(\"square\") from a __host__ function(\"solve\") "
                    "is not allowed",
                    0),
            0u)
      << e;
}

TEST(SimExecutionSpace, KernelNamesThatAreNotCallsAreAccepted) {
  EXPECT_ACCEPTED(
      std::string("#include <cuda_runtime.h>\n"
                  "__global__ void k(int* p) {}\n"
                  "__device__ int dev(int x) { return x; }\n"
                  "void solve(int* p) {\n"
                  "  cudaFuncAttributes attr;\n"
                  "  cudaFuncGetAttributes(&attr, k);\n"
                  "  void* args[] = {&p};\n"
                  "  cudaLaunchKernel((const void*)k, dim3(1), dim3(1), args, 0, nullptr);\n"
                  "  k<<<1, 1>>>(p);\n"
                  "  auto d = [] __device__ (int x) { return dev(x); };\n"
                  "  (void)d;\n"
                  "  static_assert(sizeof(decltype(dev(1))) == 4);\n"
                  "}\n"));
}

// ---- a module: a header's overload is known before a call is judged ----

TEST(SimExecutionSpace, AHeadersDeclarationsCountForTheModule) {
  const std::vector<Translation> ok = translate_module({{"k.cu",
                                                         "#include \"h.cuh\"\n"
                                                         "float f(float x) { return x; }\n"
                                                         "__global__ void k(float* p) { p[0] = f(p[0]); }\n"},
                                                        {"h.cuh", "__device__ float f(float x);\n"}});
  ASSERT_EQ(ok.size(), 2u);
  EXPECT_TRUE(ok[0].ok) << ok[0].error;
  const std::vector<Translation> bad =
      translate_module({{"k.cu", "#include \"h.cuh\"\n__global__ void k(float* p) { p[0] = f(p[0]); }\n"},
                        {"h.cuh", "float f(float);\n"}});
  EXPECT_FALSE(bad[0].ok);
  EXPECT_EQ(bad[0].error.rfind("k.cu:2:38: error: calling a __host__ function(\"f\")", 0), 0u) << bad[0].error;
}

// ---- the corpus: every kernel the project compiles today still translates ----

/// The module of `path`: it and the headers it includes with quotes, found beside it.
std::vector<SourceFile> module_of(const fs::path& path) {
  std::vector<SourceFile> files;
  std::vector<fs::path> todo{path};
  while (!todo.empty() && files.size() < 16) {
    const fs::path p = todo.back();
    todo.pop_back();
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    files.push_back({p.string(), ss.str()});
    std::istringstream lines(files.back().text);
    for (std::string l; std::getline(lines, l);) {
      const std::size_t inc = l.find("#include \"");
      if (inc == std::string::npos) continue;
      const std::size_t end = l.find('"', inc + 10);
      const fs::path h = p.parent_path() / l.substr(inc + 10, end - inc - 10);
      if (fs::exists(h)) todo.push_back(h);
    }
  }
  return files;
}

TEST(SimExecutionSpace, EveryKernelOfTheProjectStillTranslates) {
  const fs::path root = CUDALAB_SOURCE_DIR;
  std::vector<fs::path> corpus;
  for (const char* dir : {"solutions", "exercises", "tests/sanitize", "tests/wrong", "tests/explain",
                          "tests/sim/kernels", "tests/fixtures", "tests/misbehaving", "tests/fakes"}) {
    if (!fs::exists(root / dir)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      if (e.path().extension() == ".cu") corpus.push_back(e.path());
    }
  }
  ASSERT_GT(corpus.size(), 150u);  // the corpus was found
  std::size_t translated = 0;
  for (const auto& path : corpus) {
    const std::vector<SourceFile> files = module_of(path);
    const std::vector<Translation> out = translate_module(files);
    const std::string first = files[0].text.substr(0, files[0].text.find('\n'));
    // Files meant not to compile say so on their first line; the translator's own error cases too.
    const bool meant_to_fail = first.find("compile_error") != std::string::npos ||
                               path.filename() == "translate_error.cu" || path.filename() == "header_error.cu" ||
                               path.filename() == "compile_error.cu";
    if (meant_to_fail) {
      // A known-wrong kernel that nvcc rejects for its execution spaces fails here already.
      const std::string expect = "// expect: compile_error | ";
      if (first.rfind(expect, 0) == 0) {
        EXPECT_FALSE(out[0].ok) << path;
        EXPECT_NE(out[0].error.find(first.substr(expect.size())), std::string::npos) << path << ":\n" << out[0].error;
      }
      continue;
    }
    for (const auto& t : out) {
      EXPECT_TRUE(t.ok) << path << ":\n" << t.error;
    }
    ++translated;
  }
  EXPECT_GT(translated, 150u);
}

// ---- map_diagnostics ----

TEST(SimDiagnostics, ColumnsOfARewrittenLineAreTheOriginals) {
  const std::string src =
      "__global__ void k(int* d, int n) {}\n"
      "void f(int* d) { k<<<1, 32>>>(d, undefined_name); }\n";
  const std::vector<SourceFile> files{{"k.cu", src}};
  const std::vector<Translation> tr = translate_module(files);
  ASSERT_TRUE(tr[0].ok) << tr[0].error;
  ASSERT_EQ(tr[0].rewritten.count(2), 1u);
  EXPECT_EQ(tr[0].rewritten.count(1), 0u);
  // Where g++ would point, in the translated line.
  const std::string body = tr[0].text.substr(tr[0].text.find("\nvoid f") + 1);
  const std::string translated_line = body.substr(0, body.find('\n'));
  const std::size_t at = translated_line.rfind("undefined_name");
  ASSERT_NE(at, std::string::npos);
  const std::string gcc = "k.cu: In function 'void f(int*)':\nk.cu:2:" + std::to_string(at + 1) +
                          ": error: 'undefined_name' was not declared in this scope\n"
                          "    2 | " +
                          src.substr(src.find("void f"), src.find('\n', src.find("void f")) - src.find("void f")) +
                          "\n      |" + std::string(at + 1, ' ') + "^~~~~~~~~~~~~~\n";
  const std::string mapped = map_diagnostics(gcc, files, tr);
  EXPECT_NE(mapped.find("k.cu:2:34: error: 'undefined_name' was not declared in this scope\n"), std::string::npos)
      << mapped;
  EXPECT_NE(mapped.find("    2 | void f(int* d) { k<<<1, 32>>>(d, undefined_name); }\n"
                        "      |                                  ^~~~~~~~~~~~~~\n"),
            std::string::npos)
      << mapped;
  // A column in the translator's own text (g++ on the launch's lambda) is the launch's: its kernel.
  const std::size_t lambda = translated_line.find("k(cudalab_sim_args");
  ASSERT_NE(lambda, std::string::npos);
  const std::string inside = "k.cu:2:" + std::to_string(lambda + 1) +
                             ": error: too few arguments to function 'void k(int*, int)'\n"
                             "    2 | " +
                             src.substr(src.find("void f"), src.find('\n', src.find("void f")) - src.find("void f")) +
                             "\n      |" + std::string(lambda + 1, ' ') + "^\n";
  EXPECT_EQ(map_diagnostics(inside, files, tr),
            "k.cu:2:18: error: too few arguments to function 'void k(int*, int)'\n"
            "    2 | void f(int* d) { k<<<1, 32>>>(d, undefined_name); }\n"
            "      |                  ^\n");
  // Just past the end of the translated line ("expected ';'") is just past the end of the original.
  EXPECT_EQ(map_diagnostics("k.cu:2:" + std::to_string(translated_line.size() + 1) + ": error: x\n", files, tr),
            "k.cu:2:52: error: x\n");
  // Lines the translator left alone, and other files, are untouched.
  const std::string other = "k.cu:1:17: note: declared here\n/usr/include/x.h:2:204: note: x\n";
  EXPECT_EQ(map_diagnostics(other, files, tr), other);
}

TEST(SimDiagnostics, ColumnsCountTabsAsGccDoes) {
  const std::string src = "void f(int* d) {\n\tk<<<1, 1>>>(d, undefined_name);\n}\n";
  const std::vector<SourceFile> files{{"k.cu", src}};
  const std::vector<Translation> tr = translate_module(files);
  ASSERT_TRUE(tr[0].ok) << tr[0].error;
  const std::string body = tr[0].text.substr(tr[0].text.find("\n\t") + 1);
  const std::size_t at = body.substr(0, body.find('\n')).rfind("undefined_name");
  // GCC's column is displayed: the tab reaches column 9.
  const std::string gcc = "k.cu:2:" + std::to_string(at + 8) + ": error: 'undefined_name' was not declared\n" +
                          "    2 | \tk<<<1, 1>>>(d, undefined_name);\n      | ^\n";
  EXPECT_EQ(map_diagnostics(gcc, files, tr),
            "k.cu:2:24: error: 'undefined_name' was not declared\n"
            "    2 |         k<<<1, 1>>>(d, undefined_name);\n"
            "      |                        ^\n");
}

TEST(SimDiagnostics, SuggestionsOfNamesNotInTheFileAreDropped) {
  const std::string src = "void f() { int x = lock(3); int lck = 1; int y = lk; }\n";
  const std::vector<SourceFile> files{{"k.cu", src}};
  const std::vector<Translation> tr = translate_module(files);
  const std::string gcc =
      "k.cu:1:20: error: \xE2\x80\x98lock\xE2\x80\x99 was not declared in this scope; did you mean "
      "\xE2\x80\x98lockf\xE2\x80\x99?\n"
      "    1 | void f() { int x = lock(3); int lck = 1; int y = lk; }\n"
      "      |                    ^~~~\n"
      "      |                    lockf\n"
      "In file included from k.cu:1:\n"
      "/usr/include/unistd.h:1000:12: note: \xE2\x80\x98lockf\xE2\x80\x99 declared here\n"
      " 1000 | extern int lockf (int __fd, int __cmd, __off_t __len);\n"
      "      |            ^~~~~\n"
      "k.cu:1:50: error: 'lk' was not declared in this scope; did you mean 'lck'?\n"
      "k.cu:1:50: error: 'cudaMemcpyHostToDevic' was not declared in this scope; did you mean "
      "'cudaMemcpyHostToDevice'?\n";
  const std::string mapped = map_diagnostics(gcc, files, tr);
  EXPECT_NE(mapped.find("k.cu:1:20: error: \xE2\x80\x98lock\xE2\x80\x99 was not declared in this scope\n"
                        "    1 | void f() { int x = lock(3); int lck = 1; int y = lk; }\n"
                        "      |                    ^~~~\n"
                        "k.cu:1:50"),
            std::string::npos)
      << mapped;
  EXPECT_EQ(mapped.find("lockf"), std::string::npos) << mapped;
  EXPECT_EQ(mapped.find("In file included"), std::string::npos) << mapped;
  EXPECT_NE(mapped.find("did you mean 'lck'?"), std::string::npos) << mapped;  // in the student's file
  EXPECT_NE(mapped.find("did you mean 'cudaMemcpyHostToDevice'?"), std::string::npos) << mapped;  // CUDA's
}

}  // namespace
}  // namespace cudalab::sim
