// Hopper tier of 03_matmul (optional, H100 and H200 only): C = A·B on the tensor cores in TF32,
// through the instructions Hopper added for matrix work: wgmma and the tensor memory accelerator.
//
// Contract: void solve(const float* A, const float* B, float* C, int M, int N, int K) — DEVICE
// pointers, row-major; A is M×K, B is K×N, C is M×N; M, N, K >= 1, any shape.
//
// It needs a GPU of compute capability 9.0 and code built for sm_90a (cudalab builds for sm_90a on
// such a GPU); anywhere else solve() stops and says so. The simulator has no tensor cores.
//   ./cudalab check 03_matmul --file solutions/03_matmul/tf32_wgmma_tma.cu --tf32
//   ./cudalab bench 03_matmul --ladder       # the last row of the ladder
//
// What the wmma tier (tf32_tensor_cores.cu) leaves to do, and how this file does it:
//  1. wgmma, a warpgroup's multiply: four warps together issue one asynchronous product of a 64×BN
//     tile of A by a BN-wide, 8-deep tile of B (BN up to 256). B is read straight from shared
//     memory through a descriptor, not copied into registers first, and the product runs in the
//     background until wgmma.wait_group.
//  2. TMA (cp.async.bulk.tensor): one thread asks the copy engine for a whole 128×32 tile. The
//     engine computes the addresses, fills what lies outside the matrix with zeros (the M, N and K
//     edges) and writes the tile swizzled (128-byte swizzle), so the tensor cores read it without
//     bank conflicts.
//  3. Warp specialisation: a producer warpgroup only issues copies, two consumer warpgroups only
//     multiply. They meet at mbarriers over a ring of 4 stages (6 with 128-wide tiles): "full"
//     counts the bytes the copy engine brought in, "empty" waits for both consumers to be done with
//     a stage. setmaxnreg gives the producer's registers (40 left) to the consumers (232 each), who
//     hold 64×256 accumulators.
//  4. A persistent grid: one block per SM walks the tiles, 16 tile-rows at a time, so that the
//     tiles in flight at once share rows of A and columns of B in L2.
//  5. TF32 operands must lie K-major in shared memory. A (row-major) does; B does not, so a first
//     kernel writes Bᵀ, rounded to TF32, with rows padded to 128 bytes. A is rounded in registers:
//     the consumers load it with ldmatrix, round it and hand it to wgmma from registers. (Rounding
//     matters: the tensor cores would otherwise drop the low 13 bits, a bias toward zero.)
// C differs from the FP32 result by up to about 2^-10 of Σ|A_ik·B_kj|, which `--tf32` allows.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

// nvcc -arch=sm_90a also embeds compute_90 PTX, where the kernel is a stub: the sm_90a-only helpers
// go unused there.
#pragma nv_diag_suppress 177

namespace {

constexpr int BM = 128, BK = 32;
constexpr int NUM_THREADS = 384;
constexpr int A_STAGE_BYTES = BM * BK * 4;  // 16 KB
template <int BN>
__host__ __device__ constexpr int b_stage_bytes() {
  return BN * BK * 4;
}
template <int BN>
__host__ __device__ constexpr int num_stages() {
  return BN == 256 ? 4 : 6;
}
template <int BN>
__host__ __device__ constexpr int smem_bytes() {
  return num_stages<BN>() * (A_STAGE_BYTES + b_stage_bytes<BN>()) + 1024 /*alignment*/ + 256 /*barriers*/;
}
static_assert(smem_bytes<256>() <= 227 * 1024 && smem_bytes<128>() <= 227 * 1024, "shared memory");

void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}

// ------------------------------------------------------------------ device helpers
__device__ __forceinline__ float to_tf32(float x) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return __uint_as_float(r);
}
__device__ __forceinline__ uint32_t tf32_bits(uint32_t x) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(__uint_as_float(x)));
  return r;
}

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ bool mbar_try_wait(uint32_t bar, uint32_t parity) {
  uint32_t ok;
  asm volatile(
      "{\n.reg .pred p;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(ok)
      : "r"(bar), "r"(parity)
      : "memory");
  return ok != 0;
}
// Wait until the barrier phase with the given parity has completed.  A watchdog
// turns a deadlock (a bug) into a trap after ~10 s instead of a hung GPU.
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  if (mbar_try_wait(bar, parity)) return;
  const long long t0 = clock64();
  while (!mbar_try_wait(bar, parity)) {
    if (clock64() - t0 > (1LL << 34)) __trap();
  }
}

// 2-D TMA load of one box into shared memory, completing on an mbarrier.
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(
          dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}

// wgmma shared-memory matrix descriptor: K-major, 128-byte swizzle, 8-row
// core-matrix groups 1024 bytes apart (SBO); LBO is unused for this layout.
// Stepping k by 8 tf32 (32 bytes) inside the 128-byte swizzle row = +2 in the
// address field.
__device__ __forceinline__ uint64_t make_desc(uint32_t saddr) {
  uint64_t d = 0;
  d |= static_cast<uint64_t>((saddr & 0x3FFFF) >> 4);
  d |= static_cast<uint64_t>(1) << 16;
  d |= static_cast<uint64_t>(1024 >> 4) << 32;
  d |= static_cast<uint64_t>(1) << 62;
  return d;
}

// ldmatrix x4 of 8x8 b16 matrices = four 8-row x 4-tf32 tiles; with the row
// addresses chosen as in the kernel this yields the wgmma tf32 A fragment
// {a0:(r,k) a1:(r+8,k) a2:(r,k+4) a3:(r+8,k+4)}, r = lane/4, k = lane%4.
__device__ __forceinline__ void ldsm_x4(uint32_t addr, uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
// Keeps the compiler from moving accumulator accesses across wgmma fences/waits.
template <int R>
__device__ __forceinline__ void fence_acc(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// ---- wgmma.mma_async m64nNk8, f32 += tf32 x tf32, A from registers, B from shared memory (one
// instruction per warpgroup: 128 threads multiply a 64xN tile by an Nx8 one)
__device__ __forceinline__ void wgmma_m64n256k8_rs(float (&d)[128], const uint32_t (&a)[4], uint64_t descB,
                                                   int scaleD) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {"
      "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
      "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
      "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
      "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,"
      "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,"
      "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,"
      "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,"
      "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127"
      "}, {%128,%129,%130,%131}, %132, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),
        "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
        "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),
        "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]),
        "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]),
        "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]),
        "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]),
        "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]),
        "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]),
        "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]),
        "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]),
        "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(descB), "r"(scaleD));
}
__device__ __forceinline__ void wgmma_m64n128k8_rs(float (&d)[64], const uint32_t (&a)[4], uint64_t descB, int scaleD) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {"
      "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
      "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
      "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
      "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63"
      "}, {%64,%65,%66,%67}, %68, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),
        "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
        "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),
        "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(descB), "r"(scaleD));
}

template <int BN>
__device__ __forceinline__ void wgmma_rs(float (&d)[BN / 2], const uint32_t (&a)[4], uint64_t dB, int scaleD) {
  if constexpr (BN == 256)
    wgmma_m64n256k8_rs(d, a, dB, scaleD);
  else
    wgmma_m64n128k8_rs(d, a, dB, scaleD);
}

// Grouped rasterisation: `group` tile-rows are walked column by column so that
// the tiles in flight at once share A rows and B columns in L2.
__device__ __forceinline__ void map_tile(int u, int tilesM, int tilesN, int group, int& tm, int& tn) {
  const int per = group * tilesN;
  const int g = u / per;
  const int first = g * group;
  const int gs = min(tilesM - first, group);
  const int r = u - g * per;
  tm = first + r % gs;
  tn = r / gs;
}

// ------------------------------------------------------------------ main kernel
template <int BN>
__global__ void __launch_bounds__(NUM_THREADS, 1)
    gemm_tf32_kernel(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
                     float* __restrict__ C, int M, int N, int K, int tilesM, int tilesN, int group, int vec2) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  // Built for a target without wgmma/setmaxnreg (e.g. the compute_90 PTX that
  // `-arch=sm_90a` also embeds).  The sm_90a machine code is what runs on H100.
  __trap();
#else
  constexpr int STAGES = num_stages<BN>();
  constexpr int B_STAGE = b_stage_bytes<BN>();
  constexpr int NACC = BN / 2;  // fp32 accumulators per thread (64 x BN per warpgroup)

  extern __shared__ uint8_t smem_raw[];
  const uint32_t base = (smem_u32(smem_raw) + 1023u) & ~1023u;  // 128B swizzle wants 1024-byte alignment
  const uint32_t sA = base;
  const uint32_t sB = base + STAGES * A_STAGE_BYTES;
  const uint32_t bars = sB + STAGES * B_STAGE;
  auto full_bar = [&](int s) { return bars + 8u * s; };              // TMA data landed
  auto empty_bar = [&](int s) { return bars + 8u * (STAGES + s); };  // consumers done with the stage

  const int tid = threadIdx.x;
  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(full_bar(s), 1);   // the producer's arrive.expect_tx (+ TMA bytes)
      mbar_init(empty_bar(s), 2);  // one arrival per consumer warpgroup
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  const int numK = (K + BK - 1) / BK;
  const int tiles = tilesM * tilesN;
  const int wg = tid / 128;

  if (wg == 0) {
    // ---------------- producer warpgroup: one thread issues the TMA loads
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
    if (tid == 0) {
      asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(&tmA)) : "memory");
      asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(&tmB)) : "memory");
      uint32_t it = 0;  // k-steps issued so far (over all tiles): stage = it % STAGES
      for (int u = blockIdx.x; u < tiles; u += gridDim.x) {
        int tm, tn;
        map_tile(u, tilesM, tilesN, group, tm, tn);
        for (int kt = 0; kt < numK; ++kt, ++it) {
          const int s = it % STAGES;
          const uint32_t ph = (it / STAGES) & 1u;
          mbar_wait(empty_bar(s), ph ^ 1u);  // first pass: passes at once
          mbar_expect_tx(full_bar(s), A_STAGE_BYTES + B_STAGE);
          const int k0 = kt * BK;
          tma_load_2d(sA + s * A_STAGE_BYTES, &tmA, full_bar(s), k0, tm * BM);
#pragma unroll
          for (int h = 0; h < BN / 128; ++h)
            tma_load_2d(sB + s * B_STAGE + h * (128 * 128), &tmB, full_bar(s), k0, tn * BN + h * 128);
        }
      }
    }
  } else {
    // ---------------- consumer warpgroups
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
    const int wc = wg - 1;    // which 64-row half of the block tile
    const int t = tid & 127;  // thread within the warpgroup
    const int lane = t & 31, w = t >> 5;
    float d[NACC];
#pragma unroll
    for (int i = 0; i < NACC; ++i) d[i] = 0.f;

    // RS: per-thread ldmatrix offsets inside an A stage.  Row r of the tile is
    // 128 bytes; its 16-byte chunk c (k = 4c..4c+3) sits at chunk c ^ (r % 8).
    // Lanes 8q..8q+7 address matrix q: rows +8*(q&1), k chunk +(q>>1).
    uint32_t offs[BK / 8];
    {
      const int q = lane >> 3;
      const uint32_t row = static_cast<uint32_t>(wc * 64 + w * 16 + (q & 1) * 8 + (lane & 7));
#pragma unroll
      for (int kk = 0; kk < BK / 8; ++kk)
        offs[kk] = row * 128u + ((static_cast<uint32_t>(2 * kk + (q >> 1)) ^ (row & 7u)) << 4);
    }

    uint32_t it = 0;
    for (int u = blockIdx.x; u < tiles; u += gridDim.x) {
      int tm, tn;
      map_tile(u, tilesM, tilesN, group, tm, tn);
      int prevS = 0;
      for (int kt = 0; kt < numK; ++kt, ++it) {
        const int s = it % STAGES;
        const uint32_t ph = (it / STAGES) & 1u;
        mbar_wait(full_bar(s), ph);
        const uint64_t dB = make_desc(sB + s * B_STAGE);
        // A from registers.  The previous step's wgmmas still read their A
        // registers, so wait for them (wait_group 0) before reloading; the
        // other consumer warpgroup keeps the tensor cores busy meanwhile.
        if (kt > 0) {
          wgmma_wait<0>();
          fence_acc(d);
          if (t == 0) mbar_arrive(empty_bar(prevS));
        }
        uint32_t a[BK / 8][4];
        const uint32_t aBase = sA + s * A_STAGE_BYTES;
#pragma unroll
        for (int kk = 0; kk < BK / 8; ++kk) {
          ldsm_x4(aBase + offs[kk], a[kk]);
#pragma unroll
          for (int i = 0; i < 4; ++i) a[kk][i] = tf32_bits(a[kk][i]);  // round to nearest
        }
        fence_acc(d);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < BK / 8; ++kk) wgmma_rs<BN>(d, a[kk], dB + 2 * kk, (kt > 0 || kk > 0) ? 1 : 0);
        wgmma_commit();
        fence_acc(d);
        prevS = s;
      }
      wgmma_wait<0>();
      fence_acc(d);
      if (t == 0) mbar_arrive(empty_bar(prevS));  // producer may refill while we store

      // ---- epilogue: accumulators -> C.  wgmma m64nNk8 f32 layout: thread
      // (warp w, lane l) holds rows 16w + l/4 (+8), columns 8j + 2(l%4) (+1).
      const int rowTile = tm * BM + wc * 64;
      if (rowTile < M) {
        const int row = rowTile + w * 16 + (lane >> 2);
        const int col = tn * BN + 2 * (lane & 3);
        const bool fullTile = rowTile + 64 <= M && tn * BN + BN <= N;
        if (fullTile && vec2) {  // vec2: N even and C 8-byte aligned
          float* c0 = C + static_cast<size_t>(row) * N + col;
          float* c1 = c0 + static_cast<size_t>(8) * N;
#pragma unroll
          for (int j = 0; j < BN / 8; ++j) {
            *reinterpret_cast<float2*>(c0 + 8 * j) = make_float2(d[4 * j + 0], d[4 * j + 1]);
            *reinterpret_cast<float2*>(c1 + 8 * j) = make_float2(d[4 * j + 2], d[4 * j + 3]);
          }
        } else if (fullTile) {  // odd N (or odd C): rows are not 8-byte aligned
          float* c0 = C + static_cast<size_t>(row) * N + col;
          float* c1 = c0 + static_cast<size_t>(8) * N;
#pragma unroll
          for (int j = 0; j < BN / 8; ++j) {
            c0[8 * j] = d[4 * j + 0];
            c0[8 * j + 1] = d[4 * j + 1];
            c1[8 * j] = d[4 * j + 2];
            c1[8 * j + 1] = d[4 * j + 3];
          }
        } else {
#pragma unroll
          for (int j = 0; j < BN / 8; ++j) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const int r = row + 8 * h;
              const int c = col + 8 * j;
              if (r < M) {
                float* p = C + static_cast<size_t>(r) * N + c;
                if (c < N) p[0] = d[4 * j + 2 * h];
                if (c + 1 < N) p[1] = d[4 * j + 2 * h + 1];
              }
            }
          }
        }
      }
    }
  }
#endif  // sm_90a
}

// ------------------------------------------------------------------ pre-pass
// Blocks [0, nTransBlocks): Bt[n][k] = tf32(B[k][n]) through a 64x64 smem tile
// (block 32x8 threads, 16 elements each).  Blocks [nTransBlocks, grid):
// Ar[m][k] = tf32(A[m][k]) with row stride Kp (only when A needs a copy).
__global__ void __launch_bounds__(256)
    prep_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ Ar,
                float* __restrict__ Bt, int M, int N, int K, int Kp, int nTransBlocks, int tilesN) {
  __shared__ float tile[64][65];
  const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
  if (static_cast<int>(blockIdx.x) < nTransBlocks) {
    const int n0 = (blockIdx.x % tilesN) * 64;
    const int k0 = (blockIdx.x / tilesN) * 64;
    if (n0 + 64 <= N && k0 + 64 <= K) {
      float v[16];
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int c = 0; c < 2; ++c)
          v[2 * i + c] = __ldg(B + static_cast<size_t>(k0 + ty + 8 * i) * N + n0 + tx + 32 * c);
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int c = 0; c < 2; ++c) tile[ty + 8 * i][tx + 32 * c] = to_tf32(v[2 * i + c]);
      __syncthreads();
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int c = 0; c < 2; ++c)
          Bt[static_cast<size_t>(n0 + ty + 8 * i) * Kp + k0 + tx + 32 * c] = tile[tx + 32 * c][ty + 8 * i];
    } else {
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          const int k = k0 + ty + 8 * i, n = n0 + tx + 32 * c;
          if (k < K && n < N) tile[ty + 8 * i][tx + 32 * c] = to_tf32(__ldg(B + static_cast<size_t>(k) * N + n));
        }
      __syncthreads();
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          const int n = n0 + ty + 8 * i, k = k0 + tx + 32 * c;
          if (n < N && k < K) Bt[static_cast<size_t>(n) * Kp + k] = tile[tx + 32 * c][ty + 8 * i];
        }
    }
  } else {
    // A: one row per block iteration; float4 when rows are 16-byte aligned
    const int nb = gridDim.x - nTransBlocks;
    for (int m = blockIdx.x - nTransBlocks; m < M; m += nb) {
      const float* src = A + static_cast<size_t>(m) * K;
      float* dst = Ar + static_cast<size_t>(m) * Kp;
      if ((K & 3) == 0) {
        for (int j = threadIdx.x; j < K / 4; j += 256) {
          float4 v = __ldg(reinterpret_cast<const float4*>(src) + j);
          v.x = to_tf32(v.x);
          v.y = to_tf32(v.y);
          v.z = to_tf32(v.z);
          v.w = to_tf32(v.w);
          reinterpret_cast<float4*>(dst)[j] = v;
        }
      } else {
        for (int k = threadIdx.x; k < K; k += 256) dst[k] = to_tf32(__ldg(src + k));
      }
    }
  }
}

// ------------------------------------------------------------------ host side
PFN_cuTensorMapEncodeTiled_v12000 g_encode = nullptr;
int g_numSMs = 0;

/// Set by a kernel compiled with sm_90a's instructions (the compute_90 PTX leaves it 0).
__device__ int g_built_for_sm90a = 0;
__global__ void note_sm90a_build() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  g_built_for_sm90a = 1;
#endif
}

/// Stops with the reason where this file cannot run: not a Hopper GPU, or not built for sm_90a.
void require_sm90a() {
  int dev = 0, major = 0, minor = 0;
  cuda_check(cudaGetDevice(&dev), "cudaGetDevice");
  cuda_check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), "cudaDeviceGetAttribute");
  cuda_check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev), "cudaDeviceGetAttribute");
  if (major != 9 || minor != 0) {
    throw std::runtime_error(
        "the wgmma tier runs on Hopper GPUs only (compute capability 9.0: H100, H200); this GPU "
        "is " +
        std::to_string(major) + "." + std::to_string(minor));
  }
  note_sm90a_build<<<1, 1>>>();
  cuda_check(cudaGetLastError(), "launch of note_sm90a_build");
  int built = 0;
  cuda_check(cudaMemcpyFromSymbol(&built, g_built_for_sm90a, sizeof built), "cudaMemcpyFromSymbol");
  if (built == 0) {
    throw std::runtime_error(
        "the wgmma tier was compiled without sm_90a's instructions: build it with "
        "-arch=sm_90a (CUDALAB_CUDA_ARCH=sm_90a)");
  }
}

void init_once() {
  if (g_encode) return;
  require_sm90a();
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  cuda_check(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q),
             "cudaGetDriverEntryPointByVersion");
  if (q != cudaDriverEntryPointSuccess || !fn) throw std::runtime_error("cuTensorMapEncodeTiled not available");
  int dev = 0;
  cuda_check(cudaGetDevice(&dev), "cudaGetDevice");
  cuda_check(cudaDeviceGetAttribute(&g_numSMs, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute");
  // The scratch copies stay in the stream-ordered allocator's pool between calls: with no release
  // threshold the pool hands them back at every synchronisation, and mapping them again cost 40 µs
  // a call at 2048³ on an H100 (a third of the call).
  cudaMemPool_t pool = nullptr;
  cuda_check(cudaDeviceGetDefaultMemPool(&pool, dev), "cudaDeviceGetDefaultMemPool");
  std::uint64_t keep = UINT64_MAX;
  cuda_check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute");
  cuda_check(
      cudaFuncSetAttribute(gemm_tf32_kernel<256>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes<256>()),
      "cudaFuncSetAttribute");
  cuda_check(
      cudaFuncSetAttribute(gemm_tf32_kernel<128>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes<128>()),
      "cudaFuncSetAttribute");
  g_encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
}

// 2-D fp32 tensor map over rows x K (row stride ld floats), boxes of 32 (k) x 128
// rows, 128-byte swizzle; elements outside rows x K read as zero.
CUtensorMap make_map(const float* ptr, int rows, int K, int ld) {
  CUtensorMap m;
  cuuint64_t gdim[2] = {static_cast<cuuint64_t>(K), static_cast<cuuint64_t>(rows)};
  cuuint64_t gstride[1] = {static_cast<cuuint64_t>(ld) * 4};
  cuuint32_t box[2] = {BK, 128};
  cuuint32_t estr[2] = {1, 1};
  CUresult r = g_encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(ptr), gdim, gstride, box, estr,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) throw std::runtime_error("cuTensorMapEncodeTiled failed: " + std::to_string(r));
  return m;
}

template <int BN>
void launch_gemm(const CUtensorMap& tmA, const CUtensorMap& tmB, float* C, int M, int N, int K) {
  const int tilesM = (M + BM - 1) / BM;
  const int tilesN = (N + BN - 1) / BN;
  const long long tiles = static_cast<long long>(tilesM) * tilesN;
  const int grid = static_cast<int>(tiles < g_numSMs ? tiles : g_numSMs);
  const int vec2 = (N % 2 == 0) && (reinterpret_cast<uintptr_t>(C) % 8 == 0);
  gemm_tf32_kernel<BN>
      <<<grid, NUM_THREADS, smem_bytes<BN>()>>>(tmA, tmB, C, M, N, K, tilesM, tilesN, 16 /*tile-rows per group*/, vec2);
  cuda_check(cudaGetLastError(), "gemm_tf32_kernel launch");
}

}  // namespace

void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  init_once();
  int BN = 256;  // 128-wide tiles where 128×256 ones would leave most SMs idle
  const long long tiles256 = static_cast<long long>((M + BM - 1) / BM) * ((N + 255) / 256);
  if (2 * tiles256 <= g_numSMs) BN = 128;
  const int Kp = (K + 31) & ~31;  // row length of the copies: rows 128-byte aligned
  // TMA reads A as it is where its rows are 16-byte aligned (K % 4 == 0); otherwise from a rounded,
  // padded copy.
  const bool copyA = (K & 3) != 0 || (reinterpret_cast<uintptr_t>(A) & 15) != 0;
  const size_t aBytes = copyA ? ((static_cast<size_t>(M) * Kp * 4 + 255) & ~static_cast<size_t>(255)) : 0;
  const size_t bBytes = static_cast<size_t>(N) * Kp * 4;
  // Scratch from the stream-ordered allocator: after the first call, from its pool in microseconds.
  float* scratch = nullptr;
  cuda_check(cudaMallocAsync(reinterpret_cast<void**>(&scratch), aBytes + bBytes, 0), "cudaMallocAsync");
  float* Ar = scratch;
  float* Bt = scratch + aBytes / 4;

  // One launch: Bᵀ rounded (and A rounded and padded where it needs a copy).
  const int tilesN = (N + 63) / 64, tilesK = (K + 63) / 64;
  const long long nTrans = static_cast<long long>(tilesN) * tilesK;
  // Blocks that copy A, a row at a time: enough to fill the GPU, at most one per row.
  const long long nA = copyA ? (M < 32LL * g_numSMs ? M : 32LL * g_numSMs) : 0;
  if (nTrans + nA > 0x7fffffffLL) throw std::runtime_error("the matrices are too large for the first kernel's grid");
  prep_kernel<<<static_cast<unsigned>(nTrans + nA), 256>>>(A, B, Ar, Bt, M, N, K, Kp, static_cast<int>(nTrans), tilesN);
  cuda_check(cudaGetLastError(), "launch of prep_kernel");

  const CUtensorMap tmA = copyA ? make_map(Ar, M, K, Kp) : make_map(A, M, K, K);
  const CUtensorMap tmB = make_map(Bt, N, K, Kp);
  if (BN == 128) {
    launch_gemm<128>(tmA, tmB, C, M, N, K);
  } else {
    launch_gemm<256>(tmA, tmB, C, M, N, K);
  }
  cuda_check(cudaFreeAsync(scratch, 0), "cudaFreeAsync");
}
