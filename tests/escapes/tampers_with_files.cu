// 05_reduce: changes what Landlock does not guard on files outside its folder (up to ABI 7):
// permissions, owner, times and extended attributes of the gradebook (the test's stand-in).
// expect: passed | the sandbox blocked: chmod (changing a file's permissions)
// also: the sandbox blocked: chown (changing a file's owner)
// also: the sandbox blocked: utime (changing a file's times)
// also: the sandbox blocked: setxattr (changing a file's attributes)
// never: ESCAPED
// needs: seccomp
#include <cuda_runtime.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

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
  const char* victim = "@GRADEBOOK@";
  if (chmod(victim, 0666) == 0) throw std::runtime_error("ESCAPED: made the gradebook writable by everyone");
  if (chown(victim, 65534, 65534) == 0) throw std::runtime_error("ESCAPED: gave the gradebook away");
  const utimbuf epoch{0, 0};
  if (utime(victim, &epoch) == 0) throw std::runtime_error("ESCAPED: changed the gradebook's times");
  if (setxattr(victim, "user.cudalab", "x", 1, 0) == 0) throw std::runtime_error("ESCAPED: tagged the gradebook");
  reduce(x, sum, n);
}
