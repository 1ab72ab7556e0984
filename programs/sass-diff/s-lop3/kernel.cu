#include "../../include/sass_diff.cuh"

// LOP3.LUT with many truth tables (ptxas folds each 3-input boolean expression into one LUT),
// LOP3 with a predicate result, PLOP3.LUT (boolean algebra on predicates kept in predicate registers).
extern "C" __global__ void s_lop3(const unsigned* a, const unsigned* b, const unsigned* c,
                                  unsigned* out, int n) {
    SIMT_SITE(1);                                   // entry (trace variant only)
    int i = SASS_DIFF_TID();
    if (i >= n) return;
    unsigned x = a[i], y = b[i], z = c[i];
    PUT(0, x & y);
    PUT(1, x | y);
    PUT(2, x ^ y);
    PUT(3, ~(x | y));
    PUT(4, (x & y) | (~x & z));                    // bit select
    PUT(5, x ^ y ^ z);
    PUT(6, (x & y) | (y & z) | (x & z));           // majority
    PUT(7, (~x & y) ^ z);
    PUT(8, ((x | ~y) & z) ^ x);
    PUT(9, ~(x ^ (y & z)));
    PUT(10, x & 0xff00ff0fu);
    PUT(11, (x | 0x0f0f0000u) ^ y);
    PUT(12, (x & y & z) == 0 ? 1u : 0u);           // LOP3 with a predicate output
    PUT(13, (x ^ z) != 0 && (y & 1u) ? 7u : 3u);
    unsigned r;
    // predicates combined by and/or/xor/not stay in predicate registers (PLOP3.LUT)
    asm("{\n\t.reg .pred p, q, s, t;\n\t"
        "setp.lt.u32 p, %1, %2;\n\tsetp.lt.u32 q, %2, %3;\n\tsetp.lt.s32 s, %3, %1;\n\t"
        "xor.pred t, p, q;\n\tor.pred t, t, s;\n\tand.pred p, p, !s;\n\tor.pred q, q, !p;\n\t"
        "xor.pred s, t, q;\n\tselp.u32 %0, 1, 0, s;\n\t@p add.u32 %0, %0, 2;\n\t@t add.u32 %0, %0, 4;\n\t}"
        : "=r"(r) : "r"(x), "r"(y), "r"(z));
    PUT(14, r);
    bool p1 = x > y, p2 = (int)y < (int)z, p3 = z == x;
    PUT(15, ((p1 && !p2) || (p3 != p1)) ? x : z);
}
