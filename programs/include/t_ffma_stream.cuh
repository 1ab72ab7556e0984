// t-ffma-*: one warp per sub-partition (T_FFMA_WARPS warps in the block) streams 512 independent
// FFMAs (8 chains of 64) and reads the clock T_FFMA_READS times: before the first FFMA, after the
// last, and (T_FFMA_READS > 2) after every 64.  clk[T_FFMA_READS * warp + j].  Comparing the
// variants separates the FFMA issue rate of a lone warp from the cost of the clock reads.
#pragma once
#include "simt_trace.cuh"

extern "C" __global__ void ffma_stream(const float* in, float* res, long long* clk, float a, float b) {
    SIMT_SITE(1);                                   // entry
    int i = threadIdx.x;
    float x0 = in[i], x1 = x0 + 1.0f, x2 = x0 + 2.0f, x3 = x0 + 3.0f;
    float x4 = x0 + 4.0f, x5 = x0 + 5.0f, x6 = x0 + 6.0f, x7 = x0 + 7.0f;
    long long t[T_FFMA_READS];
    t[0] = clock64();
#pragma unroll
    for (int j = 1; j <= 8; j++) {
#pragma unroll
        for (int k = 0; k < 8; k++) {
            x0 = fmaf(x0, a, b); x1 = fmaf(x1, a, b); x2 = fmaf(x2, a, b); x3 = fmaf(x3, a, b);
            x4 = fmaf(x4, a, b); x5 = fmaf(x5, a, b); x6 = fmaf(x6, a, b); x7 = fmaf(x7, a, b);
        }
        if (T_FFMA_READS > 2 || j == 8) t[T_FFMA_READS > 2 ? j : 1] = clock64();
    }
    res[i] = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
    if ((i & 31) == 0)
        for (int j = 0; j < T_FFMA_READS; j++) clk[T_FFMA_READS * (i >> 5) + j] = t[j];
    SIMT_SITE(2);                                   // exit
}
