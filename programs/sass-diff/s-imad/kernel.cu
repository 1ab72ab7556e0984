#include "../../include/sass_diff.cuh"

// IMAD (multiply-add), IMAD.WIDE / IMAD.WIDE.U32 (32x32->64), IMAD.HI / IMAD.HI.U32 (high word),
// IMAD.X (the carry into the high word of a 64-bit product), IMAD.SHL / IMAD.IADD / IMAD.MOV
// (ptxas's use of the multiplier for shifts, adds and moves).
extern "C" __global__ void s_imad(const unsigned* a, const unsigned* b, const unsigned* c,
                                  unsigned* out, int n) {
    SIMT_SITE(1);                                   // entry (trace variant only)
    int i = SASS_DIFF_TID();
    if (i >= n) return;
    unsigned x = a[i], y = b[i], z = c[i];
    PUT(0, x * y + z);
    PUT(1, x * y);
    PUT(2, __umulhi(x, y));
    PUT(3, (unsigned)__mulhi((int)x, (int)y));
    unsigned long long wu = (unsigned long long)x * y;
    PUT(4, (unsigned)wu);
    PUT(5, (unsigned)(wu >> 32));
    long long ws = (long long)(int)x * (int)z;
    PUT(6, (unsigned)ws);
    PUT(7, (unsigned)((unsigned long long)ws >> 32));
    unsigned long long u = (unsigned long long)x << 32 | y, v = (unsigned long long)z << 32 | x;
    unsigned long long m = u * v;
    PUT(8, (unsigned)m);
    PUT(9, (unsigned)(m >> 32));
    unsigned long long h = __umul64hi(u, v);
    PUT(10, (unsigned)h);
    PUT(11, (unsigned)(h >> 32));
    long long hs = __mul64hi((long long)u, (long long)v);
    PUT(12, (unsigned)hs);
    PUT(13, (unsigned)((unsigned long long)hs >> 32));
    unsigned long long acc = (unsigned long long)y * z + v;       // wide multiply-add with a 64-bit addend
    PUT(14, (unsigned)acc);
    PUT(15, (unsigned)(acc >> 32));
    unsigned hi;
    asm("mad.hi.u32 %0, %1, %2, %3;" : "=r"(hi) : "r"(x), "r"(y), "r"(z));
    PUT(16, hi);
    PUT(17, x * 0x9e3779b9u + (z << 4));
    PUT(18, (x << 3) + (y << 5) + (z * 40u));
    PUT(19, y * 7u - x);
}
