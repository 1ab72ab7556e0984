// t-fetch-align-K: where a loop's branch target sits in its 128-byte instruction-cache line (8
// SASS instructions), and what that costs a lone warp.  The loop is t-fmul1-w1's kind: one
// dependent FMUL per iteration and its counter (ptxas: FMUL, VIADD, ISETP, BRA); PRE dependent
// FMULs by kernel parameters (one instruction each) before the loop move it PRE instructions further down the code, so
// the eight programs put the loop's first instruction at each slot of a line (nvdisasm shows where).
// clk[2 w], clk[2 w + 1]: clock64() around the loop, warp w (one warp per sub-partition).
#pragma once
#include "simt_trace.cuh"

extern "C" __global__ void fetch_align(const float* in, float* out, long long* clk, float m, int n, float p1,
                                       float p2, float p3, float p4, float p5, float p6, float p7, float p8,
                                       float p9, float p10, float p11) {
    SIMT_SITE(1);
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[t];
    const float p[12] = {0.f, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11};
#pragma unroll
    for (int k = 1; k <= PRE; k++) x *= p[k];
    const long long t0 = clock64();
#pragma unroll 1
    for (int i = 0; i < n; i++) x *= m;
    const long long t1 = clock64();
    out[t] = x;
    if ((threadIdx.x & 31) == 0) {
        clk[2 * (t / 32)] = t0;
        clk[2 * (t / 32) + 1] = t1;
    }
    SIMT_SITE(2);
}
