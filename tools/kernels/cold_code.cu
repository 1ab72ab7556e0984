// How long a warp's first pass over code takes against its second (tools/cold_code.py).  Each
// warp runs `reps` passes of a straight-line block of 32 independent FFMA chains x 4 steps (128
// FFMAs, 16 code lines of 128 bytes) that ptxas leaves in place; lane 0 of warp w writes the clock
// before and after each pass to clk[(w * 4 + pass) * 2 ...].  With `skip`, the first pass is
// jumped over, so the block's first execution comes later in the kernel.
__device__ __forceinline__ long long clock_now() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return t; }

extern "C" __global__ void k_cold_code(long long* clk, float* out, int reps, float a, float b) {
    const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    float v[8];
#pragma unroll
    for (int k = 0; k < 8; k++) v[k] = threadIdx.x * 0.001f + k;
#pragma unroll 1
    for (int r = 0; r < reps; r++) {
        const long long t0 = clock_now();
#pragma unroll
        for (int s = 0; s < 16; s++) {
#pragma unroll
            for (int k = 0; k < 8; k++) v[k] = fmaf(v[k], a, b);
        }
        const long long t1 = clock_now();
        if (lane == 0) { clk[(warp * 4 + r) * 2] = t0; clk[(warp * 4 + r) * 2 + 1] = t1; }
    }
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 8; k++) s += v[k];
    out[threadIdx.x] = s;
}
