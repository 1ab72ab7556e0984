// Which instructions share the H100's control-instruction rate (tools/control_rate.py).  Each kernel
// is a loop of STEPS iterations around one kind of instruction; warp w of the block runs it only if
// its sub-partition (w mod 4) is below `sps`, so one block gives 1 to 8 warps on every sub-partition
// or on some alone.  Lane 0 of each running warp writes clk[2 w], clk[2 w + 1]: the clock before and
// after its loop.  What ptxas makes of each loop (sm_90, ptxas 13.0) is in tools/control_rate.py.
#define STEPS 256

__device__ __forceinline__ long long clock_now() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return t; }

// 8 dependent FFMAs: long enough that ptxas branches around them instead of predicating them
__device__ __forceinline__ float chain(float v, float a, float b) {
#pragma unroll
    for (int k = 0; k < 8; k++) v = fmaf(v, a, b);
    return v;
}

__constant__ float table[64];

#define WARPID(r) asm volatile("mov.u32 %0, %%warpid;" : "=r"(r))

// the shared-memory kernels' tile, filled before their loops
#define SHARED_TILE
#define FILLED_TILE __shared__ float tile[1024]; tile[threadIdx.x] = (float)threadIdx.x; __syncthreads()

#define PROBE(NAME, ...)                                                                             \
    extern "C" __global__ void NAME(long long* clk, float* out, int sps, int split, float a, float b) { \
        const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;                            \
        SHARED_TILE;                                                                                 \
        if ((int)(warp & 3u) >= sps) return;                                                         \
        float x = threadIdx.x * 0.001f, y = x + 1.0f;                                                \
        unsigned u = 0;                                                                              \
        const long long t0 = clock_now();                                                            \
        _Pragma("unroll 1") for (int i = 0; i < STEPS; i++) { __VA_ARGS__; }                         \
        const long long t1 = clock_now();                                                            \
        out[threadIdx.x] = x + y + (float)u;                                                         \
        if (lane == 0) { clk[2 * warp] = t0; clk[2 * warp + 1] = t1; }                               \
    }

// the loop alone: an FFMA, the counter's IADD3 and ISETP, the backward BRA
PROBE(k_loop, x = fmaf(x, a, b))
// four warp-uniform exits an iteration that never leave (split is 32, i + k never equals it before
// STEPS): 5 BRAs an iteration among 4 FFMAs, their ISETPs and the counter's add
PROBE(k_exits, x = fmaf(x, a, b); if (i * 4 == split - 1000) break; x = fmaf(x, b, a); if (i * 4 == split - 999) break;
               x = fmaf(x, a, b); if (i * 4 == split - 998) break; x = fmaf(x, b, a); if (i * 4 == split - 997) break)
// a warp-uniform if/else on the counter: BRAs only (2.5 an iteration), no BSSY / BSYNC
PROBE(k_uniform_if, if (i & 1) x = chain(x, a, b); else y = chain(y, b, a))
// an if/else on the lane, which ptxas reconverges: BSSY, BRA, BSYNC, and the loop's BRA
// (split 32: every lane takes the if, as t-diverge's converged loop)
PROBE(k_lane_if, if ((int)lane < split) x = chain(x, a, b); else y = chain(y, b, a))
// the same with half the lanes on each side: a divergent if/else
PROBE(k_lane_if_half, if ((int)lane < (split >> 1)) x = chain(x, a, b); else y = chain(y, b, a))
// four special-register reads an iteration (S2R SR_VIRTID, for %warpid)
PROBE(k_s2r, { unsigned r0, r1, r2, r3; WARPID(r0); WARPID(r1); WARPID(r2); WARPID(r3); u += (r0 ^ r1) + (r2 ^ r3); })
// four constant loads at a register index an iteration (LDC c[0x3][R])
PROBE(k_ldc, x = fmaf(fmaf(x, table[i & 63], table[(i + 1) & 63]), table[(i + 2) & 63], table[(i + 3) & 63]))
// two constant loads and two special-register reads an iteration: whether they share one SM-wide rate
PROBE(k_ldc_s2r, { unsigned r0, r1; WARPID(r0); WARPID(r1); u += r0 ^ r1;
                   x = fmaf(x, table[i & 63], table[(i + 1) & 63]); })
#undef SHARED_TILE
#define SHARED_TILE FILLED_TILE
// two constant loads and two shared-memory loads an iteration: whether they share one SM-wide rate
PROBE(k_ldc_lds, x = fmaf(fmaf(x, table[i & 63], tile[(threadIdx.x + i) & 1023]), table[(i + 1) & 63],
                          tile[(threadIdx.x + 7 * i) & 1023]))
// two shared-memory loads an iteration (the rate k_ldc_lds's LDS have alone)
PROBE(k_lds, x = fmaf(fmaf(x, a, tile[(threadIdx.x + i) & 1023]), b, tile[(threadIdx.x + 7 * i) & 1023]))
