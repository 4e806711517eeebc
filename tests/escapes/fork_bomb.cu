// 05_reduce: a fork bomb (bounded: 50 forks, each child sleeping a moment and leaving), then a
// shell through execl and system(). Threads must still work: the sum is added up on a thread.
// expect: passed | the sandbox blocked: fork (a new process)
// also: the sandbox blocked: execve (running another program)
// also: the sandbox blocked: system (running another program)
// never: ESCAPED
// needs: seccomp
#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

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

void solve(const float* x, float* sum, int n) {
  int made = 0;
  for (int i = 0; i < 50; ++i) {
    const pid_t p = fork();
    if (p == 0) {
      usleep(200 * 1000);
      _exit(0);
    }
    if (p > 0) ++made;
  }
  while (wait(nullptr) > 0) {
  }
  if (made > 0) throw std::runtime_error("ESCAPED: forked " + std::to_string(made) + " processes");
  execl("/bin/sh", "sh", "-c", "exit 0", static_cast<char*>(nullptr));  // returns only if refused
  if (std::system("exit 0") == 0) throw std::runtime_error("ESCAPED: system() ran a shell");
  std::thread([&] { reduce(x, sum, n); }).join();
}
