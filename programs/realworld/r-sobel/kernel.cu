#include "../../include/simt_trace.cuh"

extern "C" __global__ void sobel(const unsigned char* img, unsigned char* out, int w, int h) {
    SIMT_SITE(1);
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > 0 && y > 0 && x < w - 1 && y < h - 1) {
        SIMT_SITE(2);
        int p00 = img[(y - 1) * w + x - 1], p01 = img[(y - 1) * w + x], p02 = img[(y - 1) * w + x + 1];
        int p10 = img[y * w + x - 1],                                   p12 = img[y * w + x + 1];
        int p20 = img[(y + 1) * w + x - 1], p21 = img[(y + 1) * w + x], p22 = img[(y + 1) * w + x + 1];
        int gx = (p02 + 2 * p12 + p22) - (p00 + 2 * p10 + p20);
        int gy = (p20 + 2 * p21 + p22) - (p00 + 2 * p01 + p02);
        int m = abs(gx) + abs(gy);
        out[y * w + x] = (unsigned char)(m > 255 ? 255 : m);
    }
    SIMT_SITE(3);
}
