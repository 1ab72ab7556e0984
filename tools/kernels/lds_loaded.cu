// How long a dependent LDS takes while other warps keep the LD/ST pipe busy (tools/lds_loaded.py).
// Warps 0-3 (one per sub-partition) chase: each of `steps` LDS.32 reads the word the previous one
// returned (32 lanes, conflict-free: lane l's word holds l).  Every other running warp (bit w of
// `active`) issues `iters` iterations of 8 independent LDS.32.  Lane 0 of each running warp
// writes clk[2 w], clk[2 w + 1]: the clock before and after its loop.
#define WARPS 32

extern "C" __global__ void __launch_bounds__(1024) k_lds_loaded(long long* clk, unsigned* out, unsigned active,
                                                               int steps, int iters) {
    __shared__ unsigned s[8 * 512];
    const unsigned w = threadIdx.x / 32, lane = threadIdx.x & 31;
    for (int i = threadIdx.x; i < 8 * 512; i += blockDim.x) s[i] = i & 511;
    __syncthreads();
    if (!((active >> w) & 1)) return;
    const unsigned base = (unsigned)__cvta_generic_to_shared(s);
    unsigned acc = lane;
    long long t0, t1;
    if (w < 4) {
        t0 = clock64();
#pragma unroll 1
        for (int i = 0; i < steps; i++)
            asm volatile("ld.shared.u32 %0, [%1];" : "=r"(acc) : "r"(base + 4 * acc) : "memory");
        t1 = clock64();
    } else {
        const unsigned a = base + 4 * lane;
        t0 = clock64();
#pragma unroll 1
        for (int it = 0; it < iters; it++) {
#pragma unroll
            for (int j = 0; j < 8; j++) {
                unsigned x;
                asm volatile("ld.shared.u32 %0, [%1];" : "=r"(x) : "r"(a + j * 2048) : "memory");
                acc ^= x;
            }
        }
        t1 = clock64();
    }
    out[threadIdx.x] = acc;
    if (lane == 0) { clk[2 * w] = t0; clk[2 * w + 1] = t1; }
}
