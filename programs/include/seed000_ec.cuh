// Seed 000's CUDA-EC-like benchmark: spectrum-based error correction of short reads, with nested
// branches and early exits (Pang et al., DAC '24, Sec. 4: "CUDA-EC ... error correction in
// high-throughput sequencing reads, encompassing a spectrum of control flow divergence").
//
// Thread t corrects read i = idx[t]: EC_LEN = 10 bases of 3 bits each in reads[i] (0-3 = ACGT,
// 4 = N).  A k-mer (k = 5, 6 windows per read) is solid when its bit is set in the 1024-bit
// spectrum.  The read's path, which is also its class cls[i] (28 classes, the paper's 10x32x28
// predictor shape):
//   0          two or more N: discarded (early exit)
//   1 + b      one N, replaced by base b = 0..3, the first making every window solid
//   5          one N that no base fixes
//   6          every window solid: nothing to do (early exit)
//   7 + 3j + d-1  the first weak window starts at w; base w + j (j = 0..4) replaced by
//              (base + d) & 3 (d = 1..3), the first substitution in that order making every window solid
//   22 + w     no single substitution in the first weak window fixes the read
// out[i] = the read after correction, 2 bits per base (an N that was not fixed reads as base 0).
// simt_sim/workloads/regroup.py: ec_reference computes out and cls exactly with numpy.
// clk[2*b], clk[2*b+1]: clock64() at block b's start and end.
#pragma once
#include "simt_trace.cuh"

#define EC_LEN 10
#define EC_K 5
#define EC_WINDOWS (EC_LEN - EC_K + 1)

__device__ __forceinline__ bool ec_solid(const unsigned int* spectrum, unsigned int kmer) {
    return (spectrum[kmer >> 5] >> (kmer & 31u)) & 1u;
}

// The first window of the 2-bit read that is not solid, or -1 when all are.
__device__ __forceinline__ int ec_first_weak(const unsigned int* spectrum, unsigned int read2) {
    for (int w = 0; w < EC_WINDOWS; w++) {
        if (!ec_solid(spectrum, (read2 >> (2 * w)) & 0x3FFu)) return w;
    }
    return -1;
}

__device__ __forceinline__ unsigned int ec_set_base(unsigned int read2, int p, unsigned int b) {
    return (read2 & ~(3u << (2 * p))) | (b << (2 * p));
}

extern "C" __global__ void ec_correct(const unsigned int* __restrict__ idx, const unsigned int* __restrict__ reads,
                                      const unsigned int* __restrict__ spectrum, unsigned int* __restrict__ out,
                                      unsigned int* __restrict__ cls, long long* clk) {
    SIMT_SITE(1);
    __syncthreads();
    const long long t0 = clock64();
    const unsigned int i = idx[blockIdx.x * blockDim.x + threadIdx.x];
    const unsigned int read = reads[i];
    unsigned int read2 = 0, n_count = 0;
    int n_pos = 0;
    for (int p = 0; p < EC_LEN; p++) {
        const unsigned int base = (read >> (3 * p)) & 7u;
        if (base == 4u) {
            n_count++;
            n_pos = p;
        } else {
            read2 |= (base & 3u) << (2 * p);
        }
    }
    unsigned int path;
    if (n_count >= 2) {
        path = 0;                                        // discarded
    } else if (n_count == 1) {
        path = 5;                                        // unless a base fixes the N
        for (unsigned int b = 0; b < 4; b++) {
            const unsigned int candidate = ec_set_base(read2, n_pos, b);
            if (ec_first_weak(spectrum, candidate) < 0) {
                read2 = candidate;
                path = 1 + b;
                break;
            }
        }
    } else {
        const int w = ec_first_weak(spectrum, read2);
        if (w < 0) {
            path = 6;                                    // clean
        } else {
            path = 22 + w;                               // unless one substitution fixes it
            for (int j = 0; j < EC_K && path >= 22; j++) {
                const int p = w + j;
                const unsigned int base = (read2 >> (2 * p)) & 3u;
                for (unsigned int d = 1; d <= 3; d++) {
                    const unsigned int candidate = ec_set_base(read2, p, (base + d) & 3u);
                    if (ec_first_weak(spectrum, candidate) < 0) {
                        read2 = candidate;
                        path = 7 + 3 * j + (d - 1);
                        break;
                    }
                }
            }
        }
    }
    SIMT_SITE(2);
    out[i] = read2;
    cls[i] = path;
    __syncthreads();
    if (threadIdx.x == 0) {
        SIMT_SITE(3);
        clk[2 * blockIdx.x] = t0;
        clk[2 * blockIdx.x + 1] = clock64();
    }
}
