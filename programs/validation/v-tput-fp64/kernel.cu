#include "../../include/simt_trace.cuh"

// v-tput-fp64: every thread runs 8 independent chains of 32 fma.rn.f64; lane 0 of each warp records
// clk[2*warp] = start, clk[2*warp+1] = end.  Throughput = warps * 32 * 8 * 32 / cycles.
extern "C" __global__ void tput_fp64(const double* in, double* res, long long* clk, double a, double b) {
    SIMT_SITE(1);                                   // entry
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double x0 = in[i], x1 = x0 + (double)1, x2 = x0 + (double)2, x3 = x0 + (double)3;
    double x4 = x0 + (double)4, x5 = x0 + (double)5, x6 = x0 + (double)6, x7 = x0 + (double)7;
    long long t0 = clock64();
#pragma unroll 16
    for (int k = 0; k < 32; k++) {
        x0 = fma(x0, a, b);
        x1 = fma(x1, a, b);
        x2 = fma(x2, a, b);
        x3 = fma(x3, a, b);
        x4 = fma(x4, a, b);
        x5 = fma(x5, a, b);
        x6 = fma(x6, a, b);
        x7 = fma(x7, a, b);
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
