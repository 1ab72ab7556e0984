#include "../../include/sass_diff.cuh"

// ISETP with every comparison, signed and .U32, combined with .AND / .OR into other predicates,
// and the .EX chains of 64-bit comparisons; each result word packs one comparison per bit.
extern "C" __global__ void s_isetp(const unsigned* a, const unsigned* b, const unsigned* c,
                                   unsigned* out, int n) {
    SIMT_SITE(1);                                   // entry (trace variant only)
    int i = SASS_DIFF_TID();
    if (i >= n) return;
    unsigned x = a[i], y = b[i], z = c[i];
    int sx = (int)x, sy = (int)y, sz = (int)z;
    unsigned m = 0;
    m |= (unsigned)(sx < sy) << 0;
    m |= (unsigned)(sx <= sy) << 1;
    m |= (unsigned)(sx > sy) << 2;
    m |= (unsigned)(sx >= sy) << 3;
    m |= (unsigned)(sx == sy) << 4;
    m |= (unsigned)(sx != sy) << 5;
    m |= (unsigned)(x < y) << 6;
    m |= (unsigned)(x <= y) << 7;
    m |= (unsigned)(x > y) << 8;
    m |= (unsigned)(x >= y) << 9;
    m |= (unsigned)(sx < 0) << 10;
    m |= (unsigned)(x > 1000u) << 11;
    PUT(0, m);
    unsigned k = 0;
    k |= (unsigned)(sx < sy && sy < sz) << 0;
    k |= (unsigned)(x < y || z == x) << 1;
    k |= (unsigned)(sx >= sz && x != y) << 2;
    k |= (unsigned)(z <= y || sx > sz) << 3;
    PUT(1, k);
    long long X = (long long)((unsigned long long)x << 32 | y), Y = (long long)((unsigned long long)z << 32 | y);
    long long Z = (long long)((unsigned long long)x << 32 | z);
    unsigned e = 0;
    e |= (unsigned)(X < Y) << 0;
    e |= (unsigned)(X <= Z) << 1;
    e |= (unsigned)(X > Z) << 2;
    e |= (unsigned)(X >= Y) << 3;
    e |= (unsigned)(X == Z) << 4;
    e |= (unsigned)(X != Y) << 5;
    e |= (unsigned)((unsigned long long)X < (unsigned long long)Y) << 6;
    e |= (unsigned)((unsigned long long)X <= (unsigned long long)Z) << 7;
    e |= (unsigned)((unsigned long long)X > (unsigned long long)Z) << 8;
    e |= (unsigned)((unsigned long long)X >= (unsigned long long)Y) << 9;
    PUT(2, e);
    PUT(3, sx < sy ? x : z);                        // ISETP feeding SEL
    PUT(4, (X < Z) ? y : x);
}
