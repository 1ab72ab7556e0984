// Whether a warp whose next instruction waits on a long-latency result gets its turn back as soon
// as the result is there, while other warps of its sub-partition can always issue
// (tools/sched_beside.py).  On sub-partition 0 the warp of slot SLOT (warp 4 * SLOT) runs STEPS
// steps of 4 dependent loads (LDS, or LDG hitting L1) or 8 dependent FFMAs, while NFFMA of the
// other three slots' warps run independent FFMAs (8 chains, a loop trip of 8) for longer.  Lane 0
// of every running warp writes the clock before and after its loop: times[2w], times[2w + 1].
#define STEPS 64
#define FFMA_ITERS 640

__device__ __forceinline__ unsigned clock32() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return (unsigned)t; }

template <int LAT>   // 0 dependent LDS, 1 dependent LDG (L1 hits), 2 dependent FFMA
__device__ __forceinline__ float latency_warp(const unsigned* g, float c, float d) {
    __shared__ unsigned s[32];
    const unsigned lane = threadIdx.x & 31;
    s[lane] = 0;
    __syncwarp();
    const unsigned sh = (unsigned)__cvta_generic_to_shared(s) + lane * 4;
    unsigned p = 0;
    float x = lane;
    if (LAT == 1) p = __ldca(g + lane);      // the line into L1
#pragma unroll 1
    for (int k = 0; k < STEPS; k++) {
        if (LAT == 0) {
#pragma unroll
            for (int i = 0; i < 4; i++) asm volatile("ld.shared.u32 %0, [%1];" : "=r"(p) : "r"(sh + p) : "memory");
        } else if (LAT == 1) {
#pragma unroll
            for (int i = 0; i < 4; i++) p = __ldca(g + lane + p);
        } else {
#pragma unroll
            for (int i = 0; i < 8; i++) x = fmaf(x, c, d);
        }
    }
    return x + __uint_as_float(p);
}

__device__ __forceinline__ float ffma_warp(float c) {
    const unsigned lane = threadIdx.x & 31;
    float x[8];
    for (int k = 0; k < 8; k++) x[k] = lane + k;
#pragma unroll 1
    for (int i = 0; i < FFMA_ITERS; i++) {
#pragma unroll
        for (int k = 0; k < 8; k++) x[k] = fmaf(x[k], c, 1.0f);
    }
    float acc = 0.f;
    for (int k = 0; k < 8; k++) acc += x[k];
    return acc;
}

template <int LAT, int NFFMA, int SLOT>
__device__ __forceinline__ void beside(unsigned* times, const unsigned* g, float* out, float c, float d) {
    const unsigned w = threadIdx.x / 32, lane = threadIdx.x & 31;
    const int slot = w / 4;
    const int rank = (slot - SLOT + 4) % 4;          // 0: the latency warp, 1..3 the others in slot order
    float acc = 0.f;
    unsigned t0 = 0, t1 = 0;
    if (w % 4 == 0 && (rank == 0 || rank <= NFFMA)) {
        t0 = clock32();
        acc = rank == 0 ? latency_warp<LAT>(g, c, d) : ffma_warp(c);
        t1 = clock32();
        if (lane == 0) { times[2 * w] = t0; times[2 * w + 1] = t1; }
    }
    out[threadIdx.x] = acc;
}

#define K(NAME, LAT, NFFMA, SLOT) \
    extern "C" __global__ void __launch_bounds__(512) NAME(unsigned* times, const unsigned* g, float* out, float c, float d) { \
        beside<LAT, NFFMA, SLOT>(times, g, out, c, d); }
#define KS(LNAME, LAT) \
    K(k_##LNAME##_f0_s0, LAT, 0, 0) K(k_##LNAME##_f1_s0, LAT, 1, 0) K(k_##LNAME##_f2_s0, LAT, 2, 0) K(k_##LNAME##_f3_s0, LAT, 3, 0) \
    K(k_##LNAME##_f1_s3, LAT, 1, 3) K(k_##LNAME##_f3_s3, LAT, 3, 3) K(k_##LNAME##_f3_s1, LAT, 3, 1)
KS(lds, 0)
KS(ldg, 1)
KS(ffma, 2)
