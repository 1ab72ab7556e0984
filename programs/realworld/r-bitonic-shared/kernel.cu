#include "../../include/simt_trace.cuh"

#define NK 512
// Each block sorts its 512 keys ascending with a bitonic network; each thread owns one compare-exchange per step.
extern "C" __global__ void bitonic_shared(unsigned* keys) {
    SIMT_SITE(1);
    __shared__ unsigned s[NK];
    int t = threadIdx.x;
    unsigned* k = keys + blockIdx.x * NK;
    s[t] = k[t];
    s[t + NK / 2] = k[t + NK / 2];
    for (int size = 2; size <= NK; size <<= 1) {
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            __syncthreads();
            int pos = 2 * t - (t & (stride - 1));
            bool up = ((t & (size >> 1)) == 0) || size == NK;
            unsigned a = s[pos], b = s[pos + stride];
            if ((a > b) == up) { s[pos] = b; s[pos + stride] = a; }
        }
    }
    __syncthreads();
    k[t] = s[t];
    k[t + NK / 2] = s[t + NK / 2];
    SIMT_SITE(2);
}
