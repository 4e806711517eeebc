// 05_reduce: looks for the reference solution everywhere a submission could guess it: up from its
// working folder, from the runner's own folder (/proc/self/exe), from $CUDALAB_ROOT, from its own
// source file (__FILE__), at the project's absolute path (also through /proc/self/root and cwd),
// from a thread of its own; and it lists solutions/.
// expect: passed | the sandbox blocked: open @PROJECT@/solutions/05_reduce/kernel.cu (permission denied by the sandbox)
// also: the sandbox blocked: open @PROJECT@/solutions (permission denied by the sandbox)
// never: ESCAPED
// needs: landlock
#include <cuda_runtime.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

__global__ void reduce_sum(const float* x, float* sum, int n) {
  __shared__ float part[256];
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += x[i];
  part[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, part[0]);
}

static void reduce(const float* x, float* sum, int n) {
  cudaMemset(sum, 0, sizeof(float));
  reduce_sum<<<std::min((n + 255) / 256, 64), 256>>>(x, sum, n);
}

static const char* const kWanted = "solutions/05_reduce/kernel.cu";

// The file's text through std::ifstream (fopen underneath), or empty.
static std::string read_stream(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return in ? text.str() : std::string();
}

// The same through open(2).
static std::string read_fd(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return {};
  char buf[256];
  const ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

static void try_path(const std::string& path, const char* how) {
  if (!read_stream(path).empty() || !read_fd(path).empty()) {
    throw std::runtime_error(std::string("ESCAPED: read the reference solution at ") + path + " (" + how + ")");
  }
}

// dir, dir/.., dir/../.., … each with solutions/05_reduce/kernel.cu appended.
static void walk_up(std::string dir, const char* how) {
  for (int up = 0; up < 10 && !dir.empty(); ++up) {
    try_path(dir + "/" + kWanted, how);
    dir += "/..";
  }
}

void solve(const float* x, float* sum, int n) {
  try_path("@PROJECT@/solutions/05_reduce/kernel.cu", "its absolute path");
  try_path("/proc/self/root@PROJECT@/solutions/05_reduce/kernel.cu", "through /proc/self/root");
  try_path("/proc/self/cwd/../../@PROJECT@/solutions/05_reduce/kernel.cu", "through /proc/self/cwd");
  if (DIR* d = opendir("@PROJECT@/solutions")) {
    closedir(d);
    throw std::runtime_error("ESCAPED: listed @PROJECT@/solutions");
  }
  walk_up(".", "up from the working folder");
  char exe[4096] = {};
  if (readlink("/proc/self/exe", exe, sizeof exe - 1) > 0) {
    std::string dir(exe);
    walk_up(dir.substr(0, dir.rfind('/')), "up from the runner's folder");
  }
  if (const char* root = std::getenv("CUDALAB_ROOT")) walk_up(root, "from $CUDALAB_ROOT");
  const std::string source = __FILE__;
  walk_up(source.substr(0, source.rfind('/')), "up from __FILE__");
  std::string from_thread;
  std::thread([&] {
    try {
      try_path("@PROJECT@/solutions/05_reduce/kernel.cu", "from a thread");
    } catch (const std::exception& e) {
      from_thread = e.what();
    }
  }).join();
  if (!from_thread.empty()) throw std::runtime_error(from_thread);
  reduce(x, sum, n);
}
