// When a global store reads its data under load (tools/stg_read.py).  Each step of a loop stores a
// register pair K times (STG.64, 256 bytes a warp: 8 sectors in 2 lines; the STS.64 forms to shared
// memory), then overwrites the pair with two FFMAs, which wait for every store's read barrier.  The
// tensor-core predictor's epilogue does this: 4 STG.64 and 4 STS.64 of its accumulators, then an
// LDS.128 into them.  Only the warps whose bit is set in `active` run (warp w sits on
// sub-partition w % 4).  Lane 0 of each running warp writes times[2 w] and times[2 w + 1], the
// clock before and after STEPS steps.
#define WARPS 32
#define STEPS 64

__device__ __forceinline__ unsigned clock32() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return (unsigned)t; }

// warp w stores to out[w * 512 + k * 64 + 2 lane] (k < 8) and row k of its own 1 KB of shared memory (k < 4)
#define STORE_READ_LOOP(NAME, N_GLOBAL, N_SHARED)                                                     \
    extern "C" __global__ void __launch_bounds__(1024) NAME(unsigned* times, float* out, unsigned active, \
                                                           float c, float d) {                      \
        __shared__ __align__(16) float s[WARPS * 256];                                               \
        if (!((active >> (threadIdx.x / 32)) & 1)) return;                                           \
        const unsigned w = threadIdx.x / 32, lane = threadIdx.x & 31;                                 \
        float2* g = reinterpret_cast<float2*>(out + w * 512) + lane;                                  \
        const unsigned sh = (unsigned)__cvta_generic_to_shared(s) + w * 1024 + lane * 8;             \
        float x = threadIdx.x * 0.25f, y = threadIdx.x * 0.5f;                                       \
        const unsigned t0 = clock32();                                                               \
        _Pragma("unroll 1") for (int k = 0; k < STEPS; k++) {                                        \
            _Pragma("unroll") for (int i = 0; i < N_GLOBAL; i++)                                     \
                asm volatile("st.global.v2.f32 [%0], {%1, %2};" ::"l"(g + i * 32), "f"(x), "f"(y) : "memory"); \
            _Pragma("unroll") for (int i = 0; i < N_SHARED; i++)                                     \
                asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(sh + i * 256), "f"(x), "f"(y) : "memory"); \
            x = fmaf(x, c, d);                                                                       \
            y = fmaf(y, c, d);                                                                       \
        }                                                                                            \
        const unsigned t1 = clock32();                                                               \
        out[WARPS * 512 + threadIdx.x] = x + y;                                                      \
        if (lane == 0) { times[2 * w] = t0; times[2 * w + 1] = t1; }                                 \
    }

// the same with four registers stored by STS.128 (512 bytes a warp), K times a step
#define STS128_LOOP(NAME, N_SHARED)                                                                   \
    extern "C" __global__ void __launch_bounds__(1024) NAME(unsigned* times, float* out, unsigned active, \
                                                           float c, float d) {                      \
        __shared__ __align__(16) float s[WARPS * 256];                                               \
        if (!((active >> (threadIdx.x / 32)) & 1)) return;                                           \
        const unsigned w = threadIdx.x / 32, lane = threadIdx.x & 31;                                 \
        const unsigned sh = (unsigned)__cvta_generic_to_shared(s) + w * 1024 + lane * 16;            \
        float x = threadIdx.x * 0.25f, y = threadIdx.x * 0.5f, z = x + 1.0f, u = y + 1.0f;            \
        const unsigned t0 = clock32();                                                               \
        _Pragma("unroll 1") for (int k = 0; k < STEPS; k++) {                                        \
            _Pragma("unroll") for (int i = 0; i < N_SHARED; i++)                                     \
                asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(sh + (i & 1) * 512),      \
                             "f"(x), "f"(y), "f"(z), "f"(u) : "memory");                              \
            x = fmaf(x, c, d);                                                                       \
            y = fmaf(y, c, d);                                                                       \
            z = fmaf(z, c, d);                                                                       \
            u = fmaf(u, c, d);                                                                       \
        }                                                                                            \
        const unsigned t1 = clock32();                                                               \
        out[WARPS * 512 + threadIdx.x] = x + y + z + u;                                              \
        if (lane == 0) { times[2 * w] = t0; times[2 * w + 1] = t1; }                                 \
    }

STORE_READ_LOOP(k_stg1, 1, 0)
STORE_READ_LOOP(k_stg2, 2, 0)
STORE_READ_LOOP(k_stg4, 4, 0)
STORE_READ_LOOP(k_stg8, 8, 0)
STORE_READ_LOOP(k_sts1, 0, 1)
STORE_READ_LOOP(k_sts2, 0, 2)
STORE_READ_LOOP(k_sts4, 0, 4)
STORE_READ_LOOP(k_stg4_sts4, 4, 4)
STS128_LOOP(k_sts128_1, 1)
STS128_LOOP(k_sts128_2, 2)
STS128_LOOP(k_sts128_4, 4)

// The tensor-core predictor's epilogue stores: warp w's 16 x 16 f32 tile at out + 256 w (rows of 64
// bytes), lanes as the m16n8 accumulator (row lane / 4, columns 2 (lane % 4) and 8 more; rows 8
// more), so each STG.64 or STS.64 writes 8 sectors of 32 bytes, two in each of 4 lines.
__device__ __forceinline__ unsigned tile_offset(unsigned lane, int i) {
    return (lane >> 2) * 16 + 2 * (lane & 3) + (i & 1) * 128 + (i >> 1) * 8;
}

#define TILE_STORE_LOOP(NAME, N_GLOBAL, N_SHARED)                                                     \
    extern "C" __global__ void __launch_bounds__(1024) NAME(unsigned* times, float* out, unsigned active, \
                                                           float c, float d) {                      \
        __shared__ __align__(16) float s[WARPS * 256];                                               \
        if (!((active >> (threadIdx.x / 32)) & 1)) return;                                           \
        const unsigned w = threadIdx.x / 32, lane = threadIdx.x & 31;                                 \
        float* g = out + w * 256;                                                                    \
        const unsigned sh = (unsigned)__cvta_generic_to_shared(s) + w * 1024;                        \
        float x = threadIdx.x * 0.25f, y = threadIdx.x * 0.5f;                                       \
        const unsigned t0 = clock32();                                                               \
        _Pragma("unroll 1") for (int k = 0; k < STEPS; k++) {                                        \
            _Pragma("unroll") for (int i = 0; i < N_GLOBAL; i++)                                     \
                asm volatile("st.global.v2.f32 [%0], {%1, %2};" ::"l"(g + tile_offset(lane, i)), "f"(x), "f"(y) : "memory"); \
            _Pragma("unroll") for (int i = 0; i < N_SHARED; i++)                                     \
                asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(sh + 4 * tile_offset(lane, i)), "f"(x), "f"(y) : "memory"); \
            x = fmaf(x, c, d);                                                                       \
            y = fmaf(y, c, d);                                                                       \
        }                                                                                            \
        const unsigned t1 = clock32();                                                               \
        out[WARPS * 512 + threadIdx.x] = x + y;                                                      \
        if (lane == 0) { times[2 * w] = t0; times[2 * w + 1] = t1; }                                 \
    }

TILE_STORE_LOOP(k_tile_stg4, 4, 0)
TILE_STORE_LOOP(k_tile_sts4, 0, 4)
TILE_STORE_LOOP(k_tile_stg4_sts4, 4, 4)

// The whole epilogue: the tile's 4 STG.64 and 4 STS.64, then lanes 0-15 read their row of 10 back
// (LDS.128, LDS.128, LDS.64 at 64-byte strides: 8 lanes to a bank group) and take its largest; the
// next step stores that, so each step waits for the stores' data reads, the loads and the compares.
extern "C" __global__ void __launch_bounds__(1024) k_tile_epilogue(unsigned* times, float* out, unsigned active,
                                                                   float c, float d) {
    __shared__ __align__(16) float s[WARPS * 256];
    if (!((active >> (threadIdx.x / 32)) & 1)) return;
    const unsigned w = threadIdx.x / 32, lane = threadIdx.x & 31;
    float* g = out + w * 256;
    const unsigned sh = (unsigned)__cvta_generic_to_shared(s) + w * 1024;
    float x = threadIdx.x * 0.25f, y = threadIdx.x * 0.5f;
    const unsigned t0 = clock32();
#pragma unroll 1
    for (int k = 0; k < STEPS; k++) {
#pragma unroll
        for (int i = 0; i < 4; i++)
            asm volatile("st.global.v2.f32 [%0], {%1, %2};" ::"l"(g + tile_offset(lane, i)), "f"(x), "f"(y) : "memory");
#pragma unroll
        for (int i = 0; i < 4; i++)
            asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(sh + 4 * tile_offset(lane, i)), "f"(x), "f"(y) : "memory");
        __syncwarp();
        if (lane < 16) {
            float4 a, b;
            float2 e;
            asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(a.x), "=f"(a.y), "=f"(a.z), "=f"(a.w) : "r"(sh + lane * 64) : "memory");
            asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(b.x), "=f"(b.y), "=f"(b.z), "=f"(b.w) : "r"(sh + lane * 64 + 16) : "memory");
            asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(e.x), "=f"(e.y) : "r"(sh + lane * 64 + 32) : "memory");
            x = fmaxf(fmaxf(fmaxf(a.x, a.y), fmaxf(a.z, a.w)), fmaxf(fmaxf(b.x, b.y), fmaxf(b.z, b.w)));
            y = fmaxf(e.x, e.y) * c + d;
        } else {
            x = fmaf(x, c, d);
            y = fmaf(y, c, d);
        }
        __syncwarp();
    }
    const unsigned t1 = clock32();
    out[WARPS * 512 + threadIdx.x] = x + y;
    if (lane == 0) { times[2 * w] = t0; times[2 * w + 1] = t1; }
}
