#include "../../include/sass_diff.cuh"

// IADD3 (two and three register operands, negated operands), IADD3.X (carry chains of 64-bit
// adds and word-by-word 96-bit adds), VIADD (add of an immediate).
extern "C" __global__ void s_iadd3(const unsigned* a, const unsigned* b, const unsigned* c,
                                   unsigned* out, int n) {
    SIMT_SITE(1);                                   // entry (trace variant only)
    int i = SASS_DIFF_TID();
    if (i >= n) return;
    unsigned x = a[i], y = b[i], z = c[i];
    PUT(0, x + y + z);
    PUT(1, x - y - z);
    PUT(2, x + 0x7ffffff1u);
    PUT(3, z - x);
    unsigned long long p = ((unsigned long long)x << 32 | y) + ((unsigned long long)z << 32 | x);
    PUT(4, (unsigned)p);
    PUT(5, (unsigned)(p >> 32));
    unsigned long long q = ((unsigned long long)y << 32 | z) - ((unsigned long long)x << 32 | y);
    PUT(6, (unsigned)q);
    PUT(7, (unsigned)(q >> 32));
    // a 96-bit add and a 64-bit subtract spelled word by word: the carry (borrow) out of each word
    // feeds the next (IADD3 with a carry-out predicate, IADD3.X)
    unsigned long long lo = (unsigned long long)x + y;
    unsigned long long mid = (unsigned long long)y + z + (lo >> 32);
    unsigned s0 = (unsigned)lo, s1 = (unsigned)mid, s2 = z + x + (unsigned)(mid >> 32);
    unsigned d0 = x - y, d1 = y - z - (x < y ? 1u : 0u);
    PUT(8, s0);
    PUT(9, s1);
    PUT(10, s2);
    PUT(11, d0);
    PUT(12, d1);
    long long w = (long long)(int)x + (long long)(int)y + (long long)(int)z;   // sign-extended 3-way add
    PUT(13, (unsigned)w);
    PUT(14, (unsigned)((unsigned long long)w >> 32));
    PUT(15, (y & 0xffffu) + 0x12345u);
}
