// t-ffma-*, t-sched-5w: T_FFMA_WARPS warps (warp w on sub-partition w % 4) each stream 512
// independent FFMAs (8 chains of 64) and read the clock T_FFMA_READS times: before the first FFMA,
// after the last, and (T_FFMA_READS > 2) after every 64.  clk[T_FFMA_READS * warp + j].  Comparing
// the t-ffma variants separates a lone warp's FFMA rate from the cost of the clock reads; t-sched-5w
// (5 warps, so warps 0 and 4 share sub-partition 0) shows how two warps share one scheduler.
#pragma once
#include "simt_trace.cuh"
#include "t_common.cuh"

extern "C" __global__ void ffma_stream(const float* in, float* res, long long* clk, float a, float b) {
    SIMT_SITE(1);                                   // entry
    int i = threadIdx.x;
    CHAINS8_START(in[i]);
    long long t[T_FFMA_READS];
    t[0] = clock64();
#pragma unroll
    for (int j = 1; j <= 8; j++) {
#pragma unroll
        for (int k = 0; k < 8; k++) {
            CHAINS8_FFMA(a, b);
        }
        if (T_FFMA_READS > 2 || j == 8) t[T_FFMA_READS > 2 ? j : 1] = clock64();
    }
    res[i] = CHAINS8_SUM();
    if ((i & 31) == 0)
        for (int j = 0; j < T_FFMA_READS; j++) clk[T_FFMA_READS * (i >> 5) + j] = t[j];
    SIMT_SITE(2);                                   // exit
}
