// t-mio-*: how fast a warp can issue a burst of shared-memory loads before the memory-instruction
// queue pushes back.  Each of T_MIO_WARPS warps (one per sub-partition) issues 32 independent
// conflict-free LDS.32 back to back, reading the clock after 0, 4, 8, 16 and 32 of them and
// again once all 32 results are used; two passes (the first warms the instruction cache).
// Lane 0 of warp w records clk[12 * w + 6 * pass + j], j = 0..5.
#pragma once
#include "simt_trace.cuh"

#define T_MIO_POINTS 6

extern "C" __global__ void mio_burst(const unsigned* in, unsigned* res, long long* clk) {
    SIMT_SITE(1);                                   // entry
    __shared__ unsigned sh[1024];
    int i = threadIdx.x;
    for (int k = i; k < 1024; k += blockDim.x) sh[k] = in[k & 255] + (unsigned)k;
    __syncthreads();
    volatile const unsigned* base = sh + (i & 31);
    unsigned total = 0;
    long long t[2][T_MIO_POINTS];
#pragma unroll
    for (int pass = 0; pass < 2; pass++) {
        unsigned v[32];
        t[pass][0] = clock64();
#pragma unroll
        for (int k = 0; k < 4; k++) v[k] = base[32 * k];
        t[pass][1] = clock64();
#pragma unroll
        for (int k = 4; k < 8; k++) v[k] = base[32 * k];
        t[pass][2] = clock64();
#pragma unroll
        for (int k = 8; k < 16; k++) v[k] = base[32 * k];
        t[pass][3] = clock64();
#pragma unroll
        for (int k = 16; k < 32; k++) v[k] = base[32 * k];
        t[pass][4] = clock64();
        unsigned acc = 0;
#pragma unroll
        for (int k = 0; k < 32; k++) acc ^= v[k];
        total += acc;
        t[pass][5] = clock64();
    }
    res[i] = total;
    if ((i & 31) == 0) {
#pragma unroll
        for (int pass = 0; pass < 2; pass++)
#pragma unroll
            for (int j = 0; j < T_MIO_POINTS; j++) clk[12 * (i >> 5) + T_MIO_POINTS * pass + j] = t[pass][j];
    }
    SIMT_SITE(2);                                   // exit
}
