#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "../../include/sass_diff.cuh"

// Families ptxas emits for ordinary CUDA that isa/sass.yaml does not list yet, kept apart so that
// the other s-* programs need only the table's families: FRND (rintf / floorf / ceilf / truncf and
// the double forms), HSET2 (__hgt2-style comparisons that return 1.0 / 0.0 halves), VIMNMX3
// (three-way min / max), IDP (__dp4a / __dp2a dot products), I2I (saturating narrowing conversions),
// BMSK (bit-field insert masks).
__device__ __forceinline__ __half2 h2(unsigned u) { return *(__half2*)&u; }
__device__ __forceinline__ __nv_bfloat162 b2(unsigned u) { return *(__nv_bfloat162*)&u; }
__device__ __forceinline__ unsigned w(__half2 v) { return *(unsigned*)&v; }
__device__ __forceinline__ unsigned w(__nv_bfloat162 v) { return *(unsigned*)&v; }

extern "C" __global__ void s_extra(const unsigned* a, const unsigned* b, const unsigned* c,
                                   const unsigned long long* d, unsigned* out, int n) {
    SIMT_SITE(1);                                   // entry (trace variant only)
    int i = SASS_DIFF_TID();
    if (i >= n) return;
    unsigned x = a[i], y = b[i], z = c[i];
    float f = as_f32(x);
    double g = as_f64(d[i]);
    PUT(0, bits(rintf(f)));
    PUT(1, bits(floorf(f)));
    PUT(2, bits(ceilf(f)));
    PUT(3, bits(truncf(f)));
    PUT(4, (unsigned)(bits64(floor(g)) >> 32));
    PUT(5, (unsigned)bits64(rint(g)));
    PUT(6, w(__hgt2(h2(x), h2(y))));
    PUT(7, w(__hleu2(h2(y), h2(z))));
    PUT(8, w(__heq2(b2(x), b2(z))));
    PUT(9, (unsigned)__vimax3_s32((int)x, (int)y, (int)z));
    PUT(10, __vimin3_u32(x, y, z));
    PUT(11, (unsigned)__dp4a((int)x, (int)y, (int)z));
    PUT(12, __dp4a(x, y, z));
    PUT(13, (unsigned)__dp2a_lo((int)x, (int)y, (int)z));
    unsigned s8, u16, ins;
    asm("cvt.sat.s8.s32 %0, %1;" : "=r"(s8) : "r"(x));
    asm("cvt.sat.u16.s32 %0, %1;" : "=r"(u16) : "r"(y));
    PUT(14, s8);
    PUT(15, u16);
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(ins) : "r"(x), "r"(y), "r"(z & 31u), "r"((z >> 8) & 31u));
    PUT(16, ins);
}
