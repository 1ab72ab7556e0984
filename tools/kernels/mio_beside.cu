// What a warp's shared stores and special-register reads cost while the other warps of its
// sub-partition keep its MIO busy (tools/mio_beside.py).  Warp 0 runs STEPS steps of one kind of
// work: 8 STS.32 whose data the next instruction overwrites (each waits for the store before it
// to read its data, as in the predictor's hidden-layer store), or 8 S2R SR_VIRTID (%warpid) each used at
// once.  Warps 4, 8 and 12 (the same sub-partition) run nothing, S2R, LDSM.x4, L1-hit LDG, STS.32,
// STG.64 or HMMA.16816 (f16, zero accumulator) loops, the predictor tile's MIO mix with or without
// an f32-accumulating HMMA, or warps 1..15 all run warp 0's work (_all).
// Each running warp's lane 0 writes the clock before and after its loop: times[2w], times[2w + 1].
#define STEPS 64
#define BUSY_ITERS 96

__device__ __forceinline__ unsigned clock32() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return (unsigned)t; }
__device__ __forceinline__ unsigned warpid() { unsigned r; asm volatile("mov.u32 %0, %%warpid;" : "=r"(r)); return r; }   // volatile in PTX: not hoisted

template <int WORK>   // 0 STS chain, 1 S2R chain
__device__ __forceinline__ unsigned work_steps(unsigned sh, unsigned v) {
#pragma unroll 1
    for (int k = 0; k < STEPS; k++) {
        if (WORK == 0) {
#pragma unroll 1
            for (int i = 0; i < 8; i++) {      // one store a trip: the loop-carried v is overwritten in place
                asm volatile("st.shared.u32 [%0], %1;" ::"r"(sh), "r"(v) : "memory");
                v = v * 3 + 1;
            }
        } else {
#pragma unroll
            for (int i = 0; i < 8; i++) v += warpid() ^ v;
        }
    }
    return v;
}

template <int BUSY>   // 0 nothing, 1 S2R, 2 LDSM.x4, 3 LDG (L1 hits), 4 STS.32, 5 STG.64, 6 HMMA f16 (C = 0),
                      // 7 the predictor tile's MIO mix (LDG, S2R, STS.32, LDSM.x4, STS.64, LDS.128, STG.64), 8 that mix
                      // with an f32-accumulating HMMA
__device__ __forceinline__ unsigned busy_steps(unsigned sh, const unsigned* g, unsigned* gout, unsigned v) {
    const unsigned lane = threadIdx.x & 31;
    unsigned acc = 0;
#pragma unroll 1
    for (int k = 0; k < BUSY_ITERS; k++) {
#pragma unroll
        for (int i = 0; i < 8; i++) {
            if (BUSY == 1) v += warpid();
            if (BUSY == 2) {
                unsigned a, b, c, d;
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                             : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(sh + (lane & 15) * 16 + (i & 1) * 256) : "memory");
                v += a ^ b ^ c ^ d;
            }
            if (BUSY == 3) v += __ldca(g + lane + (i & 3) * 32);
            if (BUSY == 4) asm volatile("st.shared.u32 [%0], %1;" ::"r"(sh + 1024 + lane * 4 + (i & 3) * 128), "r"(v + i) : "memory");
            if (BUSY == 5) asm volatile("st.global.v2.u32 [%0], {%1, %2};" ::"l"(gout + 2 * lane + (i & 3) * 64), "r"(v), "r"(v + i) : "memory");
            if (BUSY == 7 || BUSY == 8) {
                if (i == 0) v += __ldca(g + lane);
                if (i == 1) v += warpid();
                if (i == 2) asm volatile("st.shared.u32 [%0], %1;" ::"r"(sh + 1024 + lane * 4), "r"(v) : "memory");
                if (i == 3) {
                    unsigned a, b, c, d;
                    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(sh + (lane & 15) * 16) : "memory");
                    v += a ^ b ^ c ^ d;
                }
                if (i == 4) asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(sh + 2048 + lane * 8), "r"(v), "r"(v + 1) : "memory");
                if (i == 5) {
                    unsigned a, b, c, d;
                    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(sh + lane * 16) : "memory");
                    v += a ^ b ^ c ^ d;
                }
                if (i == 6) asm volatile("st.global.v2.u32 [%0], {%1, %2};" ::"l"(gout + 2 * lane), "r"(v), "r"(v + 1) : "memory");
                if (BUSY == 8 && i == 7) {
                    float d0 = v, d1 = 0.f, d2 = 0.f, d3 = 0.f;
                    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(v), "r"(lane), "r"(lane + 1), "r"(lane + 2), "r"(lane * 3), "r"(lane * 5));
                    acc ^= __float_as_uint(d0 + d1 + d2 + d3);
                }
            }
            if (BUSY == 6) {
                unsigned d0 = 0, d1 = 0;
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                             : "=r"(d0), "=r"(d1) : "r"(v + i), "r"(lane), "r"(lane + 1), "r"(lane + 2), "r"(lane * 3), "r"(lane * 5), "r"(0u), "r"(0u));
                acc ^= d0 ^ d1;
            }
        }
        v += acc;
    }
    return v;
}

template <int WORK, int BUSY>   // BUSY -1: every warp runs WORK
__device__ __forceinline__ void beside(unsigned* times, const unsigned* g, unsigned* gout) {
    __shared__ __align__(16) unsigned s[2048];
    const unsigned w = threadIdx.x / 32, lane = threadIdx.x & 31;
    const unsigned sh = (unsigned)__cvta_generic_to_shared(s);
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    unsigned v = threadIdx.x;
    const unsigned t0 = clock32();
    if (w == 0 || BUSY < 0) v = work_steps<WORK>(sh + (w % 8) * 512 + lane * 4, v);
    else if (w % 4 == 0 && w <= 12 && BUSY > 0) v = busy_steps<(BUSY < 0 ? 0 : BUSY)>(sh, g, gout + 4096 * w, v);
    const unsigned t1 = clock32();
    if (lane == 0) { times[2 * w] = t0; times[2 * w + 1] = t1; }
    gout[threadIdx.x] = v;
}

#define BESIDE(WNAME, WORK, BNAME, BUSY) \
    extern "C" __global__ void __launch_bounds__(512) k_##WNAME##_##BNAME(unsigned* times, const unsigned* g, unsigned* gout) { \
        beside<WORK, BUSY>(times, g, gout); }
#define BESIDE_ALL(WNAME, WORK) \
    BESIDE(WNAME, WORK, alone, 0) BESIDE(WNAME, WORK, s2r, 1) BESIDE(WNAME, WORK, ldsm, 2) BESIDE(WNAME, WORK, ldg, 3) \
    BESIDE(WNAME, WORK, sts, 4) BESIDE(WNAME, WORK, stg, 5) BESIDE(WNAME, WORK, hmma, 6) BESIDE(WNAME, WORK, all, -1) \
    BESIDE(WNAME, WORK, mix, 7) BESIDE(WNAME, WORK, mixhmma, 8)
BESIDE_ALL(stschain, 0)
BESIDE_ALL(s2rchain, 1)
