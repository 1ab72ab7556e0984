// t-ldg-tput-*: L1-hit global load throughput.  Every thread of T_LDG_WARPS warps per sub-partition
// reads a 32 KiB buffer once with ld.global.ca (filling L1), waits at a barrier, then issues 256
// independent 32-bit LDG of the same addresses (a warp's lanes on one 128-byte line, all hits)
// xor-ed into 8 accumulators; lane 0 of each warp records clk[2 * warp] = start, + 1 = end.
// The loads are volatile asm, so ptxas neither merges the two passes nor moves them past the clocks.
#pragma once
#include "simt_trace.cuh"
#include "t_common.cuh"

__device__ __forceinline__ unsigned ld_ca(const unsigned* p) {
    unsigned v;
    asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

extern "C" __global__ void ldg_tput(const unsigned* in, unsigned* res, long long* clk) {
    SIMT_SITE(1);                                   // entry
    int i = threadIdx.x;
    const unsigned* base = in + (i & 31);
    unsigned acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
#pragma unroll
    for (int k = 0; k < 256; k++) acc[k & 7] ^= ld_ca(base + 32 * k);
    __syncthreads();
    long long t0 = clock64();
#pragma unroll
    for (int k = 0; k < 256; k++) acc[k & 7] ^= ld_ca(base + 32 * k);
    long long t1 = clock64();
    res[i] = xor8(acc);
    warp_span(clk, i, t0, t1);
    SIMT_SITE(2);                                   // exit
}
