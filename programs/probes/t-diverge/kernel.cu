#include "../../include/simt_trace.cuh"

// t-diverge: the cost of a divergent if/else (BSSY, the two sides one after the other, BSYNC)
// against the same code run converged.  One warp runs the same loop twice: 64 iterations of
// `if (lane < split) 8 dependent FFMAs on x else 8 on y`, first with split = 32 (every lane on one
// side: converged), then with split = 16 (half and half: both sides run).  clk = [converged
// start, end, divergent start, end]; per-iteration cost = span / 64.
#include "../../include/t_diverge.cuh"

extern "C" __global__ void diverge(const float* in, float* res, long long* clk, float a, float b,
                                   int converged, int divergent) {
    SIMT_SITE(1);                                   // entry
    float x = in[threadIdx.x], y = x + 1.0f;
    long long t[4];
    float r1 = run(converged, x, y, a, b, t);
    float r2 = run(divergent, x, y, a, b, t + 2);
    res[threadIdx.x] = r1 + r2;
    if (threadIdx.x == 0)
        for (int k = 0; k < 4; k++) clk[k] = t[k];
    SIMT_SITE(2);                                   // exit
}
