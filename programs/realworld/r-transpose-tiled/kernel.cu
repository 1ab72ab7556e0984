#include "../../include/simt_trace.cuh"

#define TD 32
#define BR 8
extern "C" __global__ void transpose_tiled(const int* in, int* out, int n) {
    SIMT_SITE(1);
    __shared__ int tile[TD][TD + 1];
    int x = blockIdx.x * TD + threadIdx.x;
    int y = blockIdx.y * TD + threadIdx.y;
    for (int r = 0; r < TD; r += BR)
        tile[threadIdx.y + r][threadIdx.x] = in[(y + r) * n + x];
    __syncthreads();
    x = blockIdx.y * TD + threadIdx.x;
    y = blockIdx.x * TD + threadIdx.y;
    for (int r = 0; r < TD; r += BR)
        out[(y + r) * n + x] = tile[threadIdx.x][threadIdx.y + r];
    SIMT_SITE(2);
}
