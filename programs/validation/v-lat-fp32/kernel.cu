#include "../../include/simt_trace.cuh"

// v-lat-fp32: one thread, a dependent chain of 128 fma.rn.f32 (FFMA), clock64 before and after.
// clk = [t0, t1]; latency = (t1 - t0) / 128 (plus the clock read's own cost).
extern "C" __global__ void lat_fp32(const float* in, float* res, long long* clk, float a, float b) {
    SIMT_SITE(1);                                   // entry
    float x = in[0];
    long long t0 = clock64();
#pragma unroll
    for (int i = 0; i < 128; i++) {
        x = fmaf(x, a, b);
    }
    long long t1 = clock64();
    res[0] = x;
    clk[0] = t0;
    clk[1] = t1;
    SIMT_SITE(2);                                   // exit
}
