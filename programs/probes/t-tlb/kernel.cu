#include "../../include/simt_trace.cuh"

// t-tlb: first touch of memory pages.  One thread follows a chain through a freshly copied 68 MiB
// buffer, one ld.global.cg per 2 MiB (chain[j] = j + 524288), and reads the clock after issuing
// each load, so clk[k + 1] - clk[k] is load k's latency.  Three passes of 32 loads: (0) cold, every
// load the first touch of its 2 MiB region; (1) the same lines again (L2 hits, translations warm);
// (2) lines 64 KiB further on in the same 2 MiB regions (DRAM again, but inside regions already
// touched: warm if pages are 2 MiB, cold if they are 64 KiB).  clk = 3 x 33 clock values.
#define STEPS 32

__device__ __forceinline__ unsigned load_cg(const unsigned* p) {
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ long long clock_now() {
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory");
    return t;
}

__device__ __forceinline__ unsigned chase(const unsigned* chain, unsigned j, long long* out) {
    long long t[STEPS + 1];
    t[0] = clock_now();
#pragma unroll
    for (int k = 0; k < STEPS; k++) {
        j = load_cg(chain + j);
        t[k + 1] = clock_now();
    }
#pragma unroll
    for (int k = 0; k <= STEPS; k++) out[k] = t[k];
    return j;
}

extern "C" __global__ void tlb(const unsigned* chain, unsigned* res, long long* clk, unsigned offset) {
    SIMT_SITE(1);                                   // entry
    unsigned a = chase(chain, 0, clk);
    unsigned b = chase(chain, 0, clk + STEPS + 1);
    unsigned c = chase(chain, offset, clk + 2 * (STEPS + 1));
    res[0] = a + b + c;
    SIMT_SITE(2);                                   // exit
}
