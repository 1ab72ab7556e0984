// The dependent-load chains of the t-chase-* microbenchmarks: STEPS loads, each address the value
// the load before returned, the clock read after each (kept in clk when `keep`).
#pragma once

#define STEPS 32
#define WORDS 1024

__device__ __forceinline__ long long clock_now() {
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory");
    return t;
}

__device__ __forceinline__ unsigned load_nc(const unsigned* p) {
    unsigned v;
    asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ unsigned load_shared(const unsigned* p) {
    unsigned v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "l"(__cvta_generic_to_shared(p)) : "memory");
    return v;
}

template <bool SHARED>
__device__ __forceinline__ unsigned chase(const unsigned* chain, unsigned j, long long* out, bool keep) {
    long long t[STEPS + 1];
    t[0] = clock_now();
#pragma unroll
    for (int k = 0; k < STEPS; k++) {
        j = SHARED ? load_shared(chain + j) : load_nc(chain + j);
        t[k + 1] = clock_now();
    }
    if (keep) {
#pragma unroll
        for (int k = 0; k <= STEPS; k++) out[k] = t[k];
    }
    return j;
}
