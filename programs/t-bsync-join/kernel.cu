// Convergence probe: which groups waiting for the same BSYNC does the H100 take together?
// Each kernel runs one warp; `stay[lane]` is how many steps a lane takes before it leaves for the
// BSYNC, so a pattern splits the warp step by step into chosen group sizes.  Leavers that outnumber
// the lanes staying wait (the fewer-threads side runs first), so several waiting groups build up at
// the BSYNC.  Nsight Compute's count of that BSYNC tells how many groups executed it.
//   chain_*: early exits from an unrolled loop, forward branches to the BSYNC (as in seed 000's ec)
//   loop_*:  a data-dependent loop, leavers fall out of its back edge into the BSYNC
//   *_alu:   only integer arithmetic between the exits;  *_ldg: a dependent global load before each
//   nested_*: the same chain inside the smaller side of an outer if, the larger side waiting below
#include "../include/simt_trace.cuh"

#define STEPS 4

__device__ __forceinline__ unsigned step_alu(unsigned acc, int k) {
    acc = acc * 2654435761u + (unsigned)k;
    acc ^= acc >> 13;
    return acc * 40503u + (acc >> 7);
}

__device__ __forceinline__ unsigned step_ldg(const unsigned* __restrict__ tab, unsigned acc, int k) {
    return (acc ^ __ldg(&tab[(acc + (unsigned)k) & 31u])) * 40503u;
}

extern "C" __global__ void chain_alu(const int* stay, const unsigned* tab, unsigned* out) {
    SIMT_SITE(1);                                   // entry (the mask-trace variant only)
    int t = threadIdx.x, s = stay[t];
    unsigned acc = (unsigned)t * 7u + 1u;
#pragma unroll
    for (int k = 0; k < STEPS; ++k) {
        if (s <= k) break;
        acc = step_alu(acc, k);
    }
    out[t] = acc;
}

extern "C" __global__ void chain_ldg(const int* stay, const unsigned* tab, unsigned* out) {
    SIMT_SITE(1);                                   // entry (the mask-trace variant only)
    int t = threadIdx.x, s = stay[t];
    unsigned acc = (unsigned)t * 7u + 1u;
#pragma unroll
    for (int k = 0; k < STEPS; ++k) {
        if (s <= k) break;
        acc = step_ldg(tab, acc, k);
    }
    out[t] = acc;
}

extern "C" __global__ void loop_alu(const int* stay, const unsigned* tab, unsigned* out) {
    SIMT_SITE(1);                                   // entry (the mask-trace variant only)
    int t = threadIdx.x, s = stay[t];
    unsigned acc = (unsigned)t * 7u + 1u;
#pragma unroll 1
    for (int k = 0; k < s; ++k) acc = step_alu(acc, k);
    out[t] = acc;
}

extern "C" __global__ void loop_ldg(const int* stay, const unsigned* tab, unsigned* out) {
    SIMT_SITE(1);                                   // entry (the mask-trace variant only)
    int t = threadIdx.x, s = stay[t];
    unsigned acc = (unsigned)t * 7u + 1u;
#pragma unroll 1
    for (int k = 0; k < s; ++k) acc = step_ldg(tab, acc, k);
    out[t] = acc;
}

extern "C" __global__ void nested_alu(const int* stay, const unsigned* tab, unsigned* out) {
    SIMT_SITE(1);                                   // entry (the mask-trace variant only)
    int t = threadIdx.x, s = stay[t];
    unsigned acc = (unsigned)t * 7u + 1u;
    if (s >= 0) {
#pragma unroll
        for (int k = 0; k < STEPS; ++k) {
            if (s <= k) break;
            acc = step_alu(acc, k);
        }
    } else {
        acc = step_alu(acc ^ 0x55u, -s);
    }
    out[t] = acc;
}

extern "C" __global__ void nested_ldg(const int* stay, const unsigned* tab, unsigned* out) {
    SIMT_SITE(1);                                   // entry (the mask-trace variant only)
    int t = threadIdx.x, s = stay[t];
    unsigned acc = (unsigned)t * 7u + 1u;
    if (s >= 0) {
#pragma unroll
        for (int k = 0; k < STEPS; ++k) {
            if (s <= k) break;
            acc = step_ldg(tab, acc, k);
        }
    } else {
        acc = step_ldg(tab, acc ^ 0x55u, -s);
    }
    out[t] = acc;
}

__device__ __forceinline__ unsigned step_lds(const unsigned* sh, unsigned acc, int k) {
    return (acc ^ sh[(acc + (unsigned)k) & 31u]) * 40503u;
}

__device__ __forceinline__ unsigned step_long(unsigned acc, int k) {
#pragma unroll
    for (int i = 0; i < 12; ++i) acc = step_alu(acc, k + i);
    return acc;
}

extern "C" __global__ void chain_lds(const int* stay, const unsigned* tab, unsigned* out) {
    SIMT_SITE(1);                                   // entry (the mask-trace variant only)
    __shared__ unsigned sh[32];
    int t = threadIdx.x, s = stay[t];
    sh[t] = tab[t];
    __syncwarp();
    unsigned acc = (unsigned)t * 7u + 1u;
#pragma unroll
    for (int k = 0; k < STEPS; ++k) {
        if (s <= k) break;
        acc = step_lds(sh, acc, k);
    }
    out[t] = acc;
}

extern "C" __global__ void chain_long(const int* stay, const unsigned* tab, unsigned* out) {
    SIMT_SITE(1);                                   // entry (the mask-trace variant only)
    int t = threadIdx.x, s = stay[t];
    unsigned acc = (unsigned)t * 7u + 1u;
#pragma unroll
    for (int k = 0; k < STEPS; ++k) {
        if (s <= k) break;
        acc = step_long(acc, k);
    }
    out[t] = acc;
}

extern "C" __global__ void chain_sfu(const int* stay, const unsigned* tab, unsigned* out) {
    SIMT_SITE(1);                                   // entry (the mask-trace variant only)
    int t = threadIdx.x, s = stay[t];
    float acc = (float)t * 0.37f + 1.0f;
#pragma unroll
    for (int k = 0; k < STEPS; ++k) {
        if (s <= k) break;
        acc = __sinf(acc) * 3.0f + (float)k;
    }
    out[t] = __float_as_uint(acc);
}

extern "C" __global__ void loop_long(const int* stay, const unsigned* tab, unsigned* out) {
    SIMT_SITE(1);                                   // entry (the mask-trace variant only)
    int t = threadIdx.x, s = stay[t];
    unsigned acc = (unsigned)t * 7u + 1u;
#pragma unroll 1
    for (int k = 0; k < s; ++k) acc = step_long(acc, k);
    out[t] = acc;
}
