// 05_reduce: attacks the grader, its parent process: SIGKILL, ptrace, reading its memory; and
// probes every process with signal 0 (harmless even if it went through).
// expect: passed | the sandbox blocked: kill (signal 9 to process
// also: the sandbox blocked: kill (signal 0 to every process, outside the sandbox)
// also: the sandbox blocked: ptrace (inspecting another process)
// also: the sandbox blocked: process_vm_readv (another process's memory)
// never: ESCAPED
// needs: seccomp
#include <cuda_runtime.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
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

void solve(const float* x, float* sum, int n) {
  const pid_t parent = getppid();
  if (kill(parent, SIGKILL) == 0) throw std::runtime_error("ESCAPED: killed the parent");
  if (kill(-1, 0) == 0) throw std::runtime_error("ESCAPED: may signal every process");
  if (ptrace(PTRACE_ATTACH, parent, nullptr, nullptr) == 0) throw std::runtime_error("ESCAPED: attached to the parent");
  char buf[16];
  iovec local{buf, sizeof buf};
  iovec remote{reinterpret_cast<void*>(0x400000), sizeof buf};
  if (process_vm_readv(parent, &local, 1, &remote, 1, 0) >= 0) throw std::runtime_error("ESCAPED: read the parent's memory");
  reduce(x, sum, n);
}
