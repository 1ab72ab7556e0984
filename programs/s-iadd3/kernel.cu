#include "../include/sass_diff.cuh"

// IADD3 (two and three register operands, negated operands), IADD3.X (carry chains of 64-bit
// adds and PTX add.cc/addc), VIADD (add of an immediate).
extern "C" __global__ void s_iadd3(const unsigned* a, const unsigned* b, const unsigned* c,
                                   unsigned* out, int n) {
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
    unsigned s0, s1, s2, d0, d1;
    // explicit carry chain: the carry out of each add feeds the next (IADD3 ... P0 / IADD3.X)
    asm("add.cc.u32 %0, %3, %4;\n\taddc.cc.u32 %1, %4, %5;\n\taddc.u32 %2, %5, %3;"
        : "=r"(s0), "=r"(s1), "=r"(s2) : "r"(x), "r"(y), "r"(z));
    asm("sub.cc.u32 %0, %2, %3;\n\tsubc.u32 %1, %3, %4;" : "=r"(d0), "=r"(d1) : "r"(x), "r"(y), "r"(z));
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
