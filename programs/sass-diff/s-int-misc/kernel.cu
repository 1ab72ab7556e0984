#include "../../include/sass_diff.cuh"

// IABS, VIMNMX (signed / .U32 min and max, against zero), VIADDMNMX (add then min/max), VABSDIFF (__sad/__usad),
// POPC, FLO (__clz, and .SH for __ffs), BREV, PRMT with register and immediate selectors
// (sign-replicating nibbles included).
extern "C" __global__ void s_int_misc(const unsigned* a, const unsigned* b, const unsigned* c,
                                      unsigned* out, int n) {
    SIMT_SITE(1);                                   // entry (trace variant only)
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
    PUT(7, (unsigned)max(sx, 0));
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
    // (the PTX parser does not read prmt's f4e/b4e/rc8/ecl/ecr/rc16 modes; the default mode's
    // selector nibbles with bit 3 set replicate a byte's sign, covered by random selectors)
    PUT(18, __byte_perm(x, y, z >> 16));
    PUT(19, __byte_perm(y, x, 0x8b8au));
    PUT(20, __byte_perm(x, 0u, 0x9999u));
    PUT(21, __byte_perm(z, y, x));
    PUT(22, __byte_perm(x, y, 0x0123u));
    PUT(23, __byte_perm(x, x, 0xcdefu));
    PUT(24, (unsigned)(int)(signed char)(x >> 8));      // sign-extending byte extract (PRMT 0x8880 form)
    PUT(25, (unsigned)min(max(sx, sy), sz));               // clamp
    unsigned f;
    asm("bfind.u32 %0, %1;" : "=r"(f) : "r"(x));
    PUT(26, f);
    asm("bfind.shiftamt.s32 %0, %1;" : "=r"(f) : "r"(sy));
    PUT(27, f);
}
