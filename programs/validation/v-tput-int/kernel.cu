#include "../../include/simt_trace.cuh"

// v-tput-int: every thread runs 8 independent chains of 64 mad.lo.s32; lane 0 of each warp records
// clk[2*warp] = start, clk[2*warp+1] = end.  Throughput = warps * 32 * 8 * 64 / cycles.
extern "C" __global__ void tput_int(const unsigned* in, unsigned* res, long long* clk, unsigned a, unsigned b) {
    SIMT_SITE(1);                                   // entry
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x0 = in[i], x1 = x0 + (unsigned)1, x2 = x0 + (unsigned)2, x3 = x0 + (unsigned)3;
    unsigned x4 = x0 + (unsigned)4, x5 = x0 + (unsigned)5, x6 = x0 + (unsigned)6, x7 = x0 + (unsigned)7;
    long long t0 = clock64();
#pragma unroll 16
    for (int k = 0; k < 64; k++) {
        x0 = x0 * a + b;
        x1 = x1 * a + b;
        x2 = x2 * a + b;
        x3 = x3 * a + b;
        x4 = x4 * a + b;
        x5 = x5 * a + b;
        x6 = x6 * a + b;
        x7 = x7 * a + b;
    }
    long long t1 = clock64();
    res[i] = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
    if ((threadIdx.x & 31) == 0) {
        SIMT_SITE(2);                               // warp leaders record their span
        int w = i >> 5;
        clk[2 * w] = t0;
        clk[2 * w + 1] = t1;
    }
    SIMT_SITE(3);                                   // exit
}
