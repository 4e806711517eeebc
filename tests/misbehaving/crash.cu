// 01_increment: solve dereferences a null pointer on the host.
#include <cuda_runtime.h>
void solve(int* data, int n) {
  volatile int* p = nullptr;
  *p = n + data[0];
}
