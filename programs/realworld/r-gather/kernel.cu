#include "../../include/simt_trace.cuh"

// out[r][c] = table[idx[r]][c] * 2 + 1 for r < rows, c < width.
extern "C" __global__ void gather_rows(const float* table, const int* idx, float* out, int rows, int width) {
    SIMT_SITE(1);
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int r = g / width, c = g % width;
    if (r < rows) out[g] = table[idx[r] * width + c] * 2.0f + 1.0f;
    SIMT_SITE(2);
}
