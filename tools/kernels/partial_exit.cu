// What it costs the lanes that go on when the rest of their warp exits (tools/partial_exit.py).
// Every lane stores `stores` words (a line per warp each, to global memory), then runs a chain of
// `delay` dependent FFMAs; lanes at or above `keep` then exit, and the others go on to a clock
// read.  Lane 0 of each warp w writes clk[3 w .. 3 w + 2]: the clock before its stores, after its
// FFMA chain (just before the exit) and after the exit.
__device__ __forceinline__ long long clock_now() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return t; }

extern "C" __global__ void k_partial_exit(long long* clk, float* out, int stores, int delay, int keep, float a, float b) {
    const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    float x = threadIdx.x * 0.001f;
    const long long t0 = clock_now();
#pragma unroll 1
    for (int s = 0; s < stores; s++) out[s * blockDim.x + threadIdx.x] = x + s;
#pragma unroll 1
    for (int d = 0; d < delay; d++) x = fmaf(x, a, b);
    const long long t1 = clock_now();
    if ((int)lane >= keep) return;
    const long long t2 = clock_now();
    if (lane == 0) { clk[3 * warp] = t0; clk[3 * warp + 1] = t1; clk[3 * warp + 2] = t2; }
    else out[threadIdx.x] = x;
}
