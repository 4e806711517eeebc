// 05_reduce: connects to a TCP listener on 127.0.0.1 (the test's, which must see no connection),
// as a submission would to send the inputs out or fetch an answer.
// expect: passed | the sandbox blocked: socket (a network connection)
// never: ESCAPED
// needs: seccomp
#include <arpa/inet.h>
#include <cuda_runtime.h>
#include <netinet/in.h>
#include <sys/socket.h>
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
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s >= 0) {
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(@PORT@);
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool connected = connect(s, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0;
    close(s);
    if (connected) throw std::runtime_error("ESCAPED: connected to 127.0.0.1:@PORT@");
  }
  reduce(x, sum, n);
}
