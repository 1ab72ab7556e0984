// Pieces the t-* timing microbenchmarks share: eight independent FFMA chains per thread (declared,
// advanced and summed by macros, so the kernels' PTX is what the code written out would give), an
// xor of eight accumulators, and a warp leader's [start, end] clock pair.
#pragma once

#define CHAINS8_START(v) float x0 = (v), x1 = x0 + 1.0f, x2 = x0 + 2.0f, x3 = x0 + 3.0f, \
                               x4 = x0 + 4.0f, x5 = x0 + 5.0f, x6 = x0 + 6.0f, x7 = x0 + 7.0f
#define CHAINS8_FFMA(a, b) do { \
        x0 = fmaf(x0, a, b); x1 = fmaf(x1, a, b); x2 = fmaf(x2, a, b); x3 = fmaf(x3, a, b); \
        x4 = fmaf(x4, a, b); x5 = fmaf(x5, a, b); x6 = fmaf(x6, a, b); x7 = fmaf(x7, a, b); \
    } while (0)
#define CHAINS8_SUM() (((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7)))

__device__ __forceinline__ unsigned xor8(const unsigned (&acc)[8]) {
    return ((acc[0] ^ acc[1]) ^ (acc[2] ^ acc[3])) ^ ((acc[4] ^ acc[5]) ^ (acc[6] ^ acc[7]));
}

// lane 0 of each warp: clk[2 * warp] = t0, clk[2 * warp + 1] = t1
__device__ __forceinline__ void warp_span(long long* clk, int i, long long t0, long long t1) {
    if ((i & 31) == 0) {
        clk[2 * (i >> 5)] = t0;
        clk[2 * (i >> 5) + 1] = t1;
    }
}
