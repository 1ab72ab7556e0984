// Seed 000's GDT-like benchmark: evaluating a decision tree written as code (nested data-dependent
// branches), the kind of kernel whose warps diverge on their inputs (Pang et al., DAC '24, Sec. 4:
// "GDT ... adding complexity to control flow").
//
// Thread t evaluates item i = idx[t]: 16 byte-sized features (4 per u32 word of feat[4*i..4*i+3])
// go down a depth-4 tree of threshold tests to one of 10 leaves; each leaf runs its own integer
// mixing loop (a different operation sequence and round count per leaf, so no two leaves share
// code) and out[i] = the leaf's hash, cls[i] = the leaf number (the thread's path class).
// idx = identity is the original order; idx from Algorithm 1 (simt_sim/workloads/regroup.py)
// regroups the threads by their predicted leaf; physically permuted inputs use idx = identity.
// simt_sim/workloads/regroup.py: tree_reference computes out and cls exactly with numpy.
// clk[2*b], clk[2*b+1]: clock64() at block b's start and end.
#pragma once
#include "simt_trace.cuh"

__device__ __forceinline__ unsigned int tree_feature(const uint4& w, int f) {
    const unsigned int word = f < 4 ? w.x : f < 8 ? w.y : f < 12 ? w.z : w.w;
    return (word >> (8 * (f % 4))) & 0xFFu;
}

// Leaf k: start from h = a ^ seed_k and run its rounds; `a` is one feature (leaf-specific).
#define TREE_LEAF(K, ROUNDS, A, STEP)                      \
    {                                                      \
        unsigned int a = (A);                              \
        unsigned int h = a ^ (0x9E3779B9u * (K + 1));      \
        for (int r = 0; r < (ROUNDS); r++) { STEP; }       \
        leaf = K;                                          \
        result = h;                                        \
    }

extern "C" __global__ void tree_eval(const unsigned int* __restrict__ idx, const uint4* __restrict__ feat,
                                     unsigned int* __restrict__ out, unsigned int* __restrict__ cls,
                                     long long* clk) {
    SIMT_SITE(1);
    __syncthreads();
    const long long t0 = clock64();
    const unsigned int i = idx[blockIdx.x * blockDim.x + threadIdx.x];
    const uint4 w = feat[i];
    unsigned int leaf, result;
#define X(f) tree_feature(w, f)
    if (X(0) < 128) {
        if (X(1) < 100) {
            if (X(2) < 160) TREE_LEAF(0, 24, X(9), h = (h ^ (h >> 15)) * 0x2C1B3C6Du + a)
            else TREE_LEAF(1, 28, X(10), h = (h + a) * 0x297A2D39u; h ^= h >> 12)
        } else {
            if (X(3) < 90) TREE_LEAF(2, 32, X(11), h ^= h << 13; h ^= h >> 17; h ^= h << 5; h += a)
            else if (X(4) < 128) TREE_LEAF(3, 36, X(12), h = (h * 0x01000193u) ^ a)
            else TREE_LEAF(4, 40, X(13), h = ((h << 7) | (h >> 25)) + a * 3u)
        }
    } else {
        if (X(5) < 150) {
            if (X(6) < 70) TREE_LEAF(5, 44, X(14), h = h * h + a)
            else TREE_LEAF(6, 48, X(15), h = (h ^ a) * 0x85EBCA6Bu; h ^= h >> 13)
        } else {
            if (X(7) < 128) {
                if (X(8) < 200) TREE_LEAF(7, 52, X(9), h = h - (h >> 3) + a * a)
                else TREE_LEAF(8, 56, X(10), h += h << 10; h ^= h >> 6; h += a)
            } else TREE_LEAF(9, 60, X(11), h = (h ^ 0x5BD1E995u) * 0x5BD1E995u + (h >> 24))
        }
    }
#undef X
    SIMT_SITE(2);
    out[i] = result;
    cls[i] = leaf;
    __syncthreads();
    if (threadIdx.x == 0) {
        SIMT_SITE(3);
        clk[2 * blockIdx.x] = t0;
        clk[2 * blockIdx.x + 1] = clock64();
    }
}
