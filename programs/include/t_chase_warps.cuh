// t-chase-warps-N: does a dependent load's step grow when other warps share its scheduler?  N warps
// per sub-partition (4N warps in one block) each follow two dependent chains of 32 steps, reading
// the clock after each step, as t-chase-lanes' 32-lane chains do: 0 shared memory, every step 32
// different words of one 128-byte row; 1 global memory through L1 (LDG.E.CONSTANT, ptxas's
// IMAD.WIDE with a yield hint before each), 32 words of one line, second pass timed.
// clk[66 w + 33 part + k]: warp w's clock after step k - 1 of chain `part` (k = 0: before it).
#pragma once
#include "simt_trace.cuh"

#define STEPS 32
#define WORDS 1024

__device__ __forceinline__ long long clock_now() {
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory");
    return t;
}

__device__ __forceinline__ unsigned load_nc(const unsigned* p) {
    unsigned v;
    asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ unsigned load_shared(const unsigned* p) {
    unsigned v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "l"(__cvta_generic_to_shared(p)) : "memory");
    return v;
}

template <bool SHARED>
__device__ __forceinline__ unsigned chase(const unsigned* chain, unsigned j, long long* out, bool keep) {
    long long t[STEPS + 1];
    t[0] = clock_now();
#pragma unroll
    for (int k = 0; k < STEPS; k++) {
        j = SHARED ? load_shared(chain + j) : load_nc(chain + j);
        t[k + 1] = clock_now();
    }
    if (keep) {
#pragma unroll
        for (int k = 0; k <= STEPS; k++) out[k] = t[k];
    }
    return j;
}

extern "C" __global__ void chase_warps(const unsigned* chain, unsigned* res, long long* clk) {
    SIMT_SITE(1);                                   // entry
    __shared__ unsigned s[WORDS];
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x / 32u;
    for (unsigned i = threadIdx.x; i < WORDS; i += blockDim.x) s[i] = chain[i];
    __syncthreads();
    long long* mine = clk + 66 * warp;
    unsigned r = chase<true>(s, lane, mine, lane == 0);
    unsigned b = chase<false>(chain, lane, mine + 33, false);
    r += chase<false>(chain, (b == 0xFFFFFFFFu ? 1u : 0u) + lane, mine + 33, lane == 0);
    res[threadIdx.x] = r;
    SIMT_SITE(2);                                   // exit
}
