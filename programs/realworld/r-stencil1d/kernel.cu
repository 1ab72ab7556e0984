#include "../../include/simt_trace.cuh"

#define RADIUS 7
#define BLK 256
// out[g] = sum of in[g .. g + 2 RADIUS] (in is padded by RADIUS on each side).
extern "C" __global__ void stencil1d(const int* in, int* out) {
    SIMT_SITE(1);
    __shared__ int tile[BLK + 2 * RADIUS];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    tile[l] = in[g + RADIUS];
    if (threadIdx.x < RADIUS) {
        SIMT_SITE(2);
        tile[l - RADIUS] = in[g];
        tile[l + BLK] = in[g + BLK + RADIUS];
    }
    __syncthreads();
    int s = 0;
    for (int o = -RADIUS; o <= RADIUS; ++o)
        s += tile[l + o];
    out[g] = s;
    SIMT_SITE(3);
}
