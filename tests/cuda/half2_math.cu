// __half2 packed arithmetic (cuda_fp16.h): fma.rn.f16x2, mul.f16x2, max.f16x2, min.f16x2, abs.f16x2.
#include <cuda_fp16.h>

extern "C" __global__ void half2_math(const __half2* a, const __half2* b, const __half2* c, __half2* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half2 x = a[i], y = b[i], z = c[i];
        out[5 * i + 0] = __hfma2(x, y, z);
        out[5 * i + 1] = __hmul2(x, y);
        out[5 * i + 2] = __hmax2(x, y);
        out[5 * i + 3] = __hmin2(x, y);
        out[5 * i + 4] = __habs2(x);
    }
}
