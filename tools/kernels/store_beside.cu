// Does a warp's store read its data later while other warps of its sub-partition keep busy
// (tools/store_beside.py)?  Warp 0 runs stg_read's loop: each step stores a register pair 4 times
// (STG.64, 256 bytes a warp, or STS.64), then two FFMAs overwrite the pair and wait for the last
// store's read barrier.  Warps 4, 8 and 12 (the same sub-partition) meanwhile run NOTHING, or
// back-to-back independent HMMA.16816.F32 (4 chains a warp, or 1), FFMA or LDS.128 for as long
// (the _1w / _2w kernels: HMMAs on warp 4 only, or 4 and 8; _other: on warps 5, 9, 13 of
// another sub-partition).  Lane 0 of warp 0
// writes times[0], times[1]: the clock before and after its STEPS steps.
#define WARPS 16
#define STEPS 64
#define BUSY_ITERS 160

__device__ __forceinline__ unsigned clock32() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return (unsigned)t; }

template <int BUSY>   // 0 none, 1 HMMA (4 chains), 2 FFMA, 3 LDS.128, 4 HMMA (1 chain)
__device__ __forceinline__ void busy_warp(float* out, float c) {
    __shared__ __align__(16) float s[1024];
    const unsigned lane = threadIdx.x & 31;
    float acc = 0.f;
    if (BUSY == 1 || BUSY == 4) {
        unsigned a0 = lane, a1 = lane + 1, a2 = lane + 2, a3 = lane + 3, b0 = lane * 3, b1 = lane * 5;
        float d[4][4] = {};
#pragma unroll 1
        for (int i = 0; i < BUSY_ITERS; i++) {
#pragma unroll
            for (int k = 0; k < (BUSY == 1 ? 4 : 1); k++)
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                             : "+f"(d[k][0]), "+f"(d[k][1]), "+f"(d[k][2]), "+f"(d[k][3])
                             : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        }
        for (int k = 0; k < 4; k++) acc += d[k][0] + d[k][1] + d[k][2] + d[k][3];
    } else if (BUSY == 2) {
        float x[8];
        for (int k = 0; k < 8; k++) x[k] = lane + k;
#pragma unroll 1
        for (int i = 0; i < 4 * BUSY_ITERS; i++) {
#pragma unroll
            for (int k = 0; k < 8; k++) x[k] = fmaf(x[k], c, 1.0f);
        }
        for (int k = 0; k < 8; k++) acc += x[k];
    } else if (BUSY == 3) {
        const unsigned a = (unsigned)__cvta_generic_to_shared(s) + lane * 16;
#pragma unroll 1
        for (int i = 0; i < BUSY_ITERS; i++) {
#pragma unroll
            for (int k = 0; k < 4; k++) {
                float x, y, z, u;
                asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(x), "=f"(y), "=f"(z), "=f"(u) : "r"(a + k * 512) : "memory");
                acc += x + y + z + u;
            }
        }
    }
    out[threadIdx.x] = acc;
}

template <bool SHARED, int BUSY, int NBUSY, int SP = 0>   // NBUSY of warps 4, 8, 12 (SP 1: 5, 9, 13) run BUSY
__device__ __forceinline__ void store_beside(unsigned* times, float* out, float c, float d) {
    __shared__ __align__(16) float s[256];
    const unsigned w = threadIdx.x / 32, lane = threadIdx.x & 31;
    if (w != 0) {
        if (w % 4 == SP && w / 4 >= 1 && w / 4 <= NBUSY) busy_warp<BUSY>(out + 1024, c);
        return;
    }
    float2* g = reinterpret_cast<float2*>(out) + lane;
    const unsigned sh = (unsigned)__cvta_generic_to_shared(s) + lane * 8;
    float x = threadIdx.x * 0.25f, y = threadIdx.x * 0.5f;
    const unsigned t0 = clock32();
#pragma unroll 1
    for (int k = 0; k < STEPS; k++) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            if (SHARED)
                asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(sh + (i & 1) * 256), "f"(x), "f"(y) : "memory");
            else
                asm volatile("st.global.v2.f32 [%0], {%1, %2};" ::"l"(g + i * 32), "f"(x), "f"(y) : "memory");
        }
        x = fmaf(x, c, d);
        y = fmaf(y, c, d);
    }
    const unsigned t1 = clock32();
    out[2048 + threadIdx.x] = x + y;
    if (lane == 0) { times[0] = t0; times[1] = t1; }
}

#define BESIDE(NAME, SHARED, BUSY, NBUSY) \
    extern "C" __global__ void __launch_bounds__(512) NAME(unsigned* times, float* out, float c, float d) { \
        store_beside<SHARED, BUSY, NBUSY>(times, out, c, d); }

BESIDE(k_stg_alone, false, 0, 3)
BESIDE(k_stg_hmma, false, 1, 3)
BESIDE(k_stg_ffma, false, 2, 3)
BESIDE(k_stg_lds, false, 3, 3)
BESIDE(k_sts_alone, true, 0, 3)
BESIDE(k_sts_hmma, true, 1, 3)
BESIDE(k_sts_ffma, true, 2, 3)
BESIDE(k_sts_lds, true, 3, 3)
BESIDE(k_stg_hmma_1w, false, 1, 1)
BESIDE(k_stg_hmma_2w, false, 1, 2)
BESIDE(k_stg_hmma_1c, false, 4, 3)
BESIDE(k_sts_hmma_1w, true, 1, 1)
BESIDE(k_sts_hmma_1c, true, 4, 3)
extern "C" __global__ void __launch_bounds__(512) k_stg_hmma_other(unsigned* times, float* out, float c, float d) {
    store_beside<false, 1, 3, 1>(times, out, c, d); }
