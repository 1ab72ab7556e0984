#include "../../include/simt_trace.cuh"

// v-tput-sfu: every thread runs 8 independent chains of 32 rsqrt.approx.f32 (+FFMA); lane 0 of each warp records
// clk[2*warp] = start, clk[2*warp+1] = end.  Throughput = warps * 32 * 8 * 32 / cycles.
extern "C" __global__ void tput_sfu(const float* in, float* res, long long* clk, float a, float b) {
    SIMT_SITE(1);                                   // entry
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x0 = in[i], x1 = x0 + (float)1, x2 = x0 + (float)2, x3 = x0 + (float)3;
    float x4 = x0 + (float)4, x5 = x0 + (float)5, x6 = x0 + (float)6, x7 = x0 + (float)7;
    long long t0 = clock64();
#pragma unroll 16
    for (int k = 0; k < 32; k++) {
        x0 = rsqrtf(x0) * a + b;
        x1 = rsqrtf(x1) * a + b;
        x2 = rsqrtf(x2) * a + b;
        x3 = rsqrtf(x3) * a + b;
        x4 = rsqrtf(x4) * a + b;
        x5 = rsqrtf(x5) * a + b;
        x6 = rsqrtf(x6) * a + b;
        x7 = rsqrtf(x7) * a + b;
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
