// What a warp's instructions cost while other warps of its sub-partition run tensor-core HMMAs
// (tools/hmma_beside.py).  Warp 0 runs STEPS steps of one kind of work (stores of 4 to 16 bytes a
// lane that the next FFMAs overwrite, so each step waits for the stores to read their data; a
// dependent or independent FFMA chain; a dependent LDS chain) while warps 4, 8 and 12 (the same
// sub-partition) run nothing, HMMA.16816 with f32 or f16 accumulators, HMMAs that accumulate
// nothing (C = 0: fewer registers to read), or FFMAs.  Each running warp's lane 0 writes the
// clock before and after its loop: times[2w'], times[2w' + 1] with w' = 0 for warp 0 and 1, 2, 3
// for warps 4, 8, 12.
#define STEPS 64
#define BUSY_ITERS 160

__device__ __forceinline__ unsigned clock32() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return (unsigned)t; }

__device__ __forceinline__ void hmma_f32(float (&d)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0, unsigned b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

template <int BUSY>   // 0 nothing, 1 HMMA f32 (4 chains), 2 HMMA f32 with C = 0, 3 HMMA f16 (4 chains), 4 FFMA
__device__ __forceinline__ float busy_warp(float c) {
    const unsigned lane = threadIdx.x & 31;
    float acc = 0.f;
    unsigned a0 = lane, a1 = lane + 1, a2 = lane + 2, a3 = lane + 3, b0 = lane * 3, b1 = lane * 5;
    if (BUSY == 1) {
        float d[4][4] = {};
#pragma unroll 1
        for (int i = 0; i < BUSY_ITERS; i++) {
#pragma unroll
            for (int k = 0; k < 4; k++) hmma_f32(d[k], a0, a1, a2, a3, b0, b1);
        }
        for (int k = 0; k < 4; k++) acc += d[k][0] + d[k][1] + d[k][2] + d[k][3];
    } else if (BUSY == 2) {
#pragma unroll 1
        for (int i = 0; i < BUSY_ITERS; i++) {
#pragma unroll
            for (int k = 0; k < 4; k++) {   // a fresh zero accumulator: ptxas reads RZ for C
                float d[4] = {0.f, 0.f, 0.f, 0.f};
                hmma_f32(d, a0 + k, a1, a2, a3, b0, b1);
                acc += d[0];
            }
            a0 += 4;
        }
    } else if (BUSY == 3) {
        unsigned d[4][2] = {};
#pragma unroll 1
        for (int i = 0; i < BUSY_ITERS; i++) {
#pragma unroll
            for (int k = 0; k < 4; k++)
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
                             : "+r"(d[k][0]), "+r"(d[k][1]) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        }
        for (int k = 0; k < 4; k++) acc += __uint_as_float(d[k][0] ^ d[k][1]);
    } else if (BUSY == 4) {
        float x[8];
        for (int k = 0; k < 8; k++) x[k] = lane + k;
#pragma unroll 1
        for (int i = 0; i < 4 * BUSY_ITERS; i++) {
#pragma unroll
            for (int k = 0; k < 8; k++) x[k] = fmaf(x[k], c, 1.0f);
        }
        for (int k = 0; k < 8; k++) acc += x[k];
    }
    return acc;
}

// Warp 0's step.  WORK 0-7: N stores of BYTES a lane (global or shared), then two FFMAs overwrite
// the data (they wait for the last store's read barrier); 8: 8 dependent FFMAs; 9: 8 independent
// FFMAs, each reading three registers; 10: 4 dependent LDS.
template <int WORK>
__device__ __forceinline__ float work_warp(float* out, float c, float d, unsigned* t) {
    __shared__ __align__(16) float s[1024];
    const unsigned lane = threadIdx.x & 31;
    const bool shared = WORK >= 4 && WORK <= 7;
    const int bytes = (WORK % 4 == 0) ? 4 : (WORK % 4 == 2) ? 16 : 8;
    const int stores = (WORK % 4 == 3) ? 1 : 4;
    char* g = reinterpret_cast<char*>(out) + lane * bytes;   // each store one conflict-free row
    const unsigned sh = (unsigned)__cvta_generic_to_shared(s) + lane * (WORK == 10 ? 4 : bytes);
    float x = threadIdx.x * 0.25f, y = threadIdx.x * 0.5f, z = threadIdx.x * 0.75f, u = threadIdx.x * 1.5f;
    float v[8];
    for (int k = 0; k < 8; k++) v[k] = lane * 0.125f + k;
    unsigned p = 0;
    if (WORK == 10) { s[lane] = 0.f; __syncwarp(); }
    const unsigned t0 = clock32();
#pragma unroll 1
    for (int k = 0; k < STEPS; k++) {
        if (WORK <= 7) {
#pragma unroll
            for (int i = 0; i < stores; i++) {
                if (shared) {
                    const unsigned a = sh + (i & 1) * 512;
                    if (bytes == 4) asm volatile("st.shared.f32 [%0], %1;" ::"r"(a), "f"(x) : "memory");
                    if (bytes == 8) asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(a), "f"(x), "f"(y) : "memory");
                    if (bytes == 16) asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(a), "f"(x), "f"(y), "f"(z), "f"(u) : "memory");
                } else {
                    char* a = g + i * 512;
                    if (bytes == 4) asm volatile("st.global.f32 [%0], %1;" ::"l"(a), "f"(x) : "memory");
                    if (bytes == 8) asm volatile("st.global.v2.f32 [%0], {%1, %2};" ::"l"(a), "f"(x), "f"(y) : "memory");
                    if (bytes == 16) asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(a), "f"(x), "f"(y), "f"(z), "f"(u) : "memory");
                }
            }
            x = fmaf(x, c, d);
            y = fmaf(y, c, d);
            if (bytes == 16) {
                z = fmaf(z, c, d);
                u = fmaf(u, c, d);
            }
        } else if (WORK == 8) {
#pragma unroll
            for (int i = 0; i < 8; i++) x = fmaf(x, c, d);
        } else if (WORK == 9) {
#pragma unroll
            for (int i = 0; i < 8; i++) v[i] = fmaf(v[i], v[(i + 1) % 8], v[(i + 3) % 8]);
        } else if (WORK == 10) {
#pragma unroll
            for (int i = 0; i < 4; i++) asm volatile("ld.shared.u32 %0, [%1];" : "=r"(p) : "r"(sh + p) : "memory");
        }
    }
    const unsigned t1 = clock32();
    if (lane == 0) { t[0] = t0; t[1] = t1; }
    float acc = x + y + z + u + __uint_as_float(p);
    for (int k = 0; k < 8; k++) acc += v[k];
    return acc;
}

template <int WORK, int BUSY>   // WORK -1: warp 0 idles
__device__ __forceinline__ void beside(unsigned* times, float* out, float c, float d) {
    const unsigned w = threadIdx.x / 32, lane = threadIdx.x & 31;
    float acc = 0.f;
    if (w == 0 && WORK >= 0) {
        acc = work_warp<(WORK < 0 ? 0 : WORK)>(out, c, d, times);
    } else if (w % 4 == 0 && w >= 4 && w <= 12 && BUSY > 0) {
        const unsigned t0 = clock32();
        acc = busy_warp<BUSY>(c);
        const unsigned t1 = clock32();
        if (lane == 0) { times[2 * (w / 4)] = t0; times[2 * (w / 4) + 1] = t1; }
    }
    out[4096 + threadIdx.x] = acc;
}

#define BESIDE(WNAME, WORK, BNAME, BUSY) \
    extern "C" __global__ void __launch_bounds__(512) k_##WNAME##_##BNAME(unsigned* times, float* out, float c, float d) { \
        beside<WORK, BUSY>(times, out, c, d); }
#define BESIDE_ALL(WNAME, WORK) \
    BESIDE(WNAME, WORK, alone, 0) BESIDE(WNAME, WORK, hmma, 1) BESIDE(WNAME, WORK, hmmaz, 2) \
    BESIDE(WNAME, WORK, hmma16, 3) BESIDE(WNAME, WORK, ffma, 4)

BESIDE_ALL(stg32, 0)
BESIDE_ALL(stg64, 1)
BESIDE_ALL(stg128, 2)
BESIDE_ALL(stg64x1, 3)
BESIDE_ALL(sts32, 4)
BESIDE_ALL(sts64, 5)
BESIDE_ALL(sts128, 6)
BESIDE_ALL(sts64x1, 7)
BESIDE_ALL(ffmadep, 8)
BESIDE_ALL(ffmaind, 9)
BESIDE_ALL(ldsdep, 10)
BESIDE(idle, -1, hmma, 1)
BESIDE(idle, -1, hmmaz, 2)
BESIDE(idle, -1, hmma16, 3)
BESIDE(idle, -1, ffma, 4)
