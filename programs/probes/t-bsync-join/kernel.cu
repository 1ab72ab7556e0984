// Convergence probe: which groups waiting for the same BSYNC does the H100 take together?
// Each kernel runs one warp; `stay[lane]` is how many steps a lane takes before it leaves for the
// BSYNC, so a pattern splits the warp step by step into chosen group sizes.  Leavers that outnumber
// the lanes staying wait (the fewer-threads side runs first), so several waiting groups build up at
// the BSYNC.  Nsight Compute's count of that BSYNC tells how many groups executed it.
//   chain_*: early exits from an unrolled loop, forward branches to the BSYNC (as in seed 000's ec)
//   loop_*:  a data-dependent loop, leavers fall out of its back edge into the BSYNC
//   *_alu:   only integer arithmetic between the exits;  *_ldg: a dependent global load before each
//   nested_*: the same chain inside the smaller side of an outer if, the larger side waiting below
#include "../../include/simt_trace.cuh"

#define STEPS 4

__device__ __forceinline__ unsigned step_alu(unsigned acc, int k) {
    acc = acc * 2654435761u + (unsigned)k;
    acc ^= acc >> 13;
    return acc * 40503u + (acc >> 7);
}

__device__ __forceinline__ unsigned step_ldg(const unsigned* __restrict__ tab, unsigned acc, int k) {
    return (acc ^ __ldg(&tab[(acc + (unsigned)k) & 31u])) * 40503u;
}

// The three shapes, each with a choice of step between the exits (the kernels differ only there;
// chain_lds and chain_sfu, which fill shared memory or work in floats, are written out below).
#define PROBE_START                                                                                  \
    SIMT_SITE(1);                                   /* entry (the mask-trace variant only) */        \
    int t = threadIdx.x, s = stay[t];                                                                \
    unsigned acc = (unsigned)t * 7u + 1u;

#define CHAIN_KERNEL(name, step)                                                                     \
    extern "C" __global__ void name(const int* stay, const unsigned* tab, unsigned* out) {           \
        PROBE_START                                                                                  \
        _Pragma("unroll")                                                                            \
        for (int k = 0; k < STEPS; ++k) {                                                            \
            if (s <= k) break;                                                                       \
            acc = step;                                                                              \
        }                                                                                            \
        out[t] = acc;                                                                                \
    }

#define LOOP_KERNEL(name, step)                                                                      \
    extern "C" __global__ void name(const int* stay, const unsigned* tab, unsigned* out) {           \
        PROBE_START                                                                                  \
        _Pragma("unroll 1")                                                                          \
        for (int k = 0; k < s; ++k) acc = step;                                                      \
        out[t] = acc;                                                                                \
    }

// the chain inside the smaller side of an outer if (s >= 0), the larger side (`other`) waiting below
#define NESTED_KERNEL(name, step, other)                                                             \
    extern "C" __global__ void name(const int* stay, const unsigned* tab, unsigned* out) {           \
        PROBE_START                                                                                  \
        if (s >= 0) {                                                                                \
            _Pragma("unroll")                                                                        \
            for (int k = 0; k < STEPS; ++k) {                                                        \
                if (s <= k) break;                                                                   \
                acc = step;                                                                          \
            }                                                                                        \
        } else {                                                                                     \
            acc = other;                                                                             \
        }                                                                                            \
        out[t] = acc;                                                                                \
    }

CHAIN_KERNEL(chain_alu, step_alu(acc, k))
CHAIN_KERNEL(chain_ldg, step_ldg(tab, acc, k))
LOOP_KERNEL(loop_alu, step_alu(acc, k))
LOOP_KERNEL(loop_ldg, step_ldg(tab, acc, k))
NESTED_KERNEL(nested_alu, step_alu(acc, k), step_alu(acc ^ 0x55u, -s))
NESTED_KERNEL(nested_ldg, step_ldg(tab, acc, k), step_ldg(tab, acc ^ 0x55u, -s))

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

CHAIN_KERNEL(chain_long, step_long(acc, k))

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

LOOP_KERNEL(loop_long, step_long(acc, k))
