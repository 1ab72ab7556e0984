// __half scalar arithmetic (cuda_fp16.h): add.f16, sub.f16, mul.f16, fma.rn.f16, neg.f16.
#include <cuda_fp16.h>

extern "C" __global__ void half_arith(const __half* a, const __half* b, const __half* c, __half* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half x = a[i], y = b[i], z = c[i];
        out[5 * i + 0] = __hadd(x, y);
        out[5 * i + 1] = __hsub(x, y);
        out[5 * i + 2] = __hmul(x, y);
        out[5 * i + 3] = __hfma(x, y, z);
        out[5 * i + 4] = __hneg(x);
    }
}
