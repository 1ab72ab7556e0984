// What a convergence barrier costs the H100 by the number of groups that reach its BSYNC apart
// (tools/reconverge_groups.py).  Each iteration runs a chain of up to 32 FFMAs with an exit test
// after each; lane l leaves after step groups - 1 - ((l mod groups) & spread), so with spread = -1
// the lanes leave in `groups` groups, one after each of the first `groups` steps, and each group
// reaches the chain's BSYNC on its own; with spread = 0 they all leave together after step
// groups - 1 (the same instructions, one arrival).  Lane 0 of each warp w writes clk[2 w],
// clk[2 w + 1]: the clock before and after its loop.
#define STEPS 128

__device__ __forceinline__ long long clock_now() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return t; }

extern "C" __global__ void k_exit_groups(long long* clk, float* out, int groups, int spread, float a, float b) {
    const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    const int exit_at = groups - 1 - (int)((lane % (unsigned)groups) & (unsigned)spread);
    float x = threadIdx.x * 0.001f;
    const long long t0 = clock_now();
#pragma unroll 1
    for (int i = 0; i < STEPS; i++) {
#pragma unroll
        for (int s = 0; s < 32; s++) {
            x = fmaf(x, a, b);
            if (s == exit_at) break;
        }
        x = x * b;
    }
    const long long t1 = clock_now();
    out[threadIdx.x] = x;
    if (lane == 0) { clk[2 * warp] = t0; clk[2 * warp + 1] = t1; }
}
