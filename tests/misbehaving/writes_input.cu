// 02_vector_add: correct c, but a is overwritten on the host.
#include <cuda_runtime.h>
void solve(const float* a, const float* b, float* c, int n) {
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
  const_cast<float*>(a)[0] = 42.0f;
}
