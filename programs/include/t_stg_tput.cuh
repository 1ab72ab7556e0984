// t-stg-tput-*: global store throughput.  Every thread of T_STG_WARPS warps per sub-partition
// stores 128 words, each warp-instruction one 128-byte line of a region of its own (STG.E, 32
// lanes), back to back between two clock reads; lane 0 of each warp records clk[2 * warp] =
// start, + 1 = end.  A store needs no result, so the end clock shows the rate at which the
// sub-partitions could issue them (Nsight Compute's lg_throttle when the queue is full).
// The stores are volatile asm, so ptxas keeps them in order between the clocks.
#pragma once
#include "simt_trace.cuh"
#include "t_common.cuh"

#define STG_STEPS 128

__device__ __forceinline__ void st_g(unsigned* p, unsigned v) {
    asm volatile("st.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

extern "C" __global__ void stg_tput(unsigned* out, long long* clk) {
    SIMT_SITE(1);                                   // entry
    int i = threadIdx.x;
    unsigned* base = out + (i >> 5) * (STG_STEPS * 32) + (i & 31);
    __syncthreads();
    long long t0 = clock64();
#pragma unroll
    for (int k = 0; k < STG_STEPS; k++) st_g(base + 32 * k, i + k);
    long long t1 = clock64();
    warp_span(clk, i, t0, t1);
    SIMT_SITE(2);                                   // exit
}
