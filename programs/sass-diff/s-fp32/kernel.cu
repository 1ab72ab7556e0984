#include "../../include/sass_diff.cuh"

// FADD / FMUL / FFMA in every rounding mode (.RN default, .RZ, .RM, .RP) and with .FTZ, FMNMX
// (fminf/fmaxf incl. NaN operands), FSEL, FSETP with every ordered and unordered comparison
// (one bit each), and FCHK with the IEEE division and square root sequences ptxas builds.
extern "C" __global__ void s_fp32(const unsigned* a, const unsigned* b, const unsigned* c,
                                  unsigned* out, int n) {
    SIMT_SITE(1);                                   // entry (trace variant only)
    int i = SASS_DIFF_TID();
    if (i >= n) return;
    float x = as_f32(a[i]), y = as_f32(b[i]), z = as_f32(c[i]);
    PUT(0, bits(x + y));
    PUT(1, bits(__fadd_rz(x, y)));
    PUT(2, bits(__fadd_rd(x, y)));
    PUT(3, bits(__fadd_ru(x, y)));
    PUT(4, bits(x * y));
    PUT(5, bits(__fmul_rz(x, y)));
    PUT(6, bits(__fmul_rd(x, y)));
    PUT(7, bits(__fmul_ru(x, y)));
    PUT(8, bits(fmaf(x, y, z)));
    PUT(9, bits(__fmaf_rz(x, y, z)));
    PUT(10, bits(__fmaf_rd(x, y, z)));
    PUT(11, bits(__fmaf_ru(x, y, z)));
    float f0, f1, f2, f3;
    asm("add.ftz.f32 %0, %1, %2;" : "=f"(f0) : "f"(x), "f"(y));
    asm("mul.ftz.f32 %0, %1, %2;" : "=f"(f1) : "f"(x), "f"(y));
    asm("fma.rn.ftz.f32 %0, %1, %2, %3;" : "=f"(f2) : "f"(x), "f"(y), "f"(z));
    asm("sub.rz.ftz.f32 %0, %1, %2;" : "=f"(f3) : "f"(x), "f"(z));
    PUT(12, bits(f0));
    PUT(13, bits(f1));
    PUT(14, bits(f2));
    PUT(15, bits(f3));
    PUT(16, bits(fminf(x, y)));
    PUT(17, bits(fmaxf(x, z)));
    PUT(18, bits(x > y ? z : y));                  // FSEL on an FSETP result
    unsigned m;
    // every comparison, ordered and unordered, and the NaN tests (one bit each)
    asm("{\n\t.reg .pred p;\n\t.reg .u32 t;\n\tmov.u32 %0, 0;\n\t"
        "setp.eq.f32 p, %1, %2;\n\tselp.u32 t, 1, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.ne.f32 p, %1, %2;\n\tselp.u32 t, 2, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.lt.f32 p, %1, %2;\n\tselp.u32 t, 4, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.le.f32 p, %1, %2;\n\tselp.u32 t, 8, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.gt.f32 p, %1, %2;\n\tselp.u32 t, 16, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.ge.f32 p, %1, %2;\n\tselp.u32 t, 32, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.equ.f32 p, %1, %2;\n\tselp.u32 t, 64, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.neu.f32 p, %1, %2;\n\tselp.u32 t, 128, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.ltu.f32 p, %1, %2;\n\tselp.u32 t, 256, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.leu.f32 p, %1, %2;\n\tselp.u32 t, 512, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.gtu.f32 p, %1, %2;\n\tselp.u32 t, 1024, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.geu.f32 p, %1, %2;\n\tselp.u32 t, 2048, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.num.f32 p, %1, %2;\n\tselp.u32 t, 4096, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.nan.f32 p, %1, %2;\n\tselp.u32 t, 8192, 0, p;\n\tor.b32 %0, %0, t;\n\t"
        "setp.lt.ftz.f32 p, %1, %2;\n\tselp.u32 t, 16384, 0, p;\n\tor.b32 %0, %0, t;\n\t}"
        : "=r"(m) : "f"(x), "f"(y));
    PUT(19, m);
    PUT(20, bits(x / y));                           // FCHK guards the fast division path
    PUT(21, bits(sqrtf(fabsf(z))));
    PUT(22, bits(__frcp_rn(y)));
    PUT(23, bits(-x * fabsf(y) - z));               // negated and absolute operands
}
