// tools/pipe_phases.py: seed 003's plain load-then-compute loop (programs/include/seed003_pipe.cuh)
// with clocks around each phase.  Every warp runs m iterations of: t0 = clock; load x[i*n + g];
// h += v; t1 = clock; 8 dependent mixing rounds; t2 = clock.  Lane 0 of every warp writes, for
// the WINDOW iterations from FIRST on, (t0, t1, t2) to rec[warp][k][3], and the sums of t1 - t0
// (the load's wait) and t2 - t1 (the chain) over all iterations, its SM and its warp slot to
// info[warp][4].
#define ROUNDS 8
#define FIRST 32
#define WINDOW 8

__device__ __forceinline__ long long clk() {
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory");
    return t;
}

extern "C" __global__ void pipe_phases(const unsigned int* __restrict__ x, unsigned int* __restrict__ out,
                                       long long* rec, long long* info, int n, int m) {
    __syncthreads();
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    const int warp = g >> 5;
    const bool lead = (threadIdx.x & 31) == 0;
    unsigned int h = (unsigned int)g;
    long long wait = 0, chain = 0;
#pragma unroll 1
    for (int i = 0; i < m; i++) {
        long long t0 = clk();
        unsigned int v = x[(long long)i * n + g];
        h += v;
        asm volatile("" : "+r"(h));
        long long t1 = clk();
#pragma unroll
        for (int r = 0; r < ROUNDS; r++) {
            h ^= h >> 15;
            h *= 0x2C1B3C6Du;
        }
        asm volatile("" : "+r"(h));
        long long t2 = clk();
        wait += t1 - t0;
        chain += t2 - t1;
        if (lead && i >= FIRST && i < FIRST + WINDOW) {
            long long* r = rec + ((long long)warp * WINDOW + (i - FIRST)) * 3;
            r[0] = t0; r[1] = t1; r[2] = t2;
        }
    }
    out[g] = h;
    if (lead) {
        unsigned int sm, slot;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        asm volatile("mov.u32 %0, %%warpid;" : "=r"(slot));
        info[4 * warp] = wait; info[4 * warp + 1] = chain; info[4 * warp + 2] = sm; info[4 * warp + 3] = slot;
    }
}

// The same loop without its load (h += i), so that only the chain and the loop's own
// instructions compete for the sub-partition: lane 0 of every warp writes its cycles for m
// iterations, its SM and its warp slot to info[warp][4] (the first word 0).
extern "C" __global__ void chain_only(unsigned int* __restrict__ out, long long* info, int m) {
    __syncthreads();
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int h = (unsigned int)g;
    long long t0 = clk();
#pragma unroll 1
    for (int i = 0; i < m; i++) {
        h += (unsigned int)i;
#pragma unroll
        for (int r = 0; r < ROUNDS; r++) {
            h ^= h >> 15;
            h *= 0x2C1B3C6Du;
        }
    }
    asm volatile("" : "+r"(h));
    long long t1 = clk();
    out[g] = h;
    if ((threadIdx.x & 31) == 0) {
        const int warp = g >> 5;
        unsigned int sm, slot;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        asm volatile("mov.u32 %0, %%warpid;" : "=r"(slot));
        info[4 * warp] = 0; info[4 * warp + 1] = t1 - t0; info[4 * warp + 2] = sm; info[4 * warp + 3] = slot;
    }
}
