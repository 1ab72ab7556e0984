// t-icache-*: instruction fetch.  One warp runs the same straight-line block of T_ICACHE_N
// independent FFMAs (8 chains) twice; clk = [pass 0 start, end, pass 1 start, end].  Pass 0 fetches
// every instruction cold, pass 1 finds the block in the instruction caches when it fits, so the
// span difference over T_ICACHE_N is the fetch cost per instruction (16 bytes each) at that size.
#pragma once
#include "simt_trace.cuh"

extern "C" __global__ void icache(const float* in, float* res, long long* clk, float a, float b) {
    SIMT_SITE(1);                                   // entry
    int i = threadIdx.x;
    float x0 = in[i], x1 = x0 + 1.0f, x2 = x0 + 2.0f, x3 = x0 + 3.0f;
    float x4 = x0 + 4.0f, x5 = x0 + 5.0f, x6 = x0 + 6.0f, x7 = x0 + 7.0f;
    long long t[4];
#pragma unroll 1
    for (int pass = 0; pass < 2; pass++) {
        long long start = clock64();
#pragma unroll
        for (int k = 0; k < T_ICACHE_N / 8; k++) {
            x0 = fmaf(x0, a, b); x1 = fmaf(x1, a, b); x2 = fmaf(x2, a, b); x3 = fmaf(x3, a, b);
            x4 = fmaf(x4, a, b); x5 = fmaf(x5, a, b); x6 = fmaf(x6, a, b); x7 = fmaf(x7, a, b);
        }
        long long end = clock64();
        if (pass == 0) { t[0] = start; t[1] = end; } else { t[2] = start; t[3] = end; }
    }
    res[i] = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
    if (i == 0)
        for (int k = 0; k < 4; k++) clk[k] = t[k];
    SIMT_SITE(2);                                   // exit
}
