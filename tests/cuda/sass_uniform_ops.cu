// Values that depend only on the kernel's parameters live in ptxas's uniform datapath (ULOP3,
// UPOPC, UPRMT, USEL, UFLO, UBREV, USHF, UIMNMX, UP2UR, UPLOP3 ...): each thread mixes them with its
// own index, and a loop whose trip count is uniform keeps its counter there too.
extern "C" __global__ void sass_uniform_ops(unsigned a, unsigned b, int c, unsigned long long w, unsigned* out) {
    unsigned u0 = __popc(a);
    unsigned u1 = (a & b) ^ (~a | (b >> 3));
    unsigned u2 = __byte_perm(a, b, 0x5140);
    unsigned u3 = a > b ? a : b * 3;
    unsigned u4 = __clz(b);
    unsigned u5 = __brev(a);
    unsigned u6 = max(c, -5) + min(a, b >> 2);
    unsigned u7 = (a << (c & 7)) | (b >> (c & 15));
    unsigned u8 = __ffs(a >> 3);
    unsigned u9 = (c < 0 && a > 1) || (a == b) ? 11u : 17u;
    unsigned u10 = __funnelshift_l(a, b, c);
    unsigned u11 = (unsigned)abs(c);
    unsigned u12 = (unsigned)((int)(a << 8) >> (c & 31));
    unsigned u13 = __popcll(w) + (unsigned)(w >> 37) + __clzll(w);
    unsigned u14 = (a != 0) + (b != 0) * 2 + (c != 0) * 4 + ((a ^ b) > (unsigned)c) * 8;
    unsigned u15 = __byte_perm(a, 0, 0x3321) ^ __popc(a & b);
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    unsigned acc = 0;
    for (unsigned k = 0; k < (a & 7) + 2; k++) acc = acc * 31 + (k ^ b) + __popc(k * a);
    unsigned* o = out + t * 17;
    o[0] = u0 + t; o[1] = u1 ^ t; o[2] = u2 + t; o[3] = u3 * (t + 1); o[4] = u4 + t; o[5] = u5 ^ t;
    o[6] = u6 + t; o[7] = u7 ^ t; o[8] = u8 + t; o[9] = u9 * t; o[10] = u10 ^ t; o[11] = u11 + t;
    o[12] = u12 ^ t; o[13] = u13 + t; o[14] = u14 * t; o[15] = u15 ^ t; o[16] = acc + t;
}
// A loop over a parameter-sized range reading a shared tile: the row / column indices derived from
// the counter (masks, byte permutations, popcounts) are computed in uniform registers.
extern "C" __global__ void sass_uniform_loop(unsigned* out, unsigned a, int n) {
    __shared__ unsigned s[32][33];
    int t = threadIdx.x;
    for (int k = 0; k < 32; k++) s[k][t & 31] = k * a + (t & 31);
    __syncthreads();
    unsigned acc = 0;
    for (int k = 0; k < n; k++) {
        unsigned r = (k * 7u) & 31u;
        unsigned c = __byte_perm(k, a, 0x1054) & 31u;
        acc += s[r][c] ^ s[c][r] ^ __popc(k & a);
    }
    out[blockIdx.x * blockDim.x + t] = acc;
}
