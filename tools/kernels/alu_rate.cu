// Which integer instructions share the H100's ALU pipe (tools/alu_rate.py).  Each kernel loops
// STEPS times around 16 instructions of 8 independent chains (enough for one warp to keep a pipe
// busy); warp w of the block runs only if its sub-partition (w mod 4) is below `sps`.  Lane 0 of
// each running warp writes clk[2 w], clk[2 w + 1]: the clock before and after its loop.  What
// ptxas makes of each loop (sm_90, ptxas 13.0) is in tools/alu_rate.py.
#define STEPS 256

__device__ __forceinline__ long long clock_now() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return t; }
// (a & b) ^ c: one LOP3.LUT, and not linear, so the compiler cannot fold the chains
__device__ __forceinline__ unsigned lop3(unsigned a, unsigned b, unsigned c) { return (a & b) ^ c; }
__device__ __forceinline__ unsigned shf(unsigned lo, unsigned hi) { return __funnelshift_r(lo, hi, 7); }
__device__ __forceinline__ unsigned mad(unsigned a, unsigned b, unsigned c) { return a * b + c; }

#define PROBE(NAME, ...)                                                                             \
    extern "C" __global__ void NAME(long long* clk, unsigned* out, int sps, unsigned k) {            \
        const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;                            \
        if ((int)(warp & 3u) >= sps) return;                                                         \
        unsigned a = threadIdx.x, b = a * 3u + 1u, c = a * 5u + 2u, d = a * 7u + 3u;                 \
        unsigned e = a * 11u + 4u, f = a * 13u + 5u, g = a * 17u + 6u, h = a * 19u + 7u;             \
        const long long t0 = clock_now();                                                            \
        _Pragma("unroll 1") for (int i = 0; i < STEPS; i++) { __VA_ARGS__; }                         \
        const long long t1 = clock_now();                                                            \
        out[threadIdx.x] = a ^ b ^ c ^ d ^ e ^ f ^ g ^ h;                                            \
        if (lane == 0) { clk[2 * warp] = t0; clk[2 * warp + 1] = t1; }                               \
    }

// one round: each of the 8 chains takes one instruction OP(x, y) of its neighbour's value
#define ROUND(OP) a = OP(a, b); b = OP(b, c); c = OP(c, d); d = OP(d, e); e = OP(e, f); f = OP(f, g); g = OP(g, h); h = OP(h, a)
#define L3(x, y) lop3(x, y, k)
#define MD(x, y) mad(x, y, k)
// two rounds of one kind: 16 of it an iteration
PROBE(k_shf, ROUND(shf); ROUND(shf))
PROBE(k_lop, ROUND(L3); ROUND(L3))
PROBE(k_imad, ROUND(MD); ROUND(MD))
// one round of each: 8 + 8 an iteration, the two kinds interleaved chain by chain
PROBE(k_shf_lop, ROUND(shf); ROUND(L3))
PROBE(k_shf_imad, ROUND(shf); ROUND(MD))
PROBE(k_lop_imad, ROUND(L3); ROUND(MD))
// seed 003's mixing round on each chain: h ^= h >> 15 (SHF.R.U32.HI, LOP3), h *= C (IMAD)
#define MIX(x) x ^= x >> 15; x *= 0x2C1B3C6Du
PROBE(k_mix, MIX(a); MIX(b); MIX(c); MIX(d); MIX(e); MIX(f); MIX(g); MIX(h))
