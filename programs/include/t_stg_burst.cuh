// t-stg-burst-*: how many global stores a sub-partition takes at once before the store path
// pushes back (t-stg-tput-* gives the steady rate, about a sector a cycle per SM).  Each warp
// issues 64 back-to-back stores, each to a line of its own (STG.E of 32 words, or with
// T_STG_BYTES 32 bytes, one sector), reading the clock after 0, 1, 2, 4, 8, 16, 32 and 64 of
// them; then it waits T_STG_DRAIN cycles so the store path empties, and does it again on fresh
// lines, in the same code (a loop), so the first pass warms the instruction cache, and only the second pass's clocks are kept
// (so that 1024 threads fit in the register file).  Lane 0 of warp w records clk[8 * w + j].
#pragma once
#include "simt_trace.cuh"

#define T_STG_POINTS 8
#define T_STG_DRAIN 4000

#ifdef T_STG_BYTES
typedef unsigned char stg_word;
__device__ __forceinline__ void st_g(stg_word* p, unsigned v) {
    asm volatile("st.global.u8 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
#else
typedef unsigned stg_word;
__device__ __forceinline__ void st_g(stg_word* p, unsigned v) {
    asm volatile("st.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
#endif

#define STG_LINE (128 / (int)sizeof(stg_word))       // words in a 128-byte line
#define STG_RUN(from, to) _Pragma("unroll") for (int k = (from); k < (to); k++) st_g(line + STG_LINE * k, i)

extern "C" __global__ void stg_burst(stg_word* out, long long* clk) {
    SIMT_SITE(1);                                   // entry
    int i = threadIdx.x;
    long long t[T_STG_POINTS];
    __syncthreads();
#pragma unroll 1
    for (int pass = 0; pass < 2; pass++) {
        // lines of 128 bytes: warp w, pass p, store k -> line (w * 2 + p) * 64 + k
        stg_word* line = out + (((i >> 5) * 2 + pass) * 64) * STG_LINE + (i & 31);
        t[0] = clock64();
        STG_RUN(0, 1);
        t[1] = clock64();
        STG_RUN(1, 2);
        t[2] = clock64();
        STG_RUN(2, 4);
        t[3] = clock64();
        STG_RUN(4, 8);
        t[4] = clock64();
        STG_RUN(8, 16);
        t[5] = clock64();
        STG_RUN(16, 32);
        t[6] = clock64();
        STG_RUN(32, 64);
        t[7] = clock64();
        while (clock64() - t[7] < T_STG_DRAIN) { }
    }
    if ((i & 31) == 0) {
#pragma unroll
        for (int j = 0; j < T_STG_POINTS; j++) clk[T_STG_POINTS * (i >> 5) + j] = t[j];
    }
    SIMT_SITE(2);                                   // exit
}
