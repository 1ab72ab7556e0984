#include "../../include/simt_trace.cuh"

// t-ldg-path: what the load's caching form adds to a global load's latency.  One thread follows
// four chains through a freshly copied buffer (chain[j] = j + 64: one load per 256 bytes, so
// every load is a host-copied line's first touch), one chain per form, then follows each chain
// again (its lines now in L1 where the form allocates there, else in L2):
//   0 ld.global.cg (LDG.E.STRONG.GPU: L2 only, as the latency chases), 1 ld.global.ca
//   (LDG.E.STRONG.SM), 2 ld.global (LDG.E), 3 ld.global.nc (LDG.E.CONSTANT, `const __restrict__`).
// The clock is read after each load: clk[66 * form + 33 * pass + k + 1] - clk[... + k] is load k's
// latency.
#define STEPS 32
#define STRIDE 64                                   // words: the chain's step
#define REGION (STRIDE * (STEPS + 1))               // words: one form's chain

__device__ __forceinline__ long long clock_now() {
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory");
    return t;
}

#define LOAD_FORM(name, ptx)                                                        \
    __device__ __forceinline__ unsigned name(const unsigned* p) {                   \
        unsigned v;                                                                 \
        asm volatile(ptx " %0, [%1];" : "=r"(v) : "l"(p) : "memory");               \
        return v;                                                                   \
    }
LOAD_FORM(load_cg, "ld.global.cg.u32")
LOAD_FORM(load_ca, "ld.global.ca.u32")
LOAD_FORM(load_plain, "ld.global.u32")
LOAD_FORM(load_nc, "ld.global.nc.u32")

template <unsigned (*LOAD)(const unsigned*)>
__device__ __forceinline__ unsigned chase(const unsigned* chain, unsigned j, long long* out) {
    long long t[STEPS + 1];
    t[0] = clock_now();
#pragma unroll
    for (int k = 0; k < STEPS; k++) {
        j = LOAD(chain + j);
        t[k + 1] = clock_now();
    }
#pragma unroll
    for (int k = 0; k <= STEPS; k++) out[k] = t[k];
    return j;
}

// The second pass starts from a value the first pass's last load returned (always the same
// start), so that ptxas cannot merge the two passes' .nc loads, which it treats as pure.
template <unsigned (*LOAD)(const unsigned*)>
__device__ __forceinline__ unsigned both_passes(const unsigned* chain, int form, long long* clk) {
    unsigned start = form * REGION;
    unsigned a = chase<LOAD>(chain, start, clk + 66 * form);
    unsigned again = start + (a == 0xFFFFFFFFu ? 1u : 0u);
    unsigned b = chase<LOAD>(chain, again, clk + 66 * form + 33);
    return a + b;
}

extern "C" __global__ void ldg_path(const unsigned* chain, unsigned* res, long long* clk) {
    SIMT_SITE(1);                                   // entry
    unsigned r = both_passes<load_cg>(chain, 0, clk);
    r += both_passes<load_ca>(chain, 1, clk);
    r += both_passes<load_plain>(chain, 2, clk);
    r += both_passes<load_nc>(chain, 3, clk);
    res[0] = r;
    SIMT_SITE(2);                                   // exit
}
