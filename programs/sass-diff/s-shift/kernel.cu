#include "../../include/sass_diff.cuh"

// SHF.L/.R with .U32/.S32/.HI, funnel shifts (.W wrap and clamp), 64-bit shifts (.U64/.S64),
// shift counts >= 32 (PTX clamps shl/shr counts), SGXT (sign / zero extension of a bit field via
// bfe), LEA / LEA.HI / LEA.HI.X / LEA.HI.X.SX32 (scaled 64-bit address arithmetic).
extern "C" __global__ void s_shift(const unsigned* a, const unsigned* b, const unsigned* c,
                                   unsigned* out, int n) {
    SIMT_SITE(1);                                   // entry (trace variant only)
    int i = SASS_DIFF_TID();
    if (i >= n) return;
    unsigned x = a[i], y = b[i], s = c[i];
    unsigned r0, r1, r2;
    // the raw count: PTX shl/shr treat counts above the width as the width
    asm("shl.b32 %0, %1, %2;" : "=r"(r0) : "r"(x), "r"(s));
    asm("shr.u32 %0, %1, %2;" : "=r"(r1) : "r"(x), "r"(s));
    asm("shr.s32 %0, %1, %2;" : "=r"(r2) : "r"(x), "r"(s));
    PUT(0, r0);
    PUT(1, r1);
    PUT(2, r2);
    PUT(3, x << (s & 31));
    PUT(4, x >> 7);
    PUT(5, (unsigned)((int)x >> 13));
    PUT(6, __funnelshift_l(x, y, s));
    PUT(7, __funnelshift_r(x, y, s));
    PUT(8, __funnelshift_lc(x, y, s));
    PUT(9, __funnelshift_rc(x, y, s));
    unsigned long long v = (unsigned long long)y << 32 | x;
    unsigned long long l = v << (s & 63), rr = v >> (s & 63);
    long long ra = (long long)v >> (s & 63);
    PUT(10, (unsigned)l);
    PUT(11, (unsigned)(l >> 32));
    PUT(12, (unsigned)rr);
    PUT(13, (unsigned)(rr >> 32));
    PUT(14, (unsigned)ra);
    PUT(15, (unsigned)((unsigned long long)ra >> 32));
    unsigned long long w;
    asm("shl.b64 %0, %1, %2;" : "=l"(w) : "l"(v), "r"(s));          // counts >= 64 clamp too
    PUT(16, (unsigned)w);
    PUT(17, (unsigned)(w >> 32));
    asm("shr.s64 %0, %1, %2;" : "=l"(w) : "l"(v), "r"(s));
    PUT(18, (unsigned)w);
    PUT(19, (unsigned)(w >> 32));
    unsigned e0, e1;
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(e0) : "r"(x), "r"(s & 31), "r"(y & 31));
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(e1) : "r"(x), "r"(s & 31), "r"(y & 31));
    PUT(20, e0);
    PUT(21, e1);
    PUT(22, (unsigned)((int)(x << 9) >> 9));            // sign-extend the low 23 bits
    PUT(23, x & ((1u << (y & 31)) - 1u));
    unsigned long long base = (unsigned long long)s << 32 | y;
    unsigned long long p = base + ((unsigned long long)x << 4);       // LEA + LEA.HI.X
    long long q = (long long)base + ((long long)(int)x << 3);          // LEA.HI.X.SX32
    PUT(24, (unsigned)p);
    PUT(25, (unsigned)(p >> 32));
    PUT(26, (unsigned)q);
    PUT(27, (unsigned)((unsigned long long)q >> 32));
    PUT(28, y + (x << 5));
    PUT(29, (x >> 28) + (y << 2));
}
