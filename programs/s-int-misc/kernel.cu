#include "../include/sass_diff.cuh"

// IABS, VIMNMX (signed / .U32 min and max), VIADDMNMX (add then min/max), VABSDIFF (__sad/__usad),
// POPC, FLO (__clz, and .SH for __ffs), BREV, PRMT with a register selector and the f4e, b4e,
// rc8, ecl, ecr and rc16 modes.
extern "C" __global__ void s_int_misc(const unsigned* a, const unsigned* b, const unsigned* c,
                                      unsigned* out, int n) {
    int i = SASS_DIFF_TID();
    if (i >= n) return;
    unsigned x = a[i], y = b[i], z = c[i];
    int sx = (int)x, sy = (int)y, sz = (int)z;
    PUT(0, (unsigned)abs(sx));
    PUT(1, (unsigned)min(sx, sy));
    PUT(2, (unsigned)max(sx, sz));
    PUT(3, min(x, z));
    PUT(4, max(y, z));
    PUT(5, (unsigned)__viaddmin_s32(sx, sy, sz));
    PUT(6, __viaddmax_u32(x, y, z));
    PUT(7, (unsigned)__vimax_s32_relu(sx, sz));
    PUT(8, __sad(sx, sy, z));
    PUT(9, __usad(x, y, z));
    PUT(10, (unsigned)__popc(x));
    PUT(11, (unsigned)__clz(sx));
    PUT(12, (unsigned)__ffs(sy));
    PUT(13, __brev(x));
    PUT(14, (unsigned)__popcll((unsigned long long)x << 32 | y));
    PUT(15, (unsigned)__clzll((long long)((unsigned long long)y << 32 | z)));
    PUT(16, __byte_perm(x, y, z));
    PUT(17, __byte_perm(x, y, 0x5140u));
    unsigned p0, p1, p2, p3, p4, p5;
    asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(p0) : "r"(x), "r"(y), "r"(z));
    asm("prmt.b32.b4e %0, %1, %2, %3;" : "=r"(p1) : "r"(x), "r"(y), "r"(z));
    asm("prmt.b32.rc8 %0, %1, %2, %3;" : "=r"(p2) : "r"(x), "r"(y), "r"(z));
    asm("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(p3) : "r"(x), "r"(y), "r"(z));
    asm("prmt.b32.ecr %0, %1, %2, %3;" : "=r"(p4) : "r"(x), "r"(y), "r"(z));
    asm("prmt.b32.rc16 %0, %1, %2, %3;" : "=r"(p5) : "r"(x), "r"(y), "r"(z));
    PUT(18, p0);
    PUT(19, p1);
    PUT(20, p2);
    PUT(21, p3);
    PUT(22, p4);
    PUT(23, p5);
    PUT(24, (unsigned)(int)(signed char)(x >> 8));      // sign-extending byte extract (PRMT 0x8880 form)
    PUT(25, (unsigned)__vimin_s32_relu(sx, sy));
    unsigned f;
    asm("bfind.u32 %0, %1;" : "=r"(f) : "r"(x));
    PUT(26, f);
    asm("bfind.shiftamt.s32 %0, %1;" : "=r"(f) : "r"(sy));
    PUT(27, f);
}
