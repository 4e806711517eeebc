// CUDA's built-in vector types (`float4`, `int2`, `dim3`, ...) and their `make_*` constructors,
// laid out and aligned as in CUDA's vector_types.h so that reinterpret_casts behave the same.
#pragma once

#define CUDALAB_SIM_VEC1(T, N, A) \
  struct alignas(A) N##1 {        \
    T x;                          \
  };
#define CUDALAB_SIM_VEC2(T, N, A) \
  struct alignas(A) N##2 {        \
    T x, y;                       \
  };
#define CUDALAB_SIM_VEC3(T, N) \
  struct N##3 {                \
    T x, y, z;                 \
  };
#define CUDALAB_SIM_VEC4(T, N, A) \
  struct alignas(A) N##4 {        \
    T x, y, z, w;                 \
  };
#define CUDALAB_SIM_MAKE(T, N)                                                \
  constexpr inline N##1 make_##N##1(T x) { return N##1 {x}; }                 \
  constexpr inline N##2 make_##N##2(T x, T y) { return N##2 {x, y}; }         \
  constexpr inline N##3 make_##N##3(T x, T y, T z) { return N##3 {x, y, z}; } \
  constexpr inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4 {x, y, z, w}; }
#define CUDALAB_SIM_VECS(T, N, A1, A2, A4) \
  CUDALAB_SIM_VEC1(T, N, A1)               \
  CUDALAB_SIM_VEC2(T, N, A2)               \
  CUDALAB_SIM_VEC3(T, N)                   \
  CUDALAB_SIM_VEC4(T, N, A4)               \
  CUDALAB_SIM_MAKE(T, N)

CUDALAB_SIM_VECS(signed char, char, 1, 2, 4)
CUDALAB_SIM_VECS(unsigned char, uchar, 1, 2, 4)
CUDALAB_SIM_VECS(short, short, 2, 4, 8)
CUDALAB_SIM_VECS(unsigned short, ushort, 2, 4, 8)
CUDALAB_SIM_VECS(int, int, 4, 8, 16)
CUDALAB_SIM_VECS(unsigned int, uint, 4, 8, 16)
CUDALAB_SIM_VECS(long, long, sizeof(long), 2 * sizeof(long), 16)
CUDALAB_SIM_VECS(unsigned long, ulong, sizeof(long), 2 * sizeof(long), 16)
CUDALAB_SIM_VECS(long long, longlong, 8, 16, 16)
CUDALAB_SIM_VECS(unsigned long long, ulonglong, 8, 16, 16)
CUDALAB_SIM_VECS(float, float, 4, 8, 16)
CUDALAB_SIM_VECS(double, double, 8, 16, 16)

#undef CUDALAB_SIM_VEC1
#undef CUDALAB_SIM_VEC2
#undef CUDALAB_SIM_VEC3
#undef CUDALAB_SIM_VEC4
#undef CUDALAB_SIM_MAKE
#undef CUDALAB_SIM_VECS

/// Launch dimensions: unspecified components are 1, as in CUDA.
struct dim3 {
  unsigned int x, y, z;  ///< CUDA's dim3 z: the extent along z.
  /// CUDA's dim3 constructor: omitted components are 1.
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  /// CUDA's conversion from uint3 (e.g. `dim3 b = blockIdx;`).
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  /// CUDA's conversion to uint3.
  constexpr operator uint3() const { return uint3{x, y, z}; }
};
// One declaration declares all three components; Doxygen attaches a trailing comment to the last.
/// \var dim3::x
/// CUDA's dim3 x: the extent along x.
/// \var dim3::y
/// CUDA's dim3 y: the extent along y.
