// t-lds-tput-*: shared-memory load throughput.  Every thread of T_LDS_WARPS warps per
// sub-partition issues 256 independent 32-bit LDS of distinct addresses (consecutive lanes on
// consecutive banks, no conflicts) xor-ed into 8 accumulators (LOP3, the ALU pipe, which is not the
// limit); lane 0 of each warp records clk[2 * warp] = start, + 1 = end.
// LDS warp-instructions per cycle per SM = warps * 256 / (last end - first start).
#pragma once
#include "simt_trace.cuh"
#include "t_common.cuh"

extern "C" __global__ void lds_tput(const unsigned* in, unsigned* res, long long* clk) {
    SIMT_SITE(1);                                   // entry
    __shared__ unsigned sh[8192];
    int i = threadIdx.x;
    for (int k = i; k < 8192; k += blockDim.x) sh[k] = in[k & 2047] + (unsigned)k;
    __syncthreads();
    const unsigned* base = sh + (i & 31);
    unsigned acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    long long t0 = clock64();
#pragma unroll
    for (int k = 0; k < 32; k++) {
#pragma unroll
        for (int c = 0; c < 8; c++) acc[c] ^= base[32 * (8 * k + c)];
    }
    long long t1 = clock64();
    res[i] = xor8(acc);
    warp_span(clk, i, t0, t1);
    SIMT_SITE(2);                                   // exit
}
