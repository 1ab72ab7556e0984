// Packed 16-bit integer intrinsics: ptxas writes __vadd2 / __vsub2 as VIADD.16x2 (-x negates each half)
// and __vminu2 / __vmaxs2 ... as VIMNMX.U16x2 / .S16x2 (PT: minimum, !PT: maximum).
extern "C" __global__ void sass_simd16(const unsigned* a, const unsigned* b, unsigned* o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i];
    o[12 * i + 0] = __vadd2(x, y);
    o[12 * i + 1] = __vsub2(x, y);
    o[12 * i + 2] = __vmaxu2(x, y);
    o[12 * i + 3] = __vminu2(x, y);
    o[12 * i + 4] = __vmaxs2(x, y);
    o[12 * i + 5] = __vmins2(x, y);
    o[12 * i + 6] = __vabsdiffu2(x, y);
    o[12 * i + 7] = __vabsdiffs2(x, y);
    o[12 * i + 8] = __vaddss2(x, y);
    o[12 * i + 9] = __vavgu2(x, y);
    o[12 * i + 10] = __vneg2(x);
    o[12 * i + 11] = __vmaxu2(x, 1u) ^ __vmins2(y, 0x00030003u);
}
