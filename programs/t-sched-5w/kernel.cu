#include "../include/simt_trace.cuh"

// t-sched-5w: how a sub-partition's scheduler shares issue between two warps.  Five warps: warps
// 0 and 4 share sub-partition 0 (warp w runs on sub-partition w % 4), warps 1-3 have one each.
// Every warp issues 512 independent FFMAs (8 chains of 64) and reads the clock before the first
// and after every 64: clk[9 * warp + j], j = 0..8.  Interleaved progress of warps 0 and 4 means
// round-robin issue, one finishing before the other starts means greedy issue.
extern "C" __global__ void sched_5w(const float* in, float* res, long long* clk, float a, float b) {
    SIMT_SITE(1);                                   // entry
    int i = threadIdx.x;
    float x0 = in[i], x1 = x0 + 1.0f, x2 = x0 + 2.0f, x3 = x0 + 3.0f;
    float x4 = x0 + 4.0f, x5 = x0 + 5.0f, x6 = x0 + 6.0f, x7 = x0 + 7.0f;
    long long t[9];
    t[0] = clock64();
#pragma unroll
    for (int j = 1; j <= 8; j++) {
#pragma unroll
        for (int k = 0; k < 8; k++) {
            x0 = fmaf(x0, a, b); x1 = fmaf(x1, a, b); x2 = fmaf(x2, a, b); x3 = fmaf(x3, a, b);
            x4 = fmaf(x4, a, b); x5 = fmaf(x5, a, b); x6 = fmaf(x6, a, b); x7 = fmaf(x7, a, b);
        }
        t[j] = clock64();
    }
    res[i] = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
    if ((i & 31) == 0)
        for (int j = 0; j < 9; j++) clk[9 * (i >> 5) + j] = t[j];
    SIMT_SITE(2);                                   // exit
}
