// t-icache-*: instruction fetch.  One warp runs the same straight-line block of T_ICACHE_N
// independent FFMAs (8 chains) twice; clk = [pass 0 start, end, pass 1 start, end].  Pass 0 fetches
// every instruction cold, pass 1 finds the block in the instruction caches when it fits, so the
// span difference over T_ICACHE_N is the fetch cost per instruction (16 bytes each) at that size.
#pragma once
#include "simt_trace.cuh"
#include "t_common.cuh"

extern "C" __global__ void icache(const float* in, float* res, long long* clk, float a, float b) {
    SIMT_SITE(1);                                   // entry
    int i = threadIdx.x;
    CHAINS8_START(in[i]);
    long long t[4];
#pragma unroll 1
    for (int pass = 0; pass < 2; pass++) {
        long long start = clock64();
#pragma unroll
        for (int k = 0; k < T_ICACHE_N / 8; k++) {
            CHAINS8_FFMA(a, b);
        }
        long long end = clock64();
        if (pass == 0) { t[0] = start; t[1] = end; } else { t[2] = start; t[3] = end; }
    }
    res[i] = CHAINS8_SUM();
    if (i == 0)
        for (int k = 0; k < 4; k++) clk[k] = t[k];
    SIMT_SITE(2);                                   // exit
}
