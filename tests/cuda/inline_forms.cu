// PTX forms nvcc emits that PTX mode refused (issue 61): the packed 16-bit SIMD intrinsics
// (add/sub/min/max .u16x2 / .s16x2, vabsdiff4 / vabsdiff2), extended-precision arithmetic with the carry flag
// (add.cc/addc, sub.cc/subc, mad.lo.cc/madc.hi: a 128-bit product and sum as public bignum code
// writes them, and double sin/cos, whose argument reduction uses madc), lop3.b32, and the
// half-precision functions whose inline assembly declares `.reg.b16` names in `{ }` blocks.
#include <cuda_fp16.h>

extern "C" __global__ void simd16(const unsigned* a, const unsigned* b, unsigned* o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i];
    o[0 * n + i] = __vadd2(x, y);
    o[1 * n + i] = __vsub2(x, y);
    o[2 * n + i] = __vmaxu2(x, y);
    o[3 * n + i] = __vminu2(x, y);
    o[4 * n + i] = __vmaxs2(x, y);
    o[5 * n + i] = __vmins2(x, y);
    o[6 * n + i] = __vneg2(x);
    o[7 * n + i] = __vabsdiffs2(x, y);
    unsigned l;
    asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(l) : "r"(x), "r"(y), "r"(i * 0x9E3779B9u));    // a ^ b ^ c
    o[8 * n + i] = l;
    asm("lop3.b32 %0, %1, %2, %3, 0xE8;" : "=r"(l) : "r"(x), "r"(y), "r"(x ^ (y >> 3)));      // majority
    o[9 * n + i] = l;
    o[10 * n + i] = __vsadu4(x, y);                 // vabsdiff4.u32.u32.u32.add
    o[11 * n + i] = __vabsdiffu4(x, y);             // vabsdiff4.u32.u32.u32
    o[12 * n + i] = __vsads4(x, y);
    o[13 * n + i] = __vabsdiffs4(x, y);
    o[14 * n + i] = __vsadu2(x, y);                 // vabsdiff2.u32.u32.u32.add
    o[15 * n + i] = __vabsdiffu2(x, y);
    o[16 * n + i] = (warpSize << 8) | (unsigned)__popc(x);   // WARP_SZ
}

// 128-bit a * b + c of two 64-bit words (low and high word of the product, plus c), and the
// 128-bit sum and difference of (a, b) and (c, a): the carry chains of multi-word arithmetic.
extern "C" __global__ void carry(const unsigned long long* a, const unsigned long long* b,
                                 const unsigned long long* c, unsigned long long* o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long x = a[i], y = b[i], z = c[i];
    unsigned r0, r1, r2, r3;
    asm("{\n\t.reg .u32 alo, ahi, blo, bhi, clo, chi;\n\t"
        "mov.b64 {alo, ahi}, %4;\n\tmov.b64 {blo, bhi}, %5;\n\tmov.b64 {clo, chi}, %6;\n\t"
        "mad.lo.cc.u32 %0, alo, blo, clo;\n\t"
        "madc.hi.cc.u32 %1, alo, blo, chi;\n\t"
        "madc.hi.u32 %2, alo, bhi, 0;\n\t"
        "mad.lo.cc.u32 %1, alo, bhi, %1;\n\t"
        "madc.hi.cc.u32 %2, ahi, blo, %2;\n\t"
        "madc.hi.u32 %3, ahi, bhi, 0;\n\t"
        "mad.lo.cc.u32 %1, ahi, blo, %1;\n\t"
        "madc.lo.cc.u32 %2, ahi, bhi, %2;\n\t"
        "addc.u32 %3, %3, 0;\n\t}"
        : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "l"(x), "l"(y), "l"(z));
    o[0 * n + i] = (unsigned long long)r1 << 32 | r0;
    o[1 * n + i] = (unsigned long long)r3 << 32 | r2;
    unsigned long long s0, s1, d0, d1;
    asm("add.cc.u64 %0, %2, %4;\n\taddc.u64 %1, %3, %5;" : "=l"(s0), "=l"(s1) : "l"(x), "l"(y), "l"(z), "l"(x));
    asm("sub.cc.u64 %0, %2, %4;\n\tsubc.u64 %1, %3, %5;" : "=l"(d0), "=l"(d1) : "l"(x), "l"(y), "l"(z), "l"(x));
    o[2 * n + i] = s0;
    o[3 * n + i] = s1;
    o[4 * n + i] = d0;
    o[5 * n + i] = d1;
    unsigned q0, q1, q2, q3;
    asm("sub.cc.u32 %0, %4, %5;\n\tsubc.cc.u32 %1, %5, %4;\n\tsubc.cc.s32 %2, 0, 0;\n\taddc.u32 %3, 0, 0;"
        : "=r"(q0), "=r"(q1), "=r"(q2), "=r"(q3) : "r"((unsigned)x), "r"((unsigned)y));
    o[6 * n + i] = (unsigned long long)q1 << 32 | q0;
    o[7 * n + i] = (unsigned long long)q3 << 32 | q2;
    double v = __longlong_as_double((long long)z);         // finite doubles of every magnitude
    o[8 * n + i] = (unsigned long long)__double_as_longlong(sin(v));
    o[9 * n + i] = (unsigned long long)__double_as_longlong(cos(v));
}

extern "C" __global__ void half_fns(const __half* a, __half* o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half x = a[i];
    o[0 * n + i] = hexp(x);
    o[1 * n + i] = hlog(x);
    o[2 * n + i] = hsqrt(x);
    o[3 * n + i] = hexp2(x);
    o[4 * n + i] = hlog2(x);
    o[5 * n + i] = hrsqrt(x);
    o[6 * n + i] = hrcp(x);
    o[7 * n + i] = hexp10(x);
    __half2 p = h2exp(__halves2half2(x, __hneg(x)));
    o[8 * n + i] = __low2half(p);
    o[9 * n + i] = __high2half(p);
}
