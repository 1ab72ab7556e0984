// __nv_bfloat16 arithmetic (cuda_bf16.h, sm_90): add.bf16, mul.bf16, fma.rn.bf16, fma.rn.relu.bf16,
// max.NaN.bf16.
#include <cuda_bf16.h>

extern "C" __global__ void bf16_math(const __nv_bfloat16* a, const __nv_bfloat16* b, const __nv_bfloat16* c,
                                     __nv_bfloat16* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __nv_bfloat16 x = a[i], y = b[i], z = c[i];
        out[5 * i + 0] = __hadd(x, y);
        out[5 * i + 1] = __hmul(x, y);
        out[5 * i + 2] = __hfma(x, y, z);
        out[5 * i + 3] = __hfma_relu(x, y, z);
        out[5 * i + 4] = __hmax_nan(x, y);
    }
}
