#include "../../include/simt_trace.cuh"

#define TD 32
#define BR 8
extern "C" __global__ void transpose_naive(const int* in, int* out, int n) {
    SIMT_SITE(1);
    int x = blockIdx.x * TD + threadIdx.x;
    int y = blockIdx.y * TD + threadIdx.y;
    for (int r = 0; r < TD; r += BR)
        out[x * n + y + r] = in[(y + r) * n + x];
    SIMT_SITE(2);
}
