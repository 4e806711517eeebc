// 05_reduce: leaves a process behind that outlives the check: fork, setsid (out of the runner's
// process group, which the parent kills), a name of its own, a long sleep. Also a raw clone().
// expect: passed | the sandbox blocked: fork (a new process)
// never: ESCAPED
// needs: seccomp
#include <cuda_runtime.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <string>

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

static void linger() {
  setsid();
  prctl(PR_SET_NAME, "@MARKER@");
  sleep(30);
  _exit(0);
}

void solve(const float* x, float* sum, int n) {
  const pid_t p = fork();
  if (p == 0) linger();
  const long q = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
  if (q == 0) linger();
  if (p > 0 || q > 0) throw std::runtime_error("ESCAPED: left a process behind");
  reduce(x, sum, n);
}
