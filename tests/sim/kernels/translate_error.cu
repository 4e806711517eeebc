// Deliberately broken launch syntax (no '>>>'): reported by the translator at line 5.
__global__ void k(int* p) { *p = 1; }

void solve(int* data, int n) {
  k<<<1, n(data);
}
