#include "../../include/simt_trace.cuh"

extern "C" __global__ void early_return(const int* in, int* out, int n) {
    SIMT_SITE(1);                                   // entry
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= n) { SIMT_SITE(2); return; }         // leaving early
    SIMT_SITE(3);                                   // the rest
    out[tid] = in[tid] * 2 + tid;
}
