#include "../../include/simt_trace.cuh"

// Butterfly all-reduce with __shfl_xor_sync: every lane ends with the warp max and the warp xor.
extern "C" __global__ void shfl_xor_max(const int* in, int* out) {
    SIMT_SITE(1);                                   // entry
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int m = in[i];
    int x = m;
    for (int mask = 1; mask < 32; mask <<= 1) {
        m = max(m, __shfl_xor_sync(0xffffffffu, m, mask));
        x ^= __shfl_xor_sync(0xffffffffu, x, mask);
    }
    out[2 * i] = m;
    out[2 * i + 1] = x;
    SIMT_SITE(2);                                   // exit
}
