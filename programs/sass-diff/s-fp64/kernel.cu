#include "../../include/sass_diff.cuh"

// DADD / DMUL / DFMA in every rounding mode, DSETP with every ordered and unordered comparison,
// and the IEEE double division / square root sequences (MUFU.RCP64H seed, DFMA refinement).
// Operands are raw 64-bit patterns; results are written as (low, high) word pairs.
#define PUT64(k, v) do { unsigned long long t_ = bits64(v); PUT(2 * (k), (unsigned)t_); \
                         PUT(2 * (k) + 1, (unsigned)(t_ >> 32)); } while (0)

extern "C" __global__ void s_fp64(const unsigned long long* a, const unsigned long long* b,
                                  const unsigned long long* c, unsigned* out, int n) {
    SIMT_SITE(1);                                   // entry (trace variant only)
    int i = SASS_DIFF_TID();
    if (i >= n) return;
    double x = as_f64(a[i]), y = as_f64(b[i]), z = as_f64(c[i]);
    PUT64(0, x + y);
    PUT64(1, __dadd_rz(x, y));
    PUT64(2, __dadd_rd(x, z));
    PUT64(3, __dadd_ru(y, z));
    PUT64(4, x * y);
    PUT64(5, __dmul_rz(x, y));
    PUT64(6, __dmul_rd(x, z));
    PUT64(7, __dmul_ru(y, z));
    PUT64(8, fma(x, y, z));
    PUT64(9, __fma_rz(x, y, z));
    PUT64(10, __fma_rd(x, y, z));
    PUT64(11, __fma_ru(x, y, z));
    PUT64(12, -x * fabs(z) - y);
    PUT64(13, x / y);
    PUT64(14, sqrt(fabs(z)));
    PUT64(15, x > z ? y : z);
    unsigned m;
    asm("{\n\t.reg .pred p;\n\t.reg .u32 t;\n\tmov.u32 %0, 0;\n\t"
        "setp.eq.f64 p, %1, %2;\n\tselp.u32 t, 1, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.ne.f64 p, %1, %2;\n\tselp.u32 t, 2, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.lt.f64 p, %1, %2;\n\tselp.u32 t, 4, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.le.f64 p, %1, %2;\n\tselp.u32 t, 8, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.gt.f64 p, %1, %2;\n\tselp.u32 t, 16, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.ge.f64 p, %1, %2;\n\tselp.u32 t, 32, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.equ.f64 p, %1, %2;\n\tselp.u32 t, 64, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.neu.f64 p, %1, %2;\n\tselp.u32 t, 128, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.ltu.f64 p, %1, %2;\n\tselp.u32 t, 256, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.leu.f64 p, %1, %2;\n\tselp.u32 t, 512, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.gtu.f64 p, %1, %2;\n\tselp.u32 t, 1024, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.geu.f64 p, %1, %2;\n\tselp.u32 t, 2048, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.num.f64 p, %1, %2;\n\tselp.u32 t, 4096, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.nan.f64 p, %1, %2;\n\tselp.u32 t, 8192, 0, p;\n\tor.b32 %0, %0, t;\n\t}"
        : "=r"(m) : "d"(x), "d"(y));
    PUT(32, m);
}
