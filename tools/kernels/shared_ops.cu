// Shared-memory instruction throughput (tools/shared_ops.py): every warp of one block runs 64 iterations of
// 8 independent shared-memory instructions of one kind (addresses move with the iteration, so that ptxas
// cannot merge repeated loads; threadIdx.x >> 10, always 0, keeps them in vector registers, as ULOP3 is
// not in isa/sass.yaml); clk = per-warp [start, end].
#include <cstdint>
#define ITERS 64
__device__ __forceinline__ unsigned saddr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
// lane 0 of each warp writes the warp's [start, end]
__device__ __forceinline__ void record_span(long long* clk, long long t0, long long t1) {
    if ((threadIdx.x & 31) == 0) { clk[2 * (threadIdx.x / 32)] = t0; clk[2 * (threadIdx.x / 32) + 1] = t1; }
}

template <bool TRANS>
__device__ __forceinline__ void ldsm_loop(long long* clk, unsigned* out) {
    __shared__ __align__(16) uint16_t s[8 * 1024];
    for (int i = threadIdx.x; i < 8 * 1024; i += blockDim.x) s[i] = i;
    __syncthreads();
    unsigned lane = threadIdx.x & 31, acc = 0;
    unsigned a = saddr(&s[lane * 8]);
    long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < ITERS; it++) {
#pragma unroll
        for (int j = 0; j < 8; j++) {
            unsigned r0, r1, r2, r3, p = a + ((it * 8 + j + (threadIdx.x >> 10)) & 15) * 512;
            if (TRANS)
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                             : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(p));
            else
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                             : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(p));
            acc += r0 ^ r1 ^ r2 ^ r3;
        }
    }
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    record_span(clk, t0, t1);
}

extern "C" __global__ void __launch_bounds__(1024) k_ldsm4(long long* clk, unsigned* out) { ldsm_loop<false>(clk, out); }
extern "C" __global__ void __launch_bounds__(1024) k_ldsm4t(long long* clk, unsigned* out) { ldsm_loop<true>(clk, out); }

extern "C" __global__ void __launch_bounds__(1024) k_sts64(long long* clk, unsigned* out) {
    __shared__ __align__(16) uint2 s[32 * 32 * 4];
    unsigned lane = threadIdx.x & 31, w = threadIdx.x / 32;
    uint2 v = make_uint2(threadIdx.x, lane);
    long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < ITERS; it++) {
#pragma unroll
        for (int j = 0; j < 8; j++) {
            asm volatile("st.shared.v2.u32 [%0], {%1, %2};" :: "r"(saddr(&s[((w * 8 + j) & 127) * 32 + lane])), "r"(v.x + it), "r"(v.y) : "memory");
        }
    }
    long long t1 = clock64();
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x].x;
    record_span(clk, t0, t1);
}

extern "C" __global__ void __launch_bounds__(1024) k_sts16(long long* clk, unsigned* out) {
    __shared__ __align__(16) uint16_t s[32 * 32 * 8];
    unsigned lane = threadIdx.x & 31, w = threadIdx.x / 32;
    long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < ITERS; it++) {
#pragma unroll
        for (int j = 0; j < 8; j++) {
            asm volatile("st.shared.u16 [%0], %1;" :: "r"(saddr(&s[(w * 8 + j) * 32 + lane])), "h"((unsigned short)(it + j)) : "memory");
        }
    }
    long long t1 = clock64();
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
    record_span(clk, t0, t1);
}

extern "C" __global__ void __launch_bounds__(1024) k_lds32(long long* clk, unsigned* out) {
    __shared__ unsigned s[8 * 1024];
    for (int i = threadIdx.x; i < 8 * 1024; i += blockDim.x) s[i] = i;
    __syncthreads();
    unsigned lane = threadIdx.x & 31, acc = 0;
    unsigned a = saddr(&s[lane]);
    long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < ITERS; it++) {
#pragma unroll
        for (int j = 0; j < 8; j++) {
            unsigned r;
            asm volatile("ld.shared.u32 %0, [%1];" : "=r"(r) : "r"(a + ((it * 8 + j + (threadIdx.x >> 10)) & 63) * 128));
            acc += r;
        }
    }
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    record_span(clk, t0, t1);
}

extern "C" __global__ void __launch_bounds__(1024) k_lds128(long long* clk, unsigned* out) {
    __shared__ __align__(16) uint4 s[2 * 1024];
    for (int i = threadIdx.x; i < 2 * 1024; i += blockDim.x) s[i] = make_uint4(i, i + 1, i + 2, i + 3);
    __syncthreads();
    unsigned lane = threadIdx.x & 31, acc = 0;
    unsigned a = saddr(&s[lane]);
    long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < ITERS; it++) {
#pragma unroll
        for (int j = 0; j < 8; j++) {
            unsigned r0, r1, r2, r3;
            asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                         : "r"(a + ((it * 8 + j + (threadIdx.x >> 10)) & 63) * 512));
            acc += r0 ^ r1 ^ r2 ^ r3;
        }
    }
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    record_span(clk, t0, t1);
}

extern "C" __global__ void __launch_bounds__(1024) k_sts128(long long* clk, unsigned* out) {
    __shared__ __align__(16) uint4 s[32 * 32 * 2];
    unsigned lane = threadIdx.x & 31, w = threadIdx.x / 32;
    long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < ITERS; it++) {
#pragma unroll
        for (int j = 0; j < 8; j++) {
            asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};"
                         :: "r"(saddr(&s[((w * 8 + j) & 63) * 32 + lane])), "r"(threadIdx.x + it), "r"(lane), "r"(j), "r"(w)
                         : "memory");
        }
    }
    long long t1 = clock64();
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x].x;
    record_span(clk, t0, t1);
}

// Dependent chains (one warp): each load's address takes the previous load's data (zeros), so a
// step is one load's latency plus one IADD3; clk[0..1] spans 256 steps.
extern "C" __global__ void __launch_bounds__(1024) k_chain_lds32(long long* clk, unsigned* out) {
    __shared__ __align__(16) unsigned s[2048];
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) s[i] = 0;
    __syncthreads();
    unsigned a = saddr(&s[threadIdx.x & 31]), v = 0;
    long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < 256; it++) asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a + v));
    long long t1 = clock64();
    out[threadIdx.x] = v;
    if (threadIdx.x == 0) { clk[0] = t0; clk[1] = t1; }
}

extern "C" __global__ void __launch_bounds__(1024) k_chain_lds128(long long* clk, unsigned* out) {
    __shared__ __align__(16) uint4 s[512];
    for (int i = threadIdx.x; i < 512; i += blockDim.x) s[i] = make_uint4(0, 0, 0, 0);
    __syncthreads();
    unsigned a = saddr(&s[threadIdx.x & 31]), v = 0, x1, x2, x3;
    long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < 256; it++)
        asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v), "=r"(x1), "=r"(x2), "=r"(x3) : "r"(a + v));
    long long t1 = clock64();
    out[threadIdx.x] = v + x1 + x2 + x3;
    if (threadIdx.x == 0) { clk[0] = t0; clk[1] = t1; }
}

extern "C" __global__ void __launch_bounds__(1024) k_chain_ldsm4(long long* clk, unsigned* out) {
    __shared__ __align__(16) uint16_t s[4096];
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = 0;
    __syncthreads();
    unsigned a = saddr(&s[(threadIdx.x & 31) * 8]), v = 0, x1, x2, x3;
    long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < 256; it++)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(v), "=r"(x1), "=r"(x2), "=r"(x3) : "r"(a + v));
    long long t1 = clock64();
    out[threadIdx.x] = v + x1 + x2 + x3;
    if (threadIdx.x == 0) { clk[0] = t0; clk[1] = t1; }
}

// What a shared-memory instruction's pipe time follows, its bytes or its passes through the banks:
// LDS.64 (256 distinct bytes), LDS.128 with every lane at one address (16 bytes, a broadcast) and LDS.32
// with two lanes on each bank (128 bytes, two passes).
extern "C" __global__ void __launch_bounds__(1024) k_lds64(long long* clk, unsigned* out) {
    __shared__ __align__(16) uint2 s[4 * 1024];
    for (int i = threadIdx.x; i < 4 * 1024; i += blockDim.x) s[i] = make_uint2(i, i + 1);
    __syncthreads();
    unsigned lane = threadIdx.x & 31, acc = 0;
    unsigned a = saddr(&s[lane]);
    long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < ITERS; it++) {
#pragma unroll
        for (int j = 0; j < 8; j++) {
            unsigned r0, r1;
            asm volatile("ld.shared.v2.u32 {%0,%1}, [%2];" : "=r"(r0), "=r"(r1)
                         : "r"(a + ((it * 8 + j + (threadIdx.x >> 10)) & 63) * 256));
            acc += r0 ^ r1;
        }
    }
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    record_span(clk, t0, t1);
}

extern "C" __global__ void __launch_bounds__(1024) k_lds128_bcast(long long* clk, unsigned* out) {
    __shared__ __align__(16) uint4 s[2 * 1024];
    for (int i = threadIdx.x; i < 2 * 1024; i += blockDim.x) s[i] = make_uint4(i, i + 1, i + 2, i + 3);
    __syncthreads();
    unsigned acc = 0;
    unsigned a = saddr(&s[0]);
    long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < ITERS; it++) {
#pragma unroll
        for (int j = 0; j < 8; j++) {
            unsigned r0, r1, r2, r3;
            asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                         : "r"(a + ((it * 8 + j + (threadIdx.x >> 10)) & 63) * 16));
            acc += r0 ^ r1 ^ r2 ^ r3;
        }
    }
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    record_span(clk, t0, t1);
}

extern "C" __global__ void __launch_bounds__(1024) k_lds32_2way(long long* clk, unsigned* out) {
    __shared__ unsigned s[8 * 1024];
    for (int i = threadIdx.x; i < 8 * 1024; i += blockDim.x) s[i] = i;
    __syncthreads();
    unsigned lane = threadIdx.x & 31, acc = 0;
    unsigned a = saddr(&s[lane * 2]);                 // lanes l and l + 16 on one bank
    long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < ITERS; it++) {
#pragma unroll
        for (int j = 0; j < 8; j++) {
            unsigned r;
            asm volatile("ld.shared.u32 %0, [%1];" : "=r"(r) : "r"(a + ((it * 8 + j + (threadIdx.x >> 10)) & 31) * 256));
            acc += r;
        }
    }
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    record_span(clk, t0, t1);
}

// More dependent chains: LDS.64, the broadcast LDS.128, LDSM .x1 and .x2 (how a load's latency grows
// with its bytes).
extern "C" __global__ void __launch_bounds__(1024) k_chain_lds64(long long* clk, unsigned* out) {
    __shared__ __align__(16) uint2 s[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = make_uint2(0, 0);
    __syncthreads();
    unsigned a = saddr(&s[threadIdx.x & 31]), v = 0, x1;
    long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < 256; it++) asm volatile("ld.shared.v2.u32 {%0,%1}, [%2];" : "=r"(v), "=r"(x1) : "r"(a + v));
    long long t1 = clock64();
    out[threadIdx.x] = v + x1;
    if (threadIdx.x == 0) { clk[0] = t0; clk[1] = t1; }
}

extern "C" __global__ void __launch_bounds__(1024) k_chain_lds128_bcast(long long* clk, unsigned* out) {
    __shared__ __align__(16) uint4 s[512];
    for (int i = threadIdx.x; i < 512; i += blockDim.x) s[i] = make_uint4(0, 0, 0, 0);
    __syncthreads();
    unsigned a = saddr(&s[threadIdx.x >> 10]), v = 0, x1, x2, x3;
    long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < 256; it++)
        asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v), "=r"(x1), "=r"(x2), "=r"(x3) : "r"(a + v));
    long long t1 = clock64();
    out[threadIdx.x] = v + x1 + x2 + x3;
    if (threadIdx.x == 0) { clk[0] = t0; clk[1] = t1; }
}

extern "C" __global__ void __launch_bounds__(1024) k_chain_ldsm1(long long* clk, unsigned* out) {
    __shared__ __align__(16) uint16_t s[4096];
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = 0;
    __syncthreads();
    unsigned a = saddr(&s[(threadIdx.x & 31) * 8]), v = 0;
    long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < 256; it++)
        asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(v) : "r"(a + v));
    long long t1 = clock64();
    out[threadIdx.x] = v;
    if (threadIdx.x == 0) { clk[0] = t0; clk[1] = t1; }
}

extern "C" __global__ void __launch_bounds__(1024) k_chain_ldsm2(long long* clk, unsigned* out) {
    __shared__ __align__(16) uint16_t s[4096];
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = 0;
    __syncthreads();
    unsigned a = saddr(&s[(threadIdx.x & 31) * 8]), v = 0, x1;
    long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < 256; it++)
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(v), "=r"(x1) : "r"(a + v));
    long long t1 = clock64();
    out[threadIdx.x] = v + x1;
    if (threadIdx.x == 0) { clk[0] = t0; clk[1] = t1; }
}
