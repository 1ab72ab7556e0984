// t-regbank-*: one warp streams 4 passes of 256 FFMAs over 16 independent chains and reads the
// clock around each pass: clk[2 * pass + j].  All values are zero (`in` is zeros), so a variant's
// kernel.sass-patch.yaml may renumber the FFMAs' source registers among the zero-valued ones
// (R2-R13, R20-R25 in ptxas's allocation) without changing a result: the passes then read their
// three sources from chosen register banks, with or without the operand reuse cache.
#pragma once
#include "simt_trace.cuh"

#define T_REGBANK_CHAINS 16
extern "C" __global__ void regbank(const float* in, float* res, long long* clk) {
    SIMT_SITE(1);                                   // entry
    int i = threadIdx.x;
    float x[T_REGBANK_CHAINS];
#pragma unroll
    for (int k = 0; k < T_REGBANK_CHAINS; k++) x[k] = in[k * 32 + i];
    float a = in[T_REGBANK_CHAINS * 32 + i], b = in[T_REGBANK_CHAINS * 32 + 32 + i];
#pragma unroll 1
    for (int pass = 0; pass < 4; pass++) {
        long long t0 = clock64();
#pragma unroll
        for (int r = 0; r < 256 / T_REGBANK_CHAINS; r++) {
#pragma unroll
            for (int k = 0; k < T_REGBANK_CHAINS; k++) x[k] = fmaf(x[k], a, b);
        }
        long long t1 = clock64();
        if (i == 0) { clk[2 * pass] = t0; clk[2 * pass + 1] = t1; }
    }
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < T_REGBANK_CHAINS; k++) s += x[k];
    res[i] = s;
    SIMT_SITE(2);                                   // exit
}
