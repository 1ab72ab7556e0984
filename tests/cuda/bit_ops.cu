// Integer intrinsics: __brev, __clz, __ffs, __popcll, __byte_perm, funnel shifts, __mul24,
// __umulhi, __sad, __usad, 64-bit high multiply.
extern "C" __global__ void bit_ops(const unsigned* a, const unsigned* b, const unsigned long long* c,
                                   unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i];
    unsigned long long z = c[i];
    unsigned* o = out + 10 * i;
    o[0] = __brev(x);
    o[1] = __clz(x);
    o[2] = __ffs(x);
    o[3] = __popcll(z);
    o[4] = __byte_perm(x, y, y & 0x7777);
    o[5] = __funnelshift_l(x, y, z & 63);
    o[6] = __funnelshift_rc(x, y, z & 63);
    o[7] = __umul24(x, y);
    o[8] = __umulhi(x, y);
    o[9] = (unsigned)(__umul64hi(z, (unsigned long long)x * y) ^ __usad(x, y, 7));
}
