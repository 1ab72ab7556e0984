// Bank-conflicted shared loads (tools/bank_conflicts.py): every warp of one block runs 64 iterations of 8
// independent LDSM.16.M88.4 or LDS.32 whose lanes' addresses give 1 to 8 passes per 8x8 matrix (LDSM: row r
// of matrix m at m * M + r * S bytes) or per warp (LDS.32: lane l at l * S bytes); the c_ kernels are one
// warp's dependent chains of the same loads (each address adds the last load's data, always 0).
// clk = per-warp [start, end]; threadIdx.x >> 10, always 0, keeps the addresses in vector registers.
#include <cstdint>
#define ITERS 64
#define CHAIN_STEPS 256
__device__ __forceinline__ unsigned saddr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void record_span(long long* clk, long long t0, long long t1) {
    if ((threadIdx.x & 31) == 0) { clk[2 * (threadIdx.x / 32)] = t0; clk[2 * (threadIdx.x / 32) + 1] = t1; }
}
__device__ __forceinline__ void fill(uint32_t* s, unsigned zero) {
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = zero;
    __syncthreads();
}
__device__ __forceinline__ unsigned ldsm4(unsigned p) {
    unsigned r0, r1, r2, r3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(p));
    return r0 ^ r1 ^ r2 ^ r3;
}
__device__ __forceinline__ unsigned lds32(unsigned p) {
    unsigned r;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(r) : "r"(p));
    return r;
}
template <bool LDSM, int S, int M>
__device__ __forceinline__ void rate_loop(long long* clk, unsigned* out, unsigned zero) {
    __shared__ __align__(16) uint32_t s[4096];
    fill(s, zero);
    unsigned lane = threadIdx.x & 31, acc = 0;
    unsigned a = saddr(s) + (LDSM ? (lane >> 3) * M + (lane & 7) * S : lane * S);
    long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < ITERS; it++) {
#pragma unroll
        for (int j = 0; j < 8; j++) {
            unsigned p = a + ((it * 8 + j + (threadIdx.x >> 10)) & 15) * 512;   // moves: no hoisting
            acc += LDSM ? ldsm4(p) : lds32(p);
        }
    }
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    record_span(clk, t0, t1);
}
template <bool LDSM, int S, int M>
__device__ __forceinline__ void chain_loop(long long* clk, unsigned* out, unsigned zero) {
    __shared__ __align__(16) uint32_t s[4096];
    fill(s, zero);
    unsigned lane = threadIdx.x & 31;
    unsigned p = saddr(s) + (LDSM ? (lane >> 3) * M + (lane & 7) * S : lane * S);
    long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < CHAIN_STEPS; it++) p += LDSM ? ldsm4(p) : lds32(p);
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = p;
    record_span(clk, t0, t1);
}
#define KERNELS(NAME, LDSM, S, M)                                                                              \
    extern "C" __global__ void __launch_bounds__(512) k_##NAME(long long* clk, unsigned* out, unsigned zero) { \
        rate_loop<LDSM, S, M>(clk, out, zero);                                                                 \
    }                                                                                                          \
    extern "C" __global__ void __launch_bounds__(512) c_##NAME(long long* clk, unsigned* out, unsigned zero) { \
        chain_loop<LDSM, S, M>(clk, out, zero);                                                                \
    }
KERNELS(ldsm_s16_m128, true, 16, 128)    // 1 pass a matrix: 4 an LDSM.x4
KERNELS(ldsm_s32_m256, true, 32, 256)    // 2 a matrix: 8
KERNELS(ldsm_s64_m16, true, 64, 16)      // 4 a matrix: 16 (the predictor tile's hidden rows)
KERNELS(ldsm_s128_m16, true, 128, 16)    // 8 a matrix: 32
KERNELS(lds_s4, false, 4, 0)             // LDS.32, 1 pass
KERNELS(lds_s16, false, 16, 0)           // 4 passes
KERNELS(lds_s32, false, 32, 0)           // 8 passes
