#include "../../include/sass_diff.cuh"

// MUFU.EX2 / LG2 / RCP / RSQ / SIN / COS / RCP64H: the approximate PTX instructions directly and
// through the fast-math intrinsics (__expf, __logf, __fdividef, rsqrtf, __sinf, __cosf), plus the
// double reciprocal approximation.  The simulator is held to the ulp / absolute error bounds of
// docs/sass-differential.md, not to bit equality.  a: edge cases and values over the whole
// exponent range; b: values in [-100, 100]; c: values in [-pi, pi].
extern "C" __global__ void s_mufu(const unsigned* a, const unsigned* b, const unsigned* c,
                                  const unsigned long long* d, unsigned* out, int n) {
    SIMT_SITE(1);                                   // entry (trace variant only)
    int i = SASS_DIFF_TID();
    if (i >= n) return;
    float x = as_f32(a[i]), y = as_f32(b[i]), z = as_f32(c[i]);
    float r[10];
    asm("ex2.approx.f32 %0, %1;" : "=f"(r[0]) : "f"(x));
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r[1]) : "f"(y));
    asm("lg2.approx.f32 %0, %1;" : "=f"(r[2]) : "f"(x));
    asm("rcp.approx.f32 %0, %1;" : "=f"(r[3]) : "f"(x));
    asm("rsqrt.approx.f32 %0, %1;" : "=f"(r[4]) : "f"(x));
    asm("sin.approx.f32 %0, %1;" : "=f"(r[5]) : "f"(z));
    asm("cos.approx.f32 %0, %1;" : "=f"(r[6]) : "f"(z));
    asm("sin.approx.ftz.f32 %0, %1;" : "=f"(r[7]) : "f"(y));
    asm("cos.approx.ftz.f32 %0, %1;" : "=f"(r[8]) : "f"(y));
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r[9]) : "f"(y));
    for (int k = 0; k < 10; k++) PUT(k, bits(r[k]));
    PUT(10, bits(__expf(y)));
    PUT(11, bits(__logf(x)));
    PUT(12, bits(__fdividef(y, z)));
    PUT(13, bits(rsqrtf(x)));
    PUT(14, bits(__sinf(y)));
    PUT(15, bits(__cosf(y)));
    double dr;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(dr) : "d"(as_f64(d[i])));
    unsigned long long db = bits64(dr);
    PUT(16, (unsigned)db);
    PUT(17, (unsigned)(db >> 32));
}
